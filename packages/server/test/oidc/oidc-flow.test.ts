/**
 * The authorization server end to end, with a real OAuth client library (openid-client) against
 * the real server on loopback: authorization code + PKCE through the login form over HTTP,
 * tokens, the API accepting them (or not), roles in tokens/userinfo/introspection before and
 * after RemoveUserGrant, refresh, and opaque tokens.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OidcAppInput } from '../../src/domain/apps/oidc-config.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp as createApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const AUD = 'urn:service:iam:org:project:id:service:aud';
const ROLES = 'urn:service:iam:org:project:roles';
const PASSWORD = 'Secr3t-Passw0rd!';

const ZITADEL_ROLES = 'urn:zitadel:iam:org:project:roles';

interface Flow {
  config: oc.Configuration;
  clientId: string;
}

async function publicClient(s: OidcTestServer, clientId: string): Promise<Flow> {
  const config = await oc.discovery(new URL(s.issuer), clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
  return { config, clientId };
}

async function codeFlow(s: OidcTestServer, flow: Flow, loginName: string, password: string, scope: string) {
  return (await signInThroughForm(flow.config, REDIRECT, loginName, password, { scope }, { state: true })).redeem();
}

describeEachStore('OAuth / OIDC end to end', (dialect) => {
  let s: OidcTestServer;
  let projectId: string;
  let orgDomain: string;
  let spa: Flow; // public client, PKCE, JWT access tokens, refresh tokens
  let opaque: Flow; // public client, opaque (BEARER) access tokens
  let introspector: oc.Configuration; // confidential client allowed to introspect any token
  let ownerId: string;
  let grantId: string;

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const org = await s.api('GET', '/management/v1/orgs/me');
    orgDomain = org.body.org.primaryDomain;
    const project = await s.api('POST', '/management/v1/projects', { name: 'shop' });
    expect(project.status, JSON.stringify(project.body)).toBe(200);
    projectId = project.body.id;
    expect((await s.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' })).status).toBe(200);

    const base: OidcAppInput = {
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    };
    const spaApp = await createApp(s, projectId, { name: 'spa', ...base, accessTokenType: 'OIDC_TOKEN_TYPE_JWT' });
    expect(spaApp.clientSecret).toBeUndefined();
    const opaqueApp = await createApp(s, projectId, { name: 'opaque', ...base, accessTokenType: 'OIDC_TOKEN_TYPE_BEARER' });
    const api = await createApp(s, projectId, {
      name: 'api',
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      redirectUris: ['https://api.example.com/cb'],
    });
    expect(api.clientSecret).toMatch(/^[\w-]{43}$/);
    spa = await publicClient(s, spaApp.clientId);
    opaque = await publicClient(s, opaqueApp.clientId);
    introspector = await oc.discovery(new URL(s.issuer), api.clientId, undefined, oc.ClientSecretBasic(api.clientSecret!), { execute: [oc.allowInsecureRequests] });

    ownerId = await importHuman(s, 'alice', { password: PASSWORD });
    expect((await s.api('POST', '/admin/v1/members', { userId: ownerId, roles: ['IAM_OWNER'] })).status).toBe(200);
    await importHuman(s, 'bob', { password: PASSWORD });
    const grant = await s.api('POST', `/management/v1/users/${ownerId}/grants`, { projectId, roleKeys: ['reader'] });
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    grantId = grant.body.userGrantId;
  }, 120_000);
  afterAll(() => s?.close());

  it('publishes discovery with ZITADEL paths and the issuer, and a JWKS of public keys', async () => {
    const meta = spa.config.serverMetadata();
    expect(meta.issuer).toBe(s.issuer);
    expect(meta.authorization_endpoint).toBe(`${s.issuer}/oauth/v2/authorize`);
    expect(meta.token_endpoint).toBe(`${s.issuer}/oauth/v2/token`);
    expect(meta.jwks_uri).toBe(`${s.issuer}/oauth/v2/keys`);
    expect(meta.introspection_endpoint).toBe(`${s.issuer}/oauth/v2/introspect`);
    expect(meta.userinfo_endpoint).toBe(`${s.issuer}/oidc/v1/userinfo`);
    expect(meta.end_session_endpoint).toBe(`${s.issuer}/oidc/v1/end_session`);
    const jwks = (await (await fetch(meta.jwks_uri!)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) {
      expect(key.d).toBeUndefined();
      expect(key.alg).toBe('RS256');
    }
  });

  it('code + PKCE as IAM owner → a JWT access token the admin API accepts, with roles in token, userinfo and introspection', async () => {
    const tokens = await codeFlow(s, spa, 'alice', PASSWORD, `openid profile email offline_access ${ROLES} ${AUD}`);
    expect(tokens.refresh_token).toBeTruthy();
    const at = decodeJwt(tokens.access_token);
    expect(at.sub).toBe(ownerId);
    expect(at.aud).toEqual(expect.arrayContaining(['service', projectId, spa.clientId]));
    expect(at[ROLES]).toEqual({ reader: { [s.t.defaultOrgId]: orgDomain } });

    const put = await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { title: 'Verify', subject: 'Please verify' }, tokens.access_token);
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const info = await oc.fetchUserInfo(spa.config, tokens.access_token, ownerId);
    expect(info.preferred_username).toBe(`alice@${orgDomain}`);
    expect(info.email).toBe('alice@example.com');
    expect(info[ROLES]).toEqual({ reader: { [s.t.defaultOrgId]: orgDomain } });

    const intro = await oc.tokenIntrospection(introspector, tokens.access_token);
    expect(intro.active).toBe(true);
    expect(intro.sub).toBe(ownerId);
    expect(intro[ROLES]).toEqual({ reader: { [s.t.defaultOrgId]: orgDomain } });
  });

  it('an access token sent as `bearer` or `BEARER` (RFC 9110: the scheme is case-insensitive) works on the API and at userinfo', async () => {
    const tokens = await codeFlow(s, spa, 'alice', PASSWORD, `openid ${AUD}`);
    for (const scheme of ['bearer', 'BEARER']) {
      const authorization = `${scheme} ${tokens.access_token}`;
      const api = await fetch(`${s.issuer}/admin/v1/text/message/verifyemail/en`, { headers: { authorization } });
      expect(api.status, `${scheme}: ${await api.text()}`).toBe(200);
      const info = await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization } });
      expect(info.status, scheme).toBe(200);
      expect((await info.json()).sub).toBe(ownerId);
    }
  });

  it('a token without the audience scope is refused by the API (401) but works at userinfo', async () => {
    const tokens = await codeFlow(s, spa, 'alice', PASSWORD, 'openid profile');
    expect(decodeJwt(tokens.access_token).aud).not.toContain('service');
    const put = await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { title: 'x' }, tokens.access_token);
    expect(put.status).toBe(401);
    expect((await oc.fetchUserInfo(spa.config, tokens.access_token, ownerId)).sub).toBe(ownerId);
  });

  it('a user without the permission gets 403 with a valid audience token', async () => {
    const tokens = await codeFlow(s, spa, 'bob', PASSWORD, `openid ${AUD}`);
    const put = await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { title: 'x' }, tokens.access_token);
    expect(put.status).toBe(403);
  });

  it('opaque (BEARER) access tokens are accepted by the API and introspect with roles', async () => {
    const tokens = await codeFlow(s, opaque, `alice@${orgDomain}`, PASSWORD, `openid ${ROLES} ${AUD}`);
    expect(tokens.access_token.split('.')).toHaveLength(1);
    expect((await s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, tokens.access_token)).status).toBe(200);
    const intro = await oc.tokenIntrospection(introspector, tokens.access_token);
    expect(intro.active).toBe(true);
    expect(intro[ROLES]).toEqual({ reader: { [s.t.defaultOrgId]: orgDomain } });
    // The same audience array a JWT access token of this client and scope carries.
    expect(intro.aud).toEqual([projectId, opaque.clientId, 'service']);
    const jwt = await codeFlow(s, spa, 'alice', PASSWORD, `openid ${AUD}`);
    expect(decodeJwt(jwt.access_token).aud).toEqual([projectId, spa.clientId, 'service']);
    expect((await oc.tokenIntrospection(introspector, jwt.access_token)).aud).toEqual([projectId, spa.clientId, 'service']);
    expect((await oc.fetchUserInfo(opaque.config, tokens.access_token, ownerId))[ROLES]).toEqual({ reader: { [s.t.defaultOrgId]: orgDomain } });
  });

  it('a wrong password shows the form again with a clear message', async () => {
    const result = await signInThroughForm(spa.config, REDIRECT, 'alice', 'wrong', { scope: 'openid' });
    expect(result.callback).toBeUndefined();
    expect(result.page?.status).toBe(401);
    expect(result.page?.html).toContain('The login name or the password is wrong.');
    expect(result.page?.html).toContain('<form method="post"');
  });

  it('after RemoveUserGrant, new and refreshed tokens, userinfo and introspection carry no roles', async () => {
    const before = await codeFlow(s, spa, 'alice', PASSWORD, `openid offline_access ${ROLES} ${AUD}`);
    expect(decodeJwt(before.access_token)[ROLES]).toEqual({ reader: { [s.t.defaultOrgId]: orgDomain } });

    const removed = await s.api('DELETE', `/management/v1/users/${ownerId}/grants/${grantId}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);

    const refreshed = await oc.refreshTokenGrant(spa.config, before.refresh_token!);
    expect(decodeJwt(refreshed.access_token)[ROLES]).toEqual({});
    const fresh = await codeFlow(s, spa, 'alice', PASSWORD, `openid ${ROLES} ${AUD}`);
    expect(decodeJwt(fresh.access_token)[ROLES]).toEqual({});
    expect((await oc.fetchUserInfo(spa.config, fresh.access_token, ownerId))[ROLES]).toEqual({});
    expect((await oc.tokenIntrospection(introspector, fresh.access_token))[ROLES]).toEqual({});
    // The token still works for the API: removing a project grant does not touch IAM membership.
    expect((await s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, fresh.access_token)).status).toBe(200);
  });

  it("userinfo answers a change at once though it just answered (its inputs are kept): the profile, the domain policy's login name, the project's role assertion, the user's state", async () => {
    const carol = await importHuman(s, 'carol', { password: PASSWORD });
    const tokens = await codeFlow(s, spa, 'carol', PASSWORD, 'openid profile');
    const info = async () => {
      const res = await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      return { status: res.status, body: await res.json() };
    };
    expect((await info()).body).toMatchObject({ sub: carol, given_name: 'Test', preferred_username: `carol@${orgDomain}` });
    expect((await info()).body.given_name).toBe('Test');

    expect((await s.api('PUT', `/management/v1/users/${carol}/profile`, { firstName: 'Caroline', lastName: 'carol' })).status).toBe(200);
    expect((await info()).body.given_name).toBe('Caroline');

    const bare = { userLoginMustBeDomain: false, validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: false };
    expect((await s.api('POST', '/management/v1/policies/domain', bare)).status).toBe(200);
    try {
      expect((await info()).body.preferred_username).toBe('carol');
    } finally {
      expect((await s.api('DELETE', '/management/v1/policies/domain')).status).toBe(200);
    }
    expect((await info()).body.preferred_username).toBe(`carol@${orgDomain}`);

    const project = (await s.api('GET', `/management/v1/projects/${projectId}`)).body.project;
    const settings = { name: project.name, projectRoleCheck: project.projectRoleCheck, hasProjectCheck: project.hasProjectCheck, privateLabelingSetting: project.privateLabelingSetting };
    expect((await info()).body[ZITADEL_ROLES]).toBeUndefined();
    expect((await s.api('PUT', `/management/v1/projects/${projectId}`, { ...settings, projectRoleAssertion: true })).status).toBe(200);
    try {
      expect((await info()).body[ZITADEL_ROLES]).toEqual({});
    } finally {
      expect((await s.api('PUT', `/management/v1/projects/${projectId}`, { ...settings, projectRoleAssertion: false })).status).toBe(200);
    }

    expect((await s.api('POST', `/management/v1/users/${carol}/_deactivate`, {})).status).toBe(200);
    expect((await info()).status).toBe(401);
    expect((await s.api('POST', `/management/v1/users/${carol}/_reactivate`, {})).status).toBe(200);
    expect((await info()).body.sub).toBe(carol);
  });
});

describeEachStore('client credentials for machine users', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  });
  afterAll(() => s?.close());

  it('a machine user with a generated secret gets tokens the API accepts only with the audience scope', async () => {
    const machine = await s.api('POST', '/management/v1/users/machine', { userName: 'robot', name: 'Robot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
    expect(machine.status, JSON.stringify(machine.body)).toBe(200);
    const userId = machine.body.userId as string;
    expect((await s.api('POST', '/admin/v1/members', { userId, roles: ['IAM_OWNER_VIEWER'] })).status).toBe(200);
    const secret = await s.api('PUT', `/management/v1/users/${userId}/secret`);
    expect(secret.status).toBe(200);
    expect(secret.body.clientId).toBe('robot');

    const config = await oc.discovery(new URL(s.issuer), secret.body.clientId, undefined, oc.ClientSecretBasic(secret.body.clientSecret), { execute: [oc.allowInsecureRequests] });
    const withAud = await oc.clientCredentialsGrant(config, { scope: AUD });
    const claims = decodeJwt(withAud.access_token);
    expect(claims.sub).toBe(userId);
    expect(claims.aud).toContain('service');
    expect((await s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, withAud.access_token)).status).toBe(200);
    // IAM_OWNER_VIEWER may read but not write.
    expect((await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { title: 'x' }, withAud.access_token)).status).toBe(403);

    const withoutAud = await oc.clientCredentialsGrant(config, {});
    expect((await s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, withoutAud.access_token)).status).toBe(401);

    await expect(
      oc.clientCredentialsGrant(await oc.discovery(new URL(s.issuer), 'robot', undefined, oc.ClientSecretBasic('wrong'), { execute: [oc.allowInsecureRequests] }), { scope: AUD }),
    ).rejects.toThrow();
    expect((await s.api('DELETE', `/management/v1/users/${userId}/secret`)).status).toBe(200);
    await expect(oc.clientCredentialsGrant(config, { scope: AUD })).rejects.toThrow();
  });

  it('asked for openid, client credentials also answer an ID token for the machine user, as ZITADEL does; without it, none', async () => {
    const machine = await s.api('POST', '/management/v1/users/machine', { userName: 'id-robot', name: 'ID Robot', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' });
    expect(machine.status, JSON.stringify(machine.body)).toBe(200);
    const userId = machine.body.userId as string;
    const secret = await s.api('PUT', `/management/v1/users/${userId}/secret`);
    const config = await oc.discovery(new URL(s.issuer), secret.body.clientId, undefined, oc.ClientSecretBasic(secret.body.clientSecret), { execute: [oc.allowInsecureRequests] });

    // openid-client checks an ID token it receives (issuer, audience = its client id, times) before answering.
    const tokens = await oc.clientCredentialsGrant(config, { scope: `openid profile ${AUD}` });
    expect(tokens.scope).toBe(`openid profile ${AUD}`);
    expect(tokens.id_token, 'an ID token with openid').toEqual(expect.any(String));
    const jwks = createRemoteJWKSet(new URL(`${s.issuer}/oauth/v2/keys`));
    const { payload } = await jwtVerify(tokens.id_token!, jwks, { issuer: s.issuer, audience: 'id-robot' });
    // As ZITADEL's: no profile in a machine's ID token (its grant asserts no userinfo into it).
    expect(payload).toMatchObject({ sub: userId, aud: 'id-robot' });
    expect(payload.name).toBeUndefined();
    // at_hash binds it to the (opaque) access token beside it: the left half of its SHA-256 (RS256).
    expect(payload.at_hash).toBe(createHash('sha256').update(tokens.access_token).digest().subarray(0, 16).toString('base64url'));
    expect(tokens.access_token.split('.')).toHaveLength(1);
    expect((await s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, tokens.access_token)).status).toBe(403);

    const plain = await oc.clientCredentialsGrant(config, { scope: AUD });
    expect(plain.id_token).toBeUndefined();
  });
});

describe('OIDC server keys', () => {
  it('every process on one store signs with the same key', async () => {
    const s = await startOidcServer('sqlite');
    try {
      const { createRequestHandler } = await import('../../src/server.js');
      const second = await createRequestHandler({ store: s.t.store, instanceId: s.t.instanceId, issuer: s.issuer, lockout: { maxPasswordAttempts: 0 } });
      const first = await (await fetch(`${s.issuer}/oauth/v2/keys`)).json();
      const res = await second.app.request('/openapi.json');
      expect(res.status).toBe(200);
      const { loadOrCreateKeys, publicJwks } = await import('../../src/oidc/keys.js');
      expect(publicJwks(await loadOrCreateKeys(s.t.store, processSecretBox()))).toEqual(first);
      second.stop();
    } finally {
      await s.close();
    }
  });

  it('a running process follows a rotation: tokens of the new key are accepted at once, it signs with it, and expired keys go', async () => {
    const s = await startOidcServer('sqlite');
    const { createRequestHandler } = await import('../../src/server.js');
    const { rotateKeys } = await import('../../src/oidc/keys.js');
    const others: { stop: () => void }[] = [];
    try {
      const machine = await s.api('POST', '/management/v1/users/machine', { userName: 'rotor', name: 'Rotor', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
      await s.api('POST', '/admin/v1/members', { userId: machine.body.userId, roles: ['IAM_OWNER_VIEWER'] });
      const secret = await s.api('PUT', `/management/v1/users/${machine.body.userId}/secret`);
      const token = async (handler = s.service.handler) => {
        // The token endpoint of `handler`, reached through the test server (same issuer).
        s.server.removeAllListeners('request');
        s.server.on('request', handler);
        try {
          const config = await oc.discovery(new URL(s.issuer), 'rotor', undefined, oc.ClientSecretBasic(secret.body.clientSecret), { execute: [oc.allowInsecureRequests] });
          return (await oc.clientCredentialsGrant(config, { scope: AUD })).access_token;
        } finally {
          s.server.removeAllListeners('request');
          s.server.on('request', s.service.handler);
        }
      };
      const kids = async () => ((await (await fetch(`${s.issuer}/oauth/v2/keys`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      const call = (accessToken: string) => s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, accessToken);

      const old = await token();
      const oldKid = decodeProtectedHeader(old).kid;
      // Rotated from outside (`npm run keys:rotate`); a process started afterwards signs with the new key …
      const { kid } = await rotateKeys(s.t.store, processSecretBox());
      const second = await createRequestHandler({ store: s.t.store, instanceId: s.t.instanceId, issuer: s.issuer, lockout: { maxPasswordAttempts: 0 } });
      others.push(second);
      const fromSecond = await token(second.handler);
      expect(decodeProtectedHeader(fromSecond).kid).toBe(kid);
      // … and the running one, which has not looked yet, accepts its token (the unknown key makes it look) …
      expect(await kids()).toEqual([oldKid]);
      expect((await call(fromSecond)).status).toBe(200);
      // … now publishes both, signs with the new key, and still accepts tokens of the old one.
      expect(await kids()).toEqual([kid, oldKid]);
      expect(decodeProtectedHeader(await token()).kid).toBe(kid);
      expect((await call(old)).status).toBe(200);

      // Rotating with no overlap retires the older keys at once: gone from the key set at the next look, their tokens refused.
      const third = await rotateKeys(s.t.store, processSecretBox(), 0);
      expect(await s.service.reloadKeys()).toBe(true);
      expect(await kids()).toEqual([third.kid]);
      expect((await call(old)).status).toBe(401);
      expect((await call(fromSecond)).status).toBe(401);
      expect(await s.service.reloadKeys()).toBe(false);

      // Without any token asking, the periodic look finds a rotation too.
      const watching = await createRequestHandler({ store: s.t.store, instanceId: s.t.instanceId, issuer: s.issuer, lockout: { maxPasswordAttempts: 0 }, keyCheckIntervalMs: 20 });
      others.push(watching);
      const before = watching.provider;
      await rotateKeys(s.t.store, processSecretBox());
      await vi.waitFor(() => expect(watching.provider).not.toBe(before), { timeout: 2000, interval: 20 });
    } finally {
      for (const other of others) other.stop();
      await s.close();
    }
  });
});
