/**
 * A move A → B → C (issue 30): an organisation first imported from a ZITADEL document with
 * confidential applications, exported again with `with_passwords`, imports into another instance
 * of this service, and from there into a third. Before issue 30 the import gave such applications
 * the hash of an unknown secret in hex, which the export carried and the next import refused whole
 * (`identityServiceClient.clientSecretHash` must be base64url). Each instance is a real server on
 * loopback; the secrets are presented to C's token and introspection endpoints over the network.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const ORG = '930100';
const PROJECT = '930101';
const WEB_APP = '930102';
const SILENT_APP = '930103';
const API_APP = '930104';

/** What ZITADEL's ExportData gives for an organisation with two confidential OIDC apps and an API app (no client ids or secrets). */
const zitadelDocument = (name: string) => ({
  orgs: [
    {
      orgId: ORG,
      org: { name },
      orgState: 'ORG_STATE_ACTIVE',
      projects: [{ projectId: PROJECT, project: { name: 'chain' } }],
      oidcApps: [
        {
          appId: WEB_APP,
          app: {
            projectId: PROJECT,
            name: 'web',
            redirectUris: ['https://rp.example.com/cb'],
            responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
            grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
            authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          },
        },
        // Confidential, and its secret never regenerated: it must still travel (and stay unusable).
        {
          appId: SILENT_APP,
          app: {
            projectId: PROJECT,
            name: 'silent',
            redirectUris: ['https://rp.example.com/cb2'],
            responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
            grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
            authMethodType: 'OIDC_AUTH_METHOD_TYPE_POST',
          },
        },
      ],
      apiApps: [{ appId: API_APP, app: { projectId: PROJECT, name: 'api', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' } }],
    },
  ],
});

describeEachStore('a move A → B → C with confidential applications from a ZITADEL document', (dialect) => {
  let a: OidcTestServer;
  let b: OidcTestServer;
  let c: OidcTestServer;
  beforeAll(async () => {
    [a, b, c] = await Promise.all([startOidcServer(dialect), startOidcServer(dialect), startOidcServer(dialect)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a, b, c].map((s) => s?.close()));
  });

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const form = (server: OidcTestServer, path: string, body: Record<string, string>, authorization?: string) =>
    fetch(server.issuer + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
      body: new URLSearchParams(body),
    });

  const move = async (from: OidcTestServer, to: OidcTestServer) => {
    const exported = await from.api('POST', '/admin/v1/export', { org_ids: [ORG], with_passwords: true, response_output: true, timeout: '1m' });
    expect(exported.status).toBe(200);
    for (const app of [...exported.body.orgs[0].oidcApps, ...exported.body.orgs[0].apiApps]) {
      expect(app.identityServiceClient.clientSecretHash, app.appId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    const imported = await to.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: exported.body });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.errors ?? []).toEqual([]);
    expect(imported.body.success.orgs[0]).toMatchObject({ oidcAppIds: [WEB_APP, SILENT_APP], apiAppIds: [API_APP] });
    return exported.body;
  };

  it("keeps every confidential client's credentials through A → B → C; the secrets set on A authenticate at C", async () => {
    const res = await a.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: zitadelDocument(`chain-${dialect}-${Date.now()}`) });
    expect(res.status).toBe(200);
    expect(res.body.errors ?? []).toEqual([]);
    // Stored as every client secret is: SHA-256 in unpadded base64url (the API's encoding).
    for (const appId of [WEB_APP, SILENT_APP, API_APP]) {
      expect((await a.t.store.read.oidcApps.get(PROJECT, appId))?.clientSecretHash, appId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    // As after a move from ZITADEL: the administrator gives two of them new secrets.
    const inOrg = { 'x-service-orgid': ORG };
    const web = await a.api('POST', `/management/v1/projects/${PROJECT}/apps/${WEB_APP}/oidc_config/_generate_client_secret`, {}, undefined, inOrg);
    expect(web.status, JSON.stringify(web.body)).toBe(200);
    const api = await a.api('POST', `/management/v1/projects/${PROJECT}/apps/${API_APP}/api_config/_generate_client_secret`, {}, undefined, inOrg);
    expect(api.status, JSON.stringify(api.body)).toBe(200);

    const first = await move(a, b);
    const second = await move(b, c);
    expect(second).toEqual(first);
    // Regenerating answers the secret only; the client ids are in the document.
    const clientIdOf = (appId: string) => [...first.orgs[0].oidcApps, ...first.orgs[0].apiApps].find((x: { appId: string }) => x.appId === appId).identityServiceClient.clientId;

    // At C, the API app's credentials authenticate at introspection (a wrong secret is invalid_client).
    const introspected = await form(c, '/oauth/v2/introspect', { token: 'not-a-token' }, basic(clientIdOf(API_APP), api.body.clientSecret));
    expect(introspected.status).toBe(200);
    expect(await introspected.json()).toEqual({ active: false });
    expect((await form(c, '/oauth/v2/introspect', { token: 'not-a-token' }, basic(clientIdOf(API_APP), `${api.body.clientSecret}x`))).status).toBe(401);

    // The web app's credentials authenticate at the token endpoint: the grant is what fails, not the client.
    const token = await form(
      c,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'https://rp.example.com/cb' },
      basic(clientIdOf(WEB_APP), web.body.clientSecret),
    );
    expect(await token.json()).toMatchObject({ error: 'invalid_grant' });
    const wrong = await form(c, '/oauth/v2/token', { grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'https://rp.example.com/cb' }, basic(clientIdOf(WEB_APP), 'wrong-secret'));
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
  }, 120_000);
});
