/**
 * Applications and scripts written for ZITADEL (issue 15.15): its scopes
 * (`urn:zitadel:iam:org:project:id:zitadel:aud`, `urn:zitadel:iam:org:project:id:{projectId}:aud`,
 * `urn:zitadel:iam:org:project:roles`), its roles claim name and its `x-zitadel-orgid` header are
 * accepted as aliases of this service's, with a real OAuth client library over real HTTP.
 */
import { decodeJwt } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';
const Z_AUD = 'urn:zitadel:iam:org:project:id:zitadel:aud';
const Z_ROLES = 'urn:zitadel:iam:org:project:roles';

describeEachStore("ZITADEL's scopes, claims and header", (dialect) => {
  let s: OidcTestServer;
  let projectId: string;
  let otherProjectId: string;
  let config: oc.Configuration;
  let orgId: string;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    orgId = (await s.api('GET', '/management/v1/orgs/me')).body.org.id;
    projectId = (await s.api('POST', '/management/v1/projects', { name: 'shop' })).body.id;
    otherProjectId = (await s.api('POST', '/management/v1/projects', { name: 'billing' })).body.id;
    expect((await s.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' })).status).toBe(200);
    const app = await createOidcApp(s, projectId, {
      name: 'zitadel-spa',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const userId = await importHuman(s, 'zara', { password: PASSWORD });
    expect((await s.api('POST', '/admin/v1/members', { userId, roles: ['IAM_OWNER'] })).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['reader'] })).status).toBe(200);
  }, 120_000);
  afterAll(() => s?.close());

  it("a client asking ZITADEL's scopes gets the API audience and its roles under ZITADEL's claim name", async () => {
    const result = await signInThroughForm(config, REDIRECT, 'zara', PASSWORD, { scope: `openid profile ${Z_AUD} urn:zitadel:iam:org:project:id:${otherProjectId}:aud ${Z_ROLES}` }, { state: true });
    expect(result.callback, result.page?.html.slice(0, 300)).toBeTruthy();
    const tokens = await result.redeem();
    const at = decodeJwt(tokens.access_token);
    expect(at.aud).toEqual(expect.arrayContaining([projectId, otherProjectId, 'service']));
    expect(at[Z_ROLES]).toEqual({ reader: { [orgId]: expect.any(String) } });
    expect(at['urn:service:iam:org:project:roles']).toBeUndefined();

    // The API takes it (ZITADEL's audience scope stands for this API's).
    expect((await s.api('GET', '/management/v1/orgs/me', undefined, tokens.access_token)).status).toBe(200);
    const info = await (await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
    expect(info[Z_ROLES]).toEqual({ reader: { [orgId]: expect.any(String) } });
  });

  it('x-zitadel-orgid names the organisation a call acts on, as x-service-orgid does', async () => {
    const created = await s.api('POST', '/management/v1/orgs', { name: `zitadel-org-${Date.now()}` });
    expect(created.status).toBe(200);
    const viaZitadel = await s.api('GET', '/management/v1/orgs/me', undefined, undefined, { 'x-zitadel-orgid': created.body.id });
    expect(viaZitadel.status).toBe(200);
    expect(viaZitadel.body.org.id).toBe(created.body.id);
  });
});
