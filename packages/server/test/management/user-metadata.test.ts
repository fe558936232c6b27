/**
 * Issue 13 (user metadata): set, bulk set, get, list, remove over the API; the values reach
 * applications through userinfo with ZITADEL's metadata scope; export and import carry them.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describeEachStore('user metadata', (dialect) => {
  let s: OidcTestServer;
  let userId: string;
  let orgId: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    orgId = (await s.api('POST', '/management/v1/orgs', { name: `meta-${Date.now()}` })).body.id;
    userId = (
      await s.api(
        'POST',
        '/management/v1/users/human/_import',
        {
          userName: 'meta',
          profile: { firstName: 'Me', lastName: 'Ta' },
          email: { email: 'meta@example.com', isEmailVerified: true },
          password: 'Passw0rd-Meta!',
        },
        undefined,
        inOrg(),
      )
    ).body.userId;
  }, 60_000);
  afterAll(() => s?.close());
  const api = (method: string, path: string, body?: unknown) => s.api(method, `/management/v1/users/${userId}/metadata${path}`, body, undefined, inOrg());

  it('set, bulk set, get, list with a key query, remove, bulk remove; bad input changes nothing', async () => {
    expect((await api('POST', '/tier', { value: b64('gold') })).status).toBe(200);
    // URL-safe base64 is accepted and answered in the standard alphabet.
    expect(
      (
        await api('POST', '/_bulk', {
          metadata: [
            { key: 'team', value: b64('a/b?') },
            { key: 'binary', value: Buffer.from([0xfb, 0xff]).toString('base64url') },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await api('GET', '/tier')).body.metadata).toMatchObject({ key: 'tier', value: b64('gold') });
    expect((await api('GET', '/binary')).body.metadata.value).toBe('+/8=');
    const all = await api('POST', '/_search', {});
    expect(all.body.result.map((m: any) => m.key)).toEqual(['binary', 'team', 'tier']);
    expect(all.body.details.totalResult).toBe('3');
    const some = await api('POST', '/_search', { queries: [{ keyQuery: { key: 'T', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }] });
    expect(some.body.result.map((m: any) => m.key)).toEqual(['team', 'tier']);

    const bad = await api('POST', '/_bulk', {
      metadata: [
        { key: 'ok', value: b64('x') },
        { key: 'broken', value: 'not base64!' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid metadata[1].value: must be base64 (META-v4l0)');
    expect((await api('GET', '/ok')).status).toBe(404);
    const big = await api('POST', '/big', { value: Buffer.alloc(500_001).toString('base64') });
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/^invalid value: must be 1 to 500000 bytes, got 500001/);
    expect((await api('POST', '/_bulk', { metadata: [] })).status).toBe(400);

    expect((await api('DELETE', '/_bulk', { keys: ['team', 'missing'] })).status).toBe(404);
    expect((await api('GET', '/team')).status).toBe(200);
    expect((await api('DELETE', '/_bulk', { keys: ['team', 'binary'] })).status).toBe(200);
    expect((await api('DELETE', '/tier')).status).toBe(200);
    expect((await api('DELETE', '/tier')).status).toBe(404);
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: ['user.metadata.set', 'user.metadata.removed'], asc: true });
    expect(events.body.events.map((e: any) => `${e.type.type}:${e.payload.key}`)).toEqual([
      'user.metadata.set:tier',
      'user.metadata.set:team',
      'user.metadata.set:binary',
      'user.metadata.removed:team',
      'user.metadata.removed:binary',
      'user.metadata.removed:tier',
    ]);
    // Another organisation's user is not found from here.
    expect((await s.api('POST', `/management/v1/users/${userId}/metadata/_search`, {})).status).toBe(404);
  });

  it('userinfo answers the metadata claim with the metadata scope; export and import carry the metadata', async () => {
    expect((await api('POST', '/plan', { value: b64('premium') })).status).toBe(200);
    const project = (await s.api('POST', '/management/v1/projects', { name: 'meta-app' }, undefined, inOrg())).body.id;
    const app = await s.api(
      'POST',
      `/management/v1/projects/${project}/apps/oidc`,
      {
        name: 'meta',
        redirectUris: [REDIRECT],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        devMode: true,
      },
      undefined,
      inOrg(),
    );
    const config = await oc.discovery(new URL(s.issuer), app.body.clientId, undefined, oc.ClientSecretBasic(app.body.clientSecret), { execute: [oc.allowInsecureRequests] });
    const signedIn = await signInThroughForm(config, REDIRECT, 'meta', 'Passw0rd-Meta!', { scope: 'openid urn:zitadel:iam:user:metadata' });
    const tokens = await signedIn.redeem();
    const info = await (await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
    // ZITADEL's claim encodes each value as base64url without padding (userinfo.go: base64.RawURLEncoding).
    expect(info['urn:zitadel:iam:user:metadata']).toEqual({ plan: Buffer.from('premium').toString('base64url') });

    const exported = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true });
    expect(exported.body.orgs[0].userMetadata).toEqual([{ id: userId, key: 'plan', value: b64('premium') }]);
    const target = await startOidcServer(dialect);
    try {
      const imported = await target.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: exported.body });
      expect(imported.body.errors ?? []).toEqual([]);
      expect(imported.body.success.orgs[0].userMetadata).toEqual([{ userId, key: 'plan' }]);
      const read = await target.api('GET', `/management/v1/users/${userId}/metadata/plan`, undefined, undefined, { 'x-service-orgid': orgId });
      expect(read.body.metadata.value).toBe(b64('premium'));
      const again = await target.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: exported.body });
      expect(again.body.errors).toEqual(expect.arrayContaining([{ type: 'user_metadata', id: `${userId}_plan`, message: expect.stringContaining('META-4lr3X') }]));
    } finally {
      await target.close();
    }
    // Removing the user removes its metadata.
    expect((await s.api('DELETE', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).status).toBe(200);
    expect(await s.t.store.read.userMetadata.all(userId)).toEqual([]);
  });
});
