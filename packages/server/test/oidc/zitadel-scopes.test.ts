/**
 * ZITADEL's reserved scopes (issue 29) with a real relying party (openid-client 6) against the
 * real server on loopback, on both stores: each scope's claims in the ID token, userinfo, access
 * tokens (JWT and opaque) and introspection, on the code flow, refresh and client credentials;
 * the org scopes refusing another organisation's user; a role-key scope limiting the roles.
 */
import { decodeJwt } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OidcAppInput } from '../../src/domain/apps/oidc-config.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';
const Z_ROLES = 'urn:zitadel:iam:org:project:roles';
const METADATA = 'urn:zitadel:iam:user:metadata';
const OWNER = 'urn:zitadel:iam:user:resourceowner';
const ORG_ID = 'urn:zitadel:iam:org:id';
const DOMAIN = 'urn:zitadel:iam:org:domain:primary';
const PROJECTS_ROLES = 'urn:zitadel:iam:org:projects:roles';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const options = { execute: [oc.allowInsecureRequests] };

describeEachStore("ZITADEL's reserved scopes and claims", (dialect) => {
  let s: OidcTestServer;
  let orgId: string;
  let orgName: string;
  let orgDomain: string;
  let otherOrgId: string;
  let shop: string;
  let billing: string;
  let aliceId: string;
  let jwtApp: oc.Configuration;
  let opaqueApp: oc.Configuration;
  let introspector: oc.Configuration;

  async function signIn(config: oc.Configuration, loginName: string, scope: string) {
    const result = await signInThroughForm(config, REDIRECT, loginName, PASSWORD, { scope }, { state: true });
    if (!result.callback) return { refused: result.page! };
    return { tokens: await result.redeem() };
  }
  async function tokensFor(config: oc.Configuration, loginName: string, scope: string) {
    const { tokens, refused } = await signIn(config, loginName, scope);
    expect(tokens, refused?.html.slice(0, 400)).toBeTruthy();
    return tokens!;
  }
  const userinfo = async (token: string) => (await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).json();
  const introspect = (token: string) => oc.tokenIntrospection(introspector, token);

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const org = (await s.api('GET', '/management/v1/orgs/me')).body.org;
    orgId = org.id;
    orgName = org.name;
    orgDomain = org.primaryDomain;
    shop = (await s.api('POST', '/management/v1/projects', { name: 'shop' })).body.id;
    billing = (await s.api('POST', '/management/v1/projects', { name: 'billing' })).body.id;
    for (const [project, key] of [
      [shop, 'reader'],
      [shop, 'writer'],
      [billing, 'payer'],
    ]) {
      expect((await s.api('POST', `/management/v1/projects/${project}/roles`, { roleKey: key, displayName: key })).status).toBe(200);
    }
    const base: OidcAppInput & { name: string } = {
      name: 'jwt',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
      idTokenRoleAssertion: true,
    };
    const jwt = await createOidcApp(s, shop, base);
    const opaque = await createOidcApp(s, shop, { ...base, name: 'opaque', accessTokenType: 'OIDC_TOKEN_TYPE_BEARER' });
    const api = await createOidcApp(s, shop, {
      name: 'api',
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      redirectUris: ['https://api.example.com/cb'],
    });
    jwtApp = await oc.discovery(new URL(s.issuer), jwt.clientId, undefined, oc.None(), options);
    opaqueApp = await oc.discovery(new URL(s.issuer), opaque.clientId, undefined, oc.None(), options);
    introspector = await oc.discovery(new URL(s.issuer), api.clientId, undefined, oc.ClientSecretBasic(api.clientSecret!), options);

    const human = (userName: string, headers: Record<string, string> = {}) =>
      s.api(
        'POST',
        '/management/v1/users/human/_import',
        { userName, profile: { firstName: 'T', lastName: userName }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: PASSWORD },
        undefined,
        headers,
      );
    aliceId = (await human('alice')).body.userId;
    expect((await s.api('POST', `/management/v1/users/${aliceId}/grants`, { projectId: shop, roleKeys: ['reader', 'writer'] })).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${aliceId}/grants`, { projectId: billing, roleKeys: ['payer'] })).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${aliceId}/metadata/plan`, { value: b64('plan~~~') })).status).toBe(200);

    otherOrgId = (await s.api('POST', '/management/v1/orgs', { name: `other-${Date.now()}` })).body.id;
    expect((await human('olga', { 'x-service-orgid': otherOrgId })).status).toBe(200);
  }, 120_000);
  afterAll(() => s?.close());

  const shopRoles = () => ({ reader: { [orgId]: orgDomain }, writer: { [orgId]: orgDomain } });
  const ownerClaims = () => ({ [`${OWNER}:id`]: orgId, [`${OWNER}:name`]: orgName, [`${OWNER}:primary_domain`]: orgDomain });

  it("metadata, resource owner, org id and all projects' roles: in the ID token, userinfo, the JWT access token, its introspection and after refresh", async () => {
    const scope = `openid offline_access ${METADATA} ${OWNER} ${ORG_ID}:${orgId} ${PROJECTS_ROLES} urn:zitadel:iam:org:project:id:${billing}:aud`;
    const tokens = await tokensFor(jwtApp, 'alice', scope);
    const expected = {
      // ZITADEL's encoding of metadata values: base64url without padding ('plan~~~' is '+' and '=' in standard base64).
      [METADATA]: { plan: Buffer.from('plan~~~').toString('base64url') },
      ...ownerClaims(),
      [ORG_ID]: orgId,
      // The app's project under the roles claim; every project of the audience under its own claim.
      [Z_ROLES]: shopRoles(),
      [`urn:zitadel:iam:org:project:${shop}:roles`]: shopRoles(),
      [`urn:zitadel:iam:org:project:${billing}:roles`]: { payer: { [orgId]: orgDomain } },
    };
    expect(Buffer.from('plan~~~').toString('base64')).toBe('cGxhbn5+fg==');
    expect(decodeJwt(tokens.id_token!)).toMatchObject(expected);
    expect(decodeJwt(tokens.access_token)).toMatchObject(expected);
    expect(await userinfo(tokens.access_token)).toMatchObject(expected);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, ...expected });

    const refreshed = await oc.refreshTokenGrant(jwtApp, tokens.refresh_token!);
    expect(decodeJwt(refreshed.access_token)).toMatchObject(expected);
    expect(decodeJwt(refreshed.id_token!)).toMatchObject(expected);
  });

  it('opaque access tokens answer the same claims at introspection; nothing is asserted that no scope asked for', async () => {
    const tokens = await tokensFor(opaqueApp, 'alice', `openid ${METADATA} ${OWNER}`);
    expect(tokens.access_token).not.toMatch(/^ey/);
    const intro = await introspect(tokens.access_token);
    expect(intro).toMatchObject({ active: true, sub: aliceId, [METADATA]: { plan: Buffer.from('plan~~~').toString('base64url') }, ...ownerClaims() });
    expect(await userinfo(tokens.access_token)).toMatchObject({ [METADATA]: expect.any(Object), ...ownerClaims() });

    const bare = await tokensFor(opaqueApp, 'alice', 'openid');
    const plain = await introspect(bare.access_token);
    expect(Object.keys(plain).filter((k) => k.startsWith('urn:'))).toEqual([]);
    // The app asserts roles in the ID token (idTokenRoleAssertion), under this service's claim; nothing else reserved.
    expect(Object.keys(decodeJwt(bare.id_token!)).filter((k) => k.startsWith('urn:'))).toEqual(['urn:service:iam:org:project:roles']);
  });

  it('a role-key scope limits the roles to the keys asked for, in every token', async () => {
    const tokens = await tokensFor(opaqueApp, 'alice', `openid urn:zitadel:iam:org:project:role:reader urn:zitadel:iam:org:project:role:none`);
    const onlyReader = { [Z_ROLES]: { reader: { [orgId]: orgDomain } }, [`urn:zitadel:iam:org:project:${shop}:roles`]: { reader: { [orgId]: orgDomain } } };
    const id = decodeJwt(tokens.id_token!);
    expect(id).toMatchObject(onlyReader);
    expect(id[Z_ROLES] as object).not.toHaveProperty('writer');
    const info = await userinfo(tokens.access_token);
    expect(info[Z_ROLES]).toEqual(onlyReader[Z_ROLES]);
    expect((await introspect(tokens.access_token))[Z_ROLES]).toEqual(onlyReader[Z_ROLES]);
    // Without a role-key scope the roles scope answers every role of the project.
    const all = await tokensFor(opaqueApp, 'alice', `openid ${Z_ROLES}`);
    expect((await userinfo(all.access_token))[Z_ROLES]).toEqual(shopRoles());
  });

  it('an org scope refuses a user of another organisation with a page; its own users get the org claims', async () => {
    for (const restriction of [`${ORG_ID}:${orgId}`, `${DOMAIN}:${orgDomain}`]) {
      const { refused } = await signIn(jwtApp, 'olga', `openid ${restriction}`);
      expect(refused?.status, restriction).toBe(403);
      expect(refused!.html).toContain('Not an account of this organisation');
      expect(refused!.html).toContain(orgName);
    }
    // An organisation that does not exist admits nobody.
    expect((await signIn(jwtApp, 'alice', `openid ${ORG_ID}:404404`)).refused?.status).toBe(403);

    const tokens = await tokensFor(jwtApp, 'alice', `openid ${DOMAIN}:${orgDomain}`);
    expect(decodeJwt(tokens.id_token!)[DOMAIN]).toBe(orgDomain);
    expect(decodeJwt(tokens.access_token)[DOMAIN]).toBe(orgDomain);
    expect((await userinfo(tokens.access_token))[DOMAIN]).toBe(orgDomain);
  });

  it('client credentials: the machine user gets the reserved claims; an org scope naming another organisation is dropped, as ZITADEL drops it', async () => {
    const machine = await s.api('POST', '/management/v1/users/machine', { userName: 'robot', name: 'Robot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
    const robotId = machine.body.userId as string;
    expect((await s.api('POST', `/management/v1/users/${robotId}/grants`, { projectId: billing, roleKeys: ['payer'] })).status).toBe(200);
    const secret = (await s.api('PUT', `/management/v1/users/${robotId}/secret`)).body;
    const robot = await oc.discovery(new URL(s.issuer), secret.clientId, undefined, oc.ClientSecretBasic(secret.clientSecret), options);

    const own = await oc.clientCredentialsGrant(robot, { scope: `${OWNER} ${ORG_ID}:${orgId} ${PROJECTS_ROLES} urn:zitadel:iam:org:project:id:${billing}:aud` });
    const claims = decodeJwt(own.access_token);
    expect(claims).toMatchObject({ sub: robotId, ...ownerClaims(), [ORG_ID]: orgId, [`urn:zitadel:iam:org:project:${billing}:roles`]: { payer: { [orgId]: orgDomain } } });
    expect(String(claims.scope).split(' ')).toContain(`${ORG_ID}:${orgId}`);
    expect(await introspect(own.access_token)).toMatchObject({ active: true, [ORG_ID]: orgId });

    const other = await oc.clientCredentialsGrant(robot, { scope: `${OWNER} ${ORG_ID}:${otherOrgId}` });
    const dropped = decodeJwt(other.access_token);
    expect(String(dropped.scope).split(' ')).not.toContain(`${ORG_ID}:${otherOrgId}`);
    expect(dropped[ORG_ID]).toBeUndefined();
    expect(dropped[`${OWNER}:id`]).toBe(orgId);
  });
});
