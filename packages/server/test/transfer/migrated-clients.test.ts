/**
 * A migration keeps relying parties working (issue 15.3 and its "done when"): an application
 * configured for ZITADEL — its scopes, its roles claim — signs in against the migrated
 * organisation on another instance with its old client id and secret, and reads its roles.
 * Documents without this service's extension get new credentials, as in ZITADEL.
 */
import { decodeJwt } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { Browser, loginThroughForm, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';
const Z_SCOPES = 'openid urn:zitadel:iam:org:project:id:zitadel:aud urn:zitadel:iam:org:project:roles';

describeEachStore('migrated OIDC clients keep their credentials', (dialect) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let orgId: string;
  let clientId: string;
  let clientSecret: string;
  let exported: { orgs: Record<string, any>[] };
  beforeAll(async () => {
    source = await startOidcServer(dialect);
    target = await startOidcServer(dialect);
    const org = await source.api('POST', '/management/v1/orgs', { name: `moving-${Date.now()}` });
    orgId = org.body.id;
    const inOrg = { 'x-service-orgid': orgId };
    const projectId = (await source.api('POST', '/management/v1/projects', { name: 'shop' }, undefined, inOrg)).body.id;
    expect((await source.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'buyer', displayName: 'Buyer' }, undefined, inOrg)).status).toBe(200);
    const app = await source.api(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      {
        name: 'web',
        redirectUris: [REDIRECT],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        devMode: true,
        accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
      },
      undefined,
      inOrg,
    );
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    clientId = app.body.clientId;
    clientSecret = app.body.clientSecret;
    const user = await source.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName: 'mover',
        profile: { firstName: 'Mo', lastName: 'Ver' },
        email: { email: 'mover@example.com', isEmailVerified: true },
        password: PASSWORD,
      },
      undefined,
      inOrg,
    );
    expect(user.status).toBe(200);
    expect((await source.api('POST', `/management/v1/users/${user.body.userId}/grants`, { projectId, roleKeys: ['buyer'] }, undefined, inOrg)).status).toBe(200);
    const res = await source.api('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, timeout: '1m', response_output: true });
    expect(res.status).toBe(200);
    exported = res.body;
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  async function signIn(server: OidcTestServer, id: string, secret: string) {
    const config = await oc.discovery(new URL(server.issuer), id, undefined, oc.ClientSecretBasic(secret), { execute: [oc.allowInsecureRequests] });
    const verifier = oc.randomPKCECodeVerifier();
    const state = oc.randomState();
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: Z_SCOPES, state, code_challenge: await oc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const result = await loginThroughForm(new Browser(), url.href, REDIRECT, 'mover', PASSWORD);
    expect(result.callback, result.page?.html.slice(0, 300)).toBeTruthy();
    return oc.authorizationCodeGrant(config, result.callback!, { pkceCodeVerifier: verifier, expectedState: state });
  }

  it("exports the client's id and secret hash as this service's extension", () => {
    const app = exported.orgs[0].oidcApps[0];
    expect(app.identityServiceClient.clientId).toBe(clientId);
    expect(app.identityServiceClient.clientSecretHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(exported)).not.toContain(clientSecret);
  });

  it('after the import the old client id and secret sign in, with ZITADEL scopes and roles claim', async () => {
    const res = await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: exported });
    expect(res.status).toBe(200);
    expect(res.body.errors ?? []).toEqual([]);
    const tokens = await signIn(target, clientId, clientSecret);
    const at = decodeJwt(tokens.access_token);
    expect(at['urn:zitadel:iam:org:project:roles']).toEqual({ buyer: { [orgId]: expect.any(String) } });
    // The API takes the token (authenticated: the user simply holds no management role there).
    expect((await target.api('GET', '/management/v1/orgs/me', undefined, tokens.access_token)).status).toBe(403);
  });

  it('a document without the extension gets new credentials, as in ZITADEL; a taken client id is reported', async () => {
    const third = await startOidcServer(dialect);
    try {
      const plain = structuredClone(exported);
      delete plain.orgs[0].oidcApps[0].identityServiceClient;
      const res = await third.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: plain });
      expect(res.status).toBe(200);
      const row = await third.t.store.read.oidcApps.get(plain.orgs[0].oidcApps[0].app.projectId, plain.orgs[0].oidcApps[0].appId);
      expect(row?.clientId).not.toBe(clientId);
    } finally {
      await third.close();
    }
    // The target already has that client id (from the import above): another organisation's app naming it is reported.
    const clash = structuredClone(exported);
    clash.orgs[0].orgId = '880001';
    clash.orgs[0].org.name = `clash-${Date.now()}`;
    clash.orgs[0].projects[0].projectId = '880002';
    clash.orgs[0].oidcApps[0].appId = '880003';
    clash.orgs[0].oidcApps[0].app.projectId = '880002';
    // Its domains are the first organisation's (verified there): left out, like its users.
    for (const key of ['humanUsers', 'machineUsers', 'projectRoles', 'userGrants', 'orgMembers', 'projectMembers', 'domains']) delete clash.orgs[0][key];
    const res = await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: clash });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([expect.objectContaining({ type: 'oidc_app', id: '880003', message: expect.stringContaining('IMPORT-cl1d0') })]);
  });
});
