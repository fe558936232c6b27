/**
 * Introspection as ZITADEL answers it, driven by passport-zitadel 1.2.3 unchanged: a resource
 * server (passport + node:http on 127.0.0.1) authenticates the bearer tokens it receives with
 * ZitadelIntrospectionStrategy, once with an API application's key file (its assertion has no jti
 * and is reused for an hour) and once with the application's client secret. A personal access
 * token and a client-credentials token are active; an unknown, a removed and a revoked token are
 * not. Client assertions are also sent by hand: without jti and repeated, with `aud` the issuer
 * with a trailing slash or the endpoint's URL (accepted); expired, signed by another key, of a
 * removed key, too old (refused, 401 invalid_client).
 */

import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { SignJWT } from 'jose';
import passport from 'passport';
import { ZitadelIntrospectionStrategy } from 'passport-zitadel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The key file of AddAppKey, which passport-zitadel takes as its `profile`. */
interface AppKeyFile {
  type: 'application';
  keyId: string;
  key: string;
  appId: string;
  clientId: string;
}

type Authorization = ConstructorParameters<typeof ZitadelIntrospectionStrategy>[0]['authorization'];

/** What the resource server answers: the introspection result, passport's failure, or the error the strategy raised. */
type Seen = { status: number; body: any };

/**
 * A resource server guarding GET / with passport-zitadel: 200 with what the introspection
 * answered, 401 when the strategy fails the request, 502 with the HTTP status and body of the
 * authorization server's answer when the introspection call itself failed.
 */
async function startResourceServer(authority: string, authorization: Authorization) {
  const gate = new passport.Passport();
  gate.use(new ZitadelIntrospectionStrategy({ authority, authorization }));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    gate.authenticate('zitadel-introspection', { session: false }, (err: any, user: unknown, info: unknown) => {
      if (err) return answer(502, { status: err.response?.status, body: err.response?.data, message: String(err.message ?? err) });
      if (!user) return answer(401, info ?? {});
      return answer(200, user);
    })(req, res, (err?: unknown) => answer(500, { message: String(err) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    call: async (token: string): Promise<Seen> => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, body: await res.json() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeEachStore('introspection as ZITADEL answers it', (dialect) => {
  let s: OidcTestServer;
  let projectId: string;
  let keyApp: { appId: string; clientId: string };
  let keyFile: AppKeyFile;
  let basicApp: { appId: string; clientId: string; clientSecret: string };
  let robot: string;
  let pat: string;
  let patId: string;
  let ccToken: string;
  /** The robot's token from the JWT-profile grant, as @zitadel/node's ServiceAccount gets it with a machine key file. */
  let jwtProfileToken: string;
  let secret: { clientId: string; clientSecret: string };
  const servers: { close: () => Promise<void> }[] = [];

  const basic = (id: string, password: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(password)}`).toString('base64')}`;
  const form = async (path: string, params: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.issuer}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const addKey = async (appId: string): Promise<AppKeyFile> => {
    const res = await s.api('POST', `/management/v1/projects/${projectId}/apps/${appId}/keys`, { type: 'KEY_TYPE_JSON' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return JSON.parse(Buffer.from(res.body.keyDetails, 'base64').toString('utf8'));
  };
  const clientCredentials = async (scope: string) => {
    const res = await form('/oauth/v2/token', { grant_type: 'client_credentials', scope }, { authorization: basic(secret.clientId, secret.clientSecret) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.access_token as string;
  };
  /** An assertion as passport-zitadel and @zitadel/node make it (no jti), with what a case changes. */
  const assertion = (file: AppKeyFile, change: { aud?: string; iat?: number; exp?: number; key?: KeyObject } = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: file.keyId })
      .setIssuer(file.clientId)
      .setSubject(file.clientId)
      .setAudience(change.aud ?? s.issuer)
      .setIssuedAt(change.iat ?? now)
      .setExpirationTime(change.exp ?? now + 3600)
      .sign(change.key ?? createPrivateKey(file.key));
  };
  const introspectWith = (signed: string, token = pat) => form('/oauth/v2/introspect', { token, client_assertion_type: JWT_BEARER, client_assertion: signed });
  const resourceServer = async (authority: string, authorization: Authorization) => {
    const rs = await startResourceServer(authority, authorization);
    servers.push(rs);
    return rs;
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    projectId = (await s.api('POST', '/management/v1/projects', { name: 'orders' })).body.id;
    expect((await s.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' })).status).toBe(200);
    keyApp = (await s.api('POST', `/management/v1/projects/${projectId}/apps/api`, { name: 'orders-api', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).body;
    keyFile = await addKey(keyApp.appId);
    basicApp = (await s.api('POST', `/management/v1/projects/${projectId}/apps/api`, { name: 'orders-api-basic' })).body;
    expect(basicApp.clientSecret).toEqual(expect.any(String));

    robot = (await s.api('POST', '/management/v1/users/machine', { userName: 'orders-robot', name: 'Orders Robot' })).body.userId;
    expect((await s.api('POST', `/management/v1/users/${robot}/grants`, { projectId, roleKeys: ['reader'] })).status).toBe(200);
    const added = (await s.api('POST', `/management/v1/users/${robot}/pats`, {})).body;
    pat = added.token;
    patId = added.tokenId;
    secret = (await s.api('PUT', `/management/v1/users/${robot}/secret`)).body;
    ccToken = await clientCredentials(`openid urn:zitadel:iam:org:project:id:${projectId}:aud`);
    const machineKey = (await s.api('POST', `/management/v1/users/${robot}/keys`, { type: 'KEY_TYPE_JSON' })).body;
    const account = ServiceAccount.fromJson(JSON.parse(Buffer.from(machineKey.keyDetails, 'base64').toString('utf8')));
    jwtProfileToken = await account.authenticate(s.issuer, { projectAudiences: [projectId] });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((rs) => rs.close()));
    await s?.close();
  });

  describe.each([
    ['a key file', () => ({ type: 'jwt-profile', profile: keyFile }) as Authorization],
    ['basic authentication', () => ({ type: 'basic', clientId: basicApp.clientId, clientSecret: basicApp.clientSecret }) as Authorization],
  ])('passport-zitadel with %s', (_name, authorization) => {
    let rs: Awaited<ReturnType<typeof startResourceServer>>;
    let caller: string;
    beforeAll(async () => {
      rs = await resourceServer(s.issuer, authorization());
      const auth = authorization();
      caller = auth.type === 'basic' ? auth.clientId : auth.profile.clientId;
    });

    it('a personal access token is active, with its user, scope, expiry and the caller as audience', async () => {
      const seen = await rs.call(pat);
      expect(seen.status, JSON.stringify(seen.body)).toBe(200);
      const now = Date.now() / 1000;
      expect(seen.body).toMatchObject({
        active: true,
        token_type: 'Bearer',
        sub: robot,
        username: expect.stringMatching(/^orders-robot@/),
        preferred_username: expect.stringMatching(/^orders-robot@/),
        name: 'Orders Robot',
        scope: 'openid profile urn:zitadel:iam:user:metadata urn:zitadel:iam:user:resourceowner urn:zitadel:iam:org:project:role:reader',
        aud: [caller, projectId],
        iss: s.issuer,
        jti: patId,
        exp: Date.parse('9999-12-31T23:59:59Z') / 1000,
        'urn:zitadel:iam:org:project:roles': { reader: expect.any(Object) },
        [`urn:zitadel:iam:org:project:${projectId}:roles`]: { reader: expect.any(Object) },
      });
      expect(seen.body.iat).toBeGreaterThan(now - 120);
      expect(seen.body.iat).toBeLessThanOrEqual(now + 1);
      expect(seen.body).not.toHaveProperty('client_id');
    });

    it('a client-credentials token is active; again with the same client (its assertion reused)', async () => {
      for (let i = 0; i < 2; i++) {
        const seen = await rs.call(ccToken);
        expect(seen.status, JSON.stringify(seen.body)).toBe(200);
        expect(seen.body).toMatchObject({ active: true, sub: robot, client_id: secret.clientId, aud: expect.arrayContaining([projectId]) });
      }
    });

    it("a JWT-profile token (@zitadel/node's ServiceAccount with a machine key file) is active with its user", async () => {
      const seen = await rs.call(jwtProfileToken);
      expect(seen.status, JSON.stringify(seen.body)).toBe(200);
      expect(seen.body).toMatchObject({ active: true, sub: robot, aud: expect.arrayContaining([projectId]) });
    });

    it('an unknown token is not active', async () => {
      expect(await rs.call('x'.repeat(43))).toEqual({ status: 401, body: { message: 'Token is not active' } });
      expect(await rs.call('not.a.jwt')).toEqual({ status: 401, body: { message: 'Token is not active' } });
    });
  });

  it('a removed personal access token and a revoked client-credentials token are not active', async () => {
    const rs = await resourceServer(s.issuer, { type: 'jwt-profile', profile: keyFile });
    const extra = (await s.api('POST', `/management/v1/users/${robot}/pats`, {})).body;
    const revocable = await clientCredentials('openid');
    expect((await rs.call(extra.token)).status).toBe(200);
    expect((await rs.call(revocable)).status).toBe(200);

    expect((await s.api('DELETE', `/management/v1/users/${robot}/pats/${extra.tokenId}`)).status).toBe(200);
    const revoked = await form('/oauth/v2/revoke', { token: revocable }, { authorization: basic(secret.clientId, secret.clientSecret) });
    expect(revoked.status).toBe(200);

    expect(await rs.call(extra.token)).toEqual({ status: 401, body: { message: 'Token is not active' } });
    expect(await rs.call(revocable)).toEqual({ status: 401, body: { message: 'Token is not active' } });
  });

  it("a locked user's personal access token is not active; unlocked, it is again", async () => {
    const other = (await s.api('POST', '/management/v1/users/machine', { userName: 'locked-robot', name: 'Locked' })).body.userId;
    const token = (await s.api('POST', `/management/v1/users/${other}/pats`, {})).body.token;
    expect((await introspectWith(await assertion(keyFile), token)).body.active).toBe(true);
    expect((await s.api('POST', `/management/v1/users/${other}/_lock`, {})).status).toBe(200);
    expect((await introspectWith(await assertion(keyFile), token)).body).toEqual({ active: false });
    expect((await s.api('POST', `/management/v1/users/${other}/_unlock`, {})).status).toBe(200);
    expect((await introspectWith(await assertion(keyFile), token)).body.active).toBe(true);
  });

  it("a locked user's JWT access token and opaque token go inactive at once, though just introspected (their answers are kept); unlocked, active again", async () => {
    const tokens: string[] = [];
    let opaqueClient = '';
    for (const accessTokenType of ['ACCESS_TOKEN_TYPE_JWT', 'ACCESS_TOKEN_TYPE_BEARER']) {
      const user = (await s.api('POST', '/management/v1/users/machine', { userName: `kept-${accessTokenType}`, name: 'Kept', accessTokenType })).body.userId;
      const own = (await s.api('PUT', `/management/v1/users/${user}/secret`)).body;
      const res = await form('/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, { authorization: basic(own.clientId, own.clientSecret) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      tokens.push(user, res.body.access_token);
      opaqueClient = basic(own.clientId, own.clientSecret);
    }
    const [jwtUser, jwt, , opaque] = tokens;
    expect(jwt.split('.')).toHaveLength(3);
    expect(opaque).not.toContain('.');
    const introspect = (token: string) => form('/oauth/v2/introspect', { token }, { authorization: basic(basicApp.clientId, basicApp.clientSecret) });
    for (const token of [jwt, jwt, opaque, opaque]) expect((await introspect(token)).body.active).toBe(true);
    // Locking changes the user (the JWT's answer depends on it); revoking (by its client) deletes the opaque token.
    expect((await s.api('POST', `/management/v1/users/${jwtUser}/_lock`, {})).status).toBe(200);
    expect(await form('/oauth/v2/revoke', { token: opaque }, { authorization: opaqueClient })).toMatchObject({ status: 200 });
    expect((await introspect(jwt)).body).toEqual({ active: false });
    expect((await introspect(opaque)).body).toEqual({ active: false });
    expect((await s.api('POST', `/management/v1/users/${jwtUser}/_unlock`, {})).status).toBe(200);
    expect((await introspect(jwt)).body).toMatchObject({ active: true, sub: jwtUser });
  });

  it("passport-zitadel with the issuer written with a trailing slash (its assertion's aud)", async () => {
    const rs = await resourceServer(`${s.issuer}/`, { type: 'jwt-profile', profile: keyFile });
    expect((await rs.call(pat)).body.active).toBe(true);
  });

  it('an assertion without jti is good again until it expires; aud may be the issuer with a slash or the endpoint', async () => {
    const reused = await assertion(keyFile);
    for (let i = 0; i < 3; i++) expect(await introspectWith(reused)).toMatchObject({ status: 200, body: { active: true } });
    expect(await introspectWith(await assertion(keyFile, { aud: `${s.issuer}/` }))).toMatchObject({ status: 200, body: { active: true } });
    expect(await introspectWith(await assertion(keyFile, { aud: `${s.issuer}/oauth/v2/introspect` }))).toMatchObject({ status: 200, body: { active: true } });
    // The same assertion authenticates at the revocation endpoint too (one code path for every endpoint):
    // an unknown token is answered 200 to an authenticated client (RFC 7009), 401 otherwise.
    const revoke = (signed: string) => form('/oauth/v2/revoke', { token: 'unknown', client_assertion_type: JWT_BEARER, client_assertion: signed });
    expect((await revoke(reused)).status).toBe(200);
    expect((await revoke(reused)).status).toBe(200);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await revoke(await assertion(keyFile, { key: stranger }))).status).toBe(401);
  });

  it('refused as before, 401 invalid_client: expired, another key, a removed key, a foreign audience, too old', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } };
    expect(await introspectWith(await assertion(keyFile, { iat: now - 600, exp: now - 60 }))).toEqual(refused);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(await introspectWith(await assertion(keyFile, { key: stranger }))).toEqual(refused);
    expect(await introspectWith(await assertion(keyFile, { aud: 'https://elsewhere.example' }))).toEqual(refused);
    expect(await introspectWith(await assertion(keyFile, { aud: `${s.issuer}//` }))).toEqual(refused);
    // ZITADEL's limit: an assertion serves an hour after it was issued, whatever its exp says.
    expect(await introspectWith(await assertion(keyFile, { iat: now - 3700, exp: now + 3600 }))).toEqual(refused);
    expect(await introspectWith(await assertion(keyFile, { iat: now + 600 }))).toEqual(refused);

    // A removed key: refused at the next request, also an assertion that was accepted before, and through passport-zitadel.
    const spare = await addKey(keyApp.appId);
    const signed = await assertion(spare);
    const rs = await resourceServer(s.issuer, { type: 'jwt-profile', profile: spare });
    expect((await rs.call(pat)).status).toBe(200);
    expect((await introspectWith(signed)).status).toBe(200);
    expect((await s.api('DELETE', `/management/v1/projects/${projectId}/apps/${keyApp.appId}/keys/${spare.keyId}`)).status).toBe(200);
    expect(await introspectWith(signed)).toEqual(refused);
    expect(await rs.call(pat)).toEqual({ status: 502, body: expect.objectContaining({ status: 401, body: refused.body }) });
    // A basic-authenticated client's wrong secret, as before.
    expect(await form('/oauth/v2/introspect', { token: pat }, { authorization: basic(basicApp.clientId, 'wrong') })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});
