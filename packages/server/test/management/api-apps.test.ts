/**
 * Issue 13 (API applications): an API application authenticates with its client id and secret to
 * introspect tokens; a regenerated secret replaces the old one at once; it is shown with
 * `apiConfig` by the shared application operations; the OIDC-only operations refuse it; removed,
 * it can no longer introspect. (Private-key JWT applications: app-keys.test.ts.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

describeEachStore('API applications', (dialect) => {
  let s: OidcTestServer;
  let projectId: string;
  let accessToken: string;
  const ORG = `${Date.now() % 1_000_000_000}4`;
  const inOrg = { 'x-service-orgid': ORG };
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const introspect = async (authorization: string, token = accessToken) => {
    const res = await fetch(`${s.issuer}/oauth/v2/introspect`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    expect((await s.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: { orgs: [{ orgId: ORG, org: { name: 'Orders' } }] } })).body.errors ?? []).toEqual([]);
    projectId = (await s.api('POST', '/management/v1/projects', { name: 'orders' }, undefined, inOrg)).body.id;
    // A token to look at: a machine user's, by client credentials.
    const robot = (await s.api('POST', '/management/v1/users/machine', { userName: 'orders-robot', name: 'Robot' })).body.userId;
    const secret = (await s.api('PUT', `/management/v1/users/${robot}/secret`)).body;
    const token = await fetch(`${s.issuer}/oauth/v2/token`, {
      method: 'POST',
      headers: { authorization: basic(secret.clientId, secret.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
    });
    accessToken = (await token.json()).access_token;
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('introspects with its credentials; a new secret replaces the old one; removed, it cannot', async () => {
    const added = await s.api('POST', `/management/v1/projects/${projectId}/apps/api`, { name: 'orders-api' }, undefined, inOrg);
    expect(added.status).toBe(200);
    const { appId, clientId, clientSecret } = added.body;

    const seen = await introspect(basic(clientId, clientSecret));
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ active: true, client_id: expect.any(String) });
    expect((await introspect(basic(clientId, 'wrong'))).status).toBe(401);
    // It signs nobody in.
    const authorize = await fetch(`${s.issuer}/oauth/v2/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1:1/cb', scope: 'openid' })}`, {
      redirect: 'manual',
    });
    expect(authorize.status).toBe(400);

    const app = (await s.api('GET', `/management/v1/projects/${projectId}/apps/${appId}`, undefined, undefined, inOrg)).body.app;
    expect(app).toMatchObject({ name: 'orders-api', apiConfig: { clientId, authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' } });
    expect(app.oidcConfig).toBeUndefined();
    // Each refusal names the operation that does it for an API application.
    const oidcConfig = await s.api('PUT', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config`, { redirectUris: ['https://x.example/cb'] }, undefined, inOrg);
    expect(oidcConfig.status).toBe(400);
    expect(oidcConfig.body.details[0]).toMatchObject({ id: 'COMMAND-Gnwt4', message: expect.stringContaining('use UpdateAPIAppConfig') });
    const oidcSecret = await s.api('POST', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config/_generate_client_secret`, undefined, undefined, inOrg);
    expect(oidcSecret.status).toBe(400);
    expect(oidcSecret.body.details[0]).toMatchObject({ id: 'COMMAND-Gnwt4', message: expect.stringContaining('use RegenerateAPIClientSecret') });

    const renewed = await s.api('POST', `/management/v1/projects/${projectId}/apps/${appId}/api_config/_generate_client_secret`, undefined, undefined, inOrg);
    expect(renewed.status).toBe(200);
    expect((await introspect(basic(clientId, clientSecret))).status).toBe(401);
    expect((await introspect(basic(clientId, renewed.body.clientSecret))).body.active).toBe(true);

    // Exported with its credentials (with passwords), imported into a fresh instance, it introspects there too.
    const exported = (await s.api('POST', '/admin/v1/export', { org_ids: [ORG], with_passwords: true, timeout: '1m', response_output: true })).body;
    const org = exported.orgs[0];
    // Basic authentication is the enum's zero value: left out, as protojson does.
    expect(org.apiApps).toEqual([{ appId, app: { projectId, name: 'orders-api' }, identityServiceClient: { clientId, clientSecretHash: expect.any(String) } }]);
    const target = await startOidcServer(dialect);
    try {
      const doc = { orgs: [{ ...org, apiApps: [...org.apiApps, { appId: `${appId}9`, app: { projectId, name: 'keyed', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' } }] }] };
      const imported = (await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: doc })).body;
      // A PRIVATE_KEY_JWT application is imported as such (it needs new keys there: app-keys.test.ts).
      expect(imported.errors ?? []).toEqual([]);
      expect(imported.success.orgs[0].apiAppIds).toEqual([appId, `${appId}9`]);
      const again = (await target.api('POST', '/admin/v1/export', { org_ids: [org.orgId], with_passwords: true, timeout: '1m', response_output: true })).body;
      expect(again.orgs[0].apiApps).toEqual([
        ...org.apiApps,
        { appId: `${appId}9`, app: { projectId, name: 'keyed', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' }, identityServiceClient: { clientId: expect.any(String) } },
      ]);
      const res = await fetch(`${target.issuer}/oauth/v2/introspect`, {
        method: 'POST',
        headers: { authorization: basic(clientId, renewed.body.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: 'unknown' }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).active).toBe(false);
    } finally {
      await target.close();
    }

    expect((await s.api('DELETE', `/management/v1/projects/${projectId}/apps/${appId}`, undefined, undefined, inOrg)).status).toBe(200);
    expect((await introspect(basic(clientId, renewed.body.clientSecret))).status).toBe(401);
  });
});
