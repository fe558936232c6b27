/**
 * UpdateApp (rename) and RegenerateOIDCClientSecret over HTTP on the real server, so that the
 * effect of a new secret is seen where it matters: the provider's client authentication.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore, insertMachineUserWithToken, insertOrg } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

describeEachStore('applications: rename and client secret', (dialect) => {
  let s: OidcTestServer;
  let projectId: string;
  let webApp: { appId: string; clientId: string; clientSecret: string };
  let spaAppId: string;

  const app = (appId: string) => `/management/v1/projects/${projectId}/apps/${appId}`;
  /** Client authentication at the introspection endpoint: 200 with the right secret, 401 otherwise. */
  const introspectAs = (clientId: string, secret: string) =>
    fetch(`${s.issuer}/oauth/v2/introspect`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'not-a-token' }),
    });

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = await s.api('POST', '/management/v1/projects', { name: 'apps' });
    projectId = project.body.id;
    const web = await s.api('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'web', redirectUris: ['https://app.example.com/cb'] });
    expect(web.status, JSON.stringify(web.body)).toBe(200);
    webApp = web.body;
    const spa = await s.api('POST', `/management/v1/projects/${projectId}/apps/oidc`, {
      name: 'spa',
      redirectUris: ['http://localhost:3000/cb'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    spaAppId = spa.body.appId;
  }, 60_000);
  afterAll(() => s?.close());

  it('UpdateApp renames the application (trimmed), appends an event, and refuses the same name', async () => {
    const renamed = await s.api('PUT', app(webApp.appId), { name: '  website  ' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const got = await s.api('GET', app(webApp.appId));
    expect(got.body.app.name).toBe('website');
    expect(got.body.app.details.sequence).toBe(renamed.body.details.sequence);
    expect(got.body.app.oidcConfig.clientId).toBe(webApp.clientId);
    const events = await s.api('POST', '/admin/v1/events/_search', { eventTypes: ['project.application.changed'] });
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    expect(events.body.events.map((e: { payload: unknown }) => e.payload)).toContainEqual({ appId: webApp.appId, name: 'website' });

    const same = await s.api('PUT', app(webApp.appId), { name: 'website' });
    expect(same.status).toBe(400);
    expect(same.body.details[0].id).toBe('COMMAND-2m8vx');
    expect((await s.api('PUT', app(webApp.appId), { name: '' })).status).toBe(400);
    expect((await s.api('PUT', app(webApp.appId), { name: 'x'.repeat(201) })).status).toBe(400);
    expect((await s.api('PUT', app('missing'), { name: 'y' })).status).toBe(404);
  });

  it('another organisation’s caller gets 404, a caller without project.app.write 403', async () => {
    const { orgId } = await insertOrg(s.t, 'Other apps org');
    expect((await s.api('PUT', app(webApp.appId), { name: 'z' }, undefined, { 'x-service-orgid': orgId })).status).toBe(404);
    expect((await s.api('POST', `${app(webApp.appId)}/oidc_config/_generate_client_secret`, undefined, undefined, { 'x-service-orgid': orgId })).status).toBe(404);
    const { token } = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_SETTINGS_MANAGER'] });
    expect((await s.api('PUT', app(webApp.appId), { name: 'z' }, token)).status).toBe(403);
    expect((await s.api('POST', `${app(webApp.appId)}/oidc_config/_generate_client_secret`, undefined, token)).status).toBe(403);
  });

  it('RemoveApp: another organisation’s owner gets 404 like every lookup by id, its own organisation’s owner 403', async () => {
    const { orgId } = await insertOrg(s.t, 'Other owners org');
    // ORG_OWNER reads applications but may not remove them (ZITADEL's defaults).
    const other = await insertMachineUserWithToken(s.t, { orgId, orgRoles: ['ORG_OWNER'] });
    const removeAsOther = await s.api('DELETE', app(spaAppId), undefined, other.token);
    expect(removeAsOther.status, JSON.stringify(removeAsOther.body)).toBe(404);
    expect((await s.api('DELETE', app('missing'), undefined, other.token)).status).toBe(404);
    const owner = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_OWNER'] });
    expect((await s.api('DELETE', app(spaAppId), undefined, owner.token)).status).toBe(403);
    // A caller that cannot read applications at all learns nothing either way.
    const settings = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_SETTINGS_MANAGER'] });
    expect((await s.api('DELETE', app(spaAppId), undefined, settings.token)).status).toBe(403);
    expect((await s.api('GET', app(spaAppId))).status).toBe(200);
  });

  it('RegenerateOIDCClientSecret returns a new secret once; the old one stops working at the token server', async () => {
    expect((await introspectAs(webApp.clientId, webApp.clientSecret)).status).toBe(200);
    const regenerated = await s.api('POST', `${app(webApp.appId)}/oidc_config/_generate_client_secret`);
    expect(regenerated.status, JSON.stringify(regenerated.body)).toBe(200);
    const { clientSecret, details } = regenerated.body;
    expect(clientSecret).toMatch(/^[\w-]{43}$/);
    expect(clientSecret).not.toBe(webApp.clientSecret);
    expect(details.sequence).toMatch(/^\d+$/);

    const old = await introspectAs(webApp.clientId, webApp.clientSecret);
    expect(old.status).toBe(401);
    expect((await old.json()).error).toBe('invalid_client');
    expect((await introspectAs(webApp.clientId, clientSecret)).status).toBe(200);
    // Only the hash is kept, and the secret is never shown again.
    const row = await s.t.store.read.oidcApps.get(projectId, webApp.appId);
    expect(row?.clientSecretHash).not.toContain(clientSecret);
    expect(JSON.stringify((await s.api('GET', app(webApp.appId))).body)).not.toContain(clientSecret);
  });

  it('a public client has no secret to regenerate (400); an unknown app 404', async () => {
    const res = await s.api('POST', `${app(spaAppId)}/oidc_config/_generate_client_secret`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(9);
    expect(res.body.details[0].id).toBe('COMMAND-Ggh3a');
    expect((await s.t.store.read.oidcApps.get(projectId, spaAppId))?.clientSecretHash).toBeNull();
    expect((await s.api('POST', `${app('missing')}/oidc_config/_generate_client_secret`)).status).toBe(404);
  });
});
