/**
 * The JWT-profile grant (RFC 7523 §2.1) at /oauth/v2/token, against the real server on loopback:
 * @zitadel/node's ServiceAccount, unchanged, with a key file from AddMachineKey gets a token that
 * calls the admin API; the answer's shape (scope, expiry, ID token) through openid-client; the
 * token is an access token like the others (introspection, revocation); every refusal is OAuth's
 * JSON with its reason (bad signature, unknown/removed/expired key, expired or future or old
 * assertion, wrong audience, iss ≠ sub, a locked or deactivated user, a human's id); discovery
 * lists the grant; other grants still reach oidc-provider. A removed key is refused at once by
 * another server process on the same store.
 */
import { createPrivateKey, createPublicKey, sign as cryptoSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAdminClient, createServiceAccountInterceptor } from '@zitadel/node/dist/api/index.js';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { createRemoteJWKSet, decodeJwt, jwtVerify, SignJWT } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, describeEachStore, freshPostgresDatabase } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';
import { type ServerProcess, startServerProcessWithIssuer, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const API_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
const TEXT = '/admin/v1/text/default/message/verifyemail/en';

interface KeyFile {
  type: string;
  keyId: string;
  key: string;
  userId: string;
}

type Api = (method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: any }>;

/** A machine user (IAM_OWNER, so its token may call the admin API) with one key; its key file. */
async function machineWithKey(api: Api, userName: string, accessTokenType = 'ACCESS_TOKEN_TYPE_BEARER', keyBody: Record<string, unknown> = { type: 'KEY_TYPE_JSON' }) {
  const machine = await api('POST', '/management/v1/users/machine', { userName, name: userName, accessTokenType });
  expect(machine.status, JSON.stringify(machine.body)).toBe(200);
  const userId = machine.body.userId as string;
  expect((await api('POST', '/admin/v1/members', { userId, roles: ['IAM_OWNER'] })).status).toBe(200);
  const key = await api('POST', `/management/v1/users/${userId}/keys`, keyBody);
  expect(key.status, JSON.stringify(key.body)).toBe(200);
  const file = JSON.parse(Buffer.from(key.body.keyDetails, 'base64').toString('utf8')) as KeyFile;
  return { userId, file, privateKey: createPrivateKey(file.key) };
}

/** An assertion as @zitadel/node signs it, with any claim overridden (undefined leaves it out). */
async function assertion(
  signer: { userId: string; keyId: string; privateKey: KeyObject },
  audience: string,
  claims: { iss?: string; sub?: string; aud?: string | string[]; iat?: number; exp?: number; nbf?: number | string; alg?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: signer.userId, sub: signer.userId, aud: audience, iat: now, exp: now + 3600, ...claims };
  return new SignJWT(Object.fromEntries(Object.entries(payload).filter(([k]) => k !== 'alg'))).setProtectedHeader({ alg: claims.alg ?? 'RS256', kid: signer.keyId }).sign(signer.privateKey);
}

/** An assertion's header and claims (RS256, valid for an hour), to be signed by hand. */
function jwtParts(signer: { userId: string; keyId: string }, audience: string): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: signer.keyId })}.${part({ iss: signer.userId, sub: signer.userId, aud: audience, iat: now, exp: now + 3600 })}`;
}

/** The grant as a raw form POST (no client authentication, as @zitadel/node sends it). */
async function grant(issuer: string, form: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${issuer}/oauth/v2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describeEachStore('JWT-profile grant', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  });
  afterAll(() => s?.close());

  const signerOf = (m: { userId: string; file: KeyFile; privateKey: KeyObject }) => ({ userId: m.userId, keyId: m.file.keyId, privateKey: m.privateKey });

  it("@zitadel/node's ServiceAccount, unchanged, gets a token with a key file from AddMachineKey, and the token calls the admin API", async () => {
    for (const [name, type] of [
      ['sa-bearer', 'ACCESS_TOKEN_TYPE_BEARER'],
      ['sa-jwt', 'ACCESS_TOKEN_TYPE_JWT'],
    ] as const) {
      const m = await machineWithKey(s.api, name, type);
      const account = ServiceAccount.fromJson(m.file);
      const token = await account.authenticate(s.issuer, { apiAccess: true });
      expect(token.split('.').length).toBe(type === 'ACCESS_TOKEN_TYPE_JWT' ? 3 : 1);
      expect((await s.api('GET', TEXT, undefined, token)).status).toBe(200);
      // 4.1 as the service user.
      const set = await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { title: `set by ${name}` }, token);
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      // With the issuer's trailing slash as audience too (discovery is found either way).
      expect((await s.api('GET', TEXT, undefined, await account.authenticate(`${s.issuer}/`, { apiAccess: true }))).status).toBe(200);
      // Without the API's audience scope the token is not for the API.
      expect((await s.api('GET', TEXT, undefined, await account.authenticate(s.issuer))).status).toBe(401);
    }
  });

  it("@zitadel/node's admin client with its service-account interceptor (the grant, then gRPC over h2c on the same port) sets and reads 4.1", async () => {
    const m = await machineWithKey(s.api, 'sa-grpc', 'ACCESS_TOKEN_TYPE_JWT');
    const admin = createAdminClient(s.issuer, createServiceAccountInterceptor(s.issuer, ServiceAccount.fromJson(m.file), { apiAccess: true }));
    const set = await admin.setDefaultVerifyEmailMessageText({ language: 'it', title: 'Verifica', text: 'Ciao' });
    expect(Number(set.details?.sequence)).toBeGreaterThan(0);
    expect((await admin.getCustomVerifyEmailMessageText({ language: 'it' })).customText?.title).toBe('Verifica');
  });

  it('answers token_type, expires_in, the granted scope and, with openid, an ID token for the user (openid-client)', async () => {
    const m = await machineWithKey(s.api, 'oc-robot', 'ACCESS_TOKEN_TYPE_JWT');
    // openid-client checks the ID token's audience against its client id: the user's id, as the token's client_id.
    const config = await oc.discovery(new URL(s.issuer), m.userId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const tokens = await oc.genericGrantRequest(config, JWT_BEARER, { assertion: await assertion(signerOf(m), s.issuer), scope: `openid ${API_SCOPE} unknown:scope` });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe(`openid ${API_SCOPE}`);
    const at = decodeJwt(tokens.access_token);
    expect(at).toMatchObject({ sub: m.userId, client_id: m.userId, iss: s.issuer, scope: `openid ${API_SCOPE}`, aud: [m.userId, 'service'] });
    const jwks = createRemoteJWKSet(new URL(`${s.issuer}/oauth/v2/keys`));
    await jwtVerify(tokens.access_token, jwks, { issuer: s.issuer, typ: 'at+jwt' });
    const idToken = tokens.claims()!;
    expect(idToken).toMatchObject({ sub: m.userId, aud: m.userId, iss: s.issuer, at_hash: expect.any(String) });
    await jwtVerify(tokens.id_token!, jwks, { issuer: s.issuer, audience: m.userId });

    // Without openid: no ID token.
    const plain = await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(signerOf(m), s.issuer), scope: API_SCOPE });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('no-store');
    expect(plain.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: API_SCOPE });
  });

  it('its opaque token is an access token like the others: introspected with its user, revoked by its holder', async () => {
    const m = await machineWithKey(s.api, 'intro-robot');
    const { body } = await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(signerOf(m), s.issuer), scope: `openid ${API_SCOPE}` });
    const token = body.access_token as string;
    const project = await s.api('POST', '/management/v1/projects', { name: 'introspection' });
    const app = await s.api('POST', `/management/v1/projects/${project.body.id}/apps/api`, { name: 'resource server' });
    const introspector = await oc.discovery(new URL(s.issuer), app.body.clientId, undefined, oc.ClientSecretBasic(app.body.clientSecret), { execute: [oc.allowInsecureRequests] });
    expect(await oc.tokenIntrospection(introspector, token)).toMatchObject({ active: true, sub: m.userId, client_id: m.userId, scope: `openid ${API_SCOPE}`, token_type: 'Bearer' });
    expect((await s.api('GET', TEXT, undefined, token)).status).toBe(200);

    // RFC 7009: the holder revokes it as the public client it was issued to (the user's id).
    const holder = await oc.discovery(new URL(s.issuer), m.userId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    await oc.tokenRevocation(holder, token);
    expect((await oc.tokenIntrospection(introspector, token)).active).toBe(false);
    expect((await s.api('GET', TEXT, undefined, token)).status).toBe(401);
  });

  it('refuses, as OAuth JSON naming the reason: a bad signature, an unknown key, an expired, future, not-yet-valid (nbf) or old assertion, a wrong audience, iss ≠ sub, other algorithms', async () => {
    const m = await machineWithKey(s.api, 'refused-robot');
    const signer = signerOf(m);
    const config = await oc.discovery(new URL(s.issuer), m.userId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const refusal = async (jwt: string) => {
      const error = await oc.genericGrantRequest(config, JWT_BEARER, { assertion: jwt, scope: API_SCOPE }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, 'the grant should have been refused').toBeInstanceOf(oc.ResponseBodyError);
      const { status, error: code, error_description: description } = error as oc.ResponseBodyError;
      return { status, code, description };
    };
    const now = Math.floor(Date.now() / 1000);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const cases: [string, string, RegExp][] = [
      ['bad signature', await assertion({ ...signer, privateKey: stranger }, s.issuer), /signature does not verify/],
      ['unknown key', await assertion({ ...signer, keyId: '4242' }, s.issuer), /has no key 4242/],
      ['expired', await assertion(signer, s.issuer, { iat: now - 120, exp: now - 60 }), /expired/],
      ['expiring within the second of skew', await assertion(signer, s.issuer, { exp: now }), /expired/],
      ['issued in the future', await assertion(signer, s.issuer, { iat: now + 60 }), /in the future/],
      ['issued over an hour ago', await assertion(signer, s.issuer, { iat: now - 3700 }), /more than an hour ago/],
      // RFC 7519 §4.1.5: not before its time, with the same second of skew as iat and exp.
      ['not valid before a minute from now', await assertion(signer, s.issuer, { nbf: now + 60 }), /not valid yet \("nbf"/],
      ['not valid before half a minute from now', await assertion(signer, s.issuer, { nbf: now + 30 }), /not valid yet \("nbf"/],
      ['an nbf that is no number', await assertion(signer, s.issuer, { nbf: 'tomorrow' }), /"nbf" is not a number/],
      ['wrong audience', await assertion(signer, 'https://elsewhere.example.com'), /audience/],
      ['no audience', await assertion(signer, s.issuer, { aud: [] }), /audience/],
      ['iss ≠ sub', await assertion(signer, s.issuer, { iss: 'someone-else' }), /issuer \("iss"\) and subject \("sub"\)/],
      // The signature of other claims: the payload of one assertion with the signature of another.
      [
        'altered claims',
        await (async () => {
          const [, , signature] = (await assertion(signer, s.issuer)).split('.');
          const [header, payload] = (await assertion(signer, s.issuer, { exp: now + 1800 })).split('.');
          return `${header}.${payload}.${signature}`;
        })(),
        /signature does not verify/,
      ],
      // Signed PS256, the header saying RS256 (and the other way round): the header's algorithm is the one checked.
      [
        'PS256 signature under an RS256 header',
        await (async () => {
          const [header] = (await assertion(signer, s.issuer)).split('.');
          const [, payload, signature] = (await assertion(signer, s.issuer, { alg: 'PS256' })).split('.');
          return `${header}.${payload}.${signature}`;
        })(),
        /signature does not verify/,
      ],
      // Too weak a key signs nothing that is taken (jose will not even sign with it: node:crypto does).
      [
        'a 1024-bit key',
        (() => {
          const [header, payload] = jwtParts(signer, s.issuer).split('.');
          const signature = cryptoSign('sha256', Buffer.from(`${header}.${payload}`), generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey).toString('base64url');
          return `${header}.${payload}.${signature}`;
        })(),
        /signature does not verify/,
      ],
      [
        'HMAC',
        await new SignJWT({ iss: m.userId, sub: m.userId, aud: s.issuer })
          .setProtectedHeader({ alg: 'HS256', kid: m.file.keyId })
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode('a shared secret of 32 bytes!!!!!')),
        /algorithm "HS256" is not allowed/,
      ],
    ];
    for (const [name, jwt, reason] of cases) {
      const r = await refusal(jwt);
      expect({ name, ...r }).toMatchObject({ name, status: 400, code: 'invalid_grant', description: expect.stringMatching(reason) });
    }
    // Accepted algorithms: RSA with PKCS#1 v1.5 or PSS padding, SHA-256 to SHA-512 (RFC 7518 §3.3, §3.5).
    for (const alg of ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']) {
      const answer = await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(signer, s.issuer, { alg }), scope: API_SCOPE });
      expect({ alg, status: answer.status }).toEqual({ alg, status: 200 });
    }
    // An nbf now, or within the second of skew, is taken.
    for (const nbf of [now - 60, now, now + 1]) {
      expect({ nbf, status: (await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(signer, s.issuer, { nbf }), scope: API_SCOPE })).status }).toEqual({ nbf, status: 200 });
    }
    // Accepted audiences: the issuer, with a trailing slash, among others, and the token endpoint.
    for (const aud of [`${s.issuer}/`, ['https://elsewhere.example.com', s.issuer], `${s.issuer}/oauth/v2/token`]) {
      expect((await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(signer, s.issuer, { aud }), scope: API_SCOPE })).status).toBe(200);
    }
  });

  it('refuses a locked and a deactivated user, and a human user, and takes the user back once reactivated', async () => {
    const m = await machineWithKey(s.api, 'state-robot');
    const signer = signerOf(m);
    const tryGrant = async () => grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(signer, s.issuer), scope: API_SCOPE });
    expect((await s.api('POST', `/management/v1/users/${m.userId}/_lock`, {})).status).toBe(200);
    expect((await tryGrant()).body).toEqual({ error: 'invalid_grant', error_description: `user ${m.userId} may not authenticate (USER_STATE_LOCKED)` });
    expect((await s.api('POST', `/management/v1/users/${m.userId}/_unlock`, {})).status).toBe(200);
    expect((await tryGrant()).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${m.userId}/_deactivate`, {})).status).toBe(200);
    expect((await tryGrant()).body).toEqual({ error: 'invalid_grant', error_description: `user ${m.userId} may not authenticate (USER_STATE_INACTIVE)` });
    expect((await s.api('POST', `/management/v1/users/${m.userId}/_reactivate`, {})).status).toBe(200);
    expect((await tryGrant()).status).toBe(200);

    // A human user has no keys: its id as iss and sub, signed with a machine's key, names a key it does not have.
    const human = await s.api('POST', '/management/v1/users/human/_import', {
      userName: 'person',
      profile: { firstName: 'A', lastName: 'Person' },
      email: { email: 'person@example.com', isEmailVerified: true },
    });
    expect(human.status).toBe(200);
    const asHuman = await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion({ ...signer, userId: human.body.userId }, s.issuer), scope: API_SCOPE });
    expect(asHuman).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: `user ${human.body.userId} has no key ${m.file.keyId} (unknown or removed)` } });

    // A key whose user row is gone (the key and its user are read in one join): refused as no user, not as a missing key.
    const orphan = { userId: `orphan-${Date.now()}`, keyId: `orphan-key-${Date.now()}`, privateKey: m.privateKey };
    await s.t.store.transaction((tx) =>
      tx.machineKeys.insert({
        id: orphan.keyId,
        userId: orphan.userId,
        orgId: s.t.defaultOrgId,
        type: 'KEY_TYPE_JSON',
        expiresAt: new Date(Date.now() + 3_600_000),
        publicKey: createPublicKey(m.privateKey).export({ type: 'spki', format: 'pem' }).toString(),
        sequence: 1,
        createdAt: new Date(),
        changedAt: new Date(),
      }),
    );
    const asOrphan = await grant(s.issuer, { grant_type: JWT_BEARER, assertion: await assertion(orphan, s.issuer), scope: API_SCOPE });
    expect(asOrphan).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: `user ${orphan.userId} does not exist` } });
  });

  it('refuses a removed key at once, and an expired key', async () => {
    const m = await machineWithKey(s.api, 'key-robot');
    const account = ServiceAccount.fromJson(m.file);
    expect(await account.authenticate(s.issuer, { apiAccess: true })).toEqual(expect.any(String));
    expect((await s.api('DELETE', `/management/v1/users/${m.userId}/keys/${m.file.keyId}`)).status).toBe(200);
    await expect(account.authenticate(s.issuer, { apiAccess: true })).rejects.toMatchObject({
      response: { status: 400, data: { error: 'invalid_grant', error_description: `user ${m.userId} has no key ${m.file.keyId} (unknown or removed)` } },
    });

    const expiresAt = new Date(Date.now() + 2500);
    const key = await s.api('POST', `/management/v1/users/${m.userId}/keys`, { type: 'KEY_TYPE_JSON', expirationDate: expiresAt.toISOString() });
    expect(key.status).toBe(200);
    const shortLived = ServiceAccount.fromJson(JSON.parse(Buffer.from(key.body.keyDetails, 'base64').toString('utf8')));
    expect(await shortLived.authenticate(s.issuer, { apiAccess: true })).toEqual(expect.any(String));
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 200));
    await expect(shortLived.authenticate(s.issuer, { apiAccess: true })).rejects.toMatchObject({
      response: { status: 400, data: { error: 'invalid_grant', error_description: expect.stringMatching(/expired on/) } },
    });
  });

  it('refuses a missing or malformed assertion and a missing scope as invalid_request; other grant types still reach oidc-provider', async () => {
    const m = await machineWithKey(s.api, 'request-robot');
    const ok = await assertion(signerOf(m), s.issuer);
    expect((await grant(s.issuer, { grant_type: JWT_BEARER, scope: API_SCOPE })).body).toEqual({ error: 'invalid_request', error_description: "missing required parameter 'assertion'" });
    expect((await grant(s.issuer, { grant_type: JWT_BEARER, assertion: 'not-a-jwt', scope: API_SCOPE })).body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/not a valid JWT/),
    });
    expect((await grant(s.issuer, { grant_type: JWT_BEARER, assertion: 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln', scope: API_SCOPE })).body).toMatchObject({ error: 'invalid_request' });
    expect((await grant(s.issuer, { grant_type: JWT_BEARER, assertion: ok })).body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/'scope'/) });
    const twice = new URLSearchParams([
      ['grant_type', JWT_BEARER],
      ['assertion', ok],
      ['assertion', ok],
      ['scope', API_SCOPE],
    ]);
    const dupe = await fetch(`${s.issuer}/oauth/v2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: twice });
    expect({ status: dupe.status, body: await dupe.json() }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: "'assertion' parameter must not be provided twice" } });

    // Other grant types are oidc-provider's answers, as before: it wants a client first, then knows no such grant.
    const saml = { grant_type: 'urn:ietf:params:oauth:grant-type:saml2-bearer', assertion: ok };
    expect(await grant(s.issuer, saml)).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'no client authentication mechanism provided' } });
    const robot = await s.api('POST', '/management/v1/users/machine', { userName: 'cc-robot', name: 'cc', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' });
    const secret = await s.api('PUT', `/management/v1/users/${robot.body.userId}/secret`);
    const basic = { authorization: `Basic ${Buffer.from(`${secret.body.clientId}:${secret.body.clientSecret}`).toString('base64')}` };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const unsupported = await fetch(`${s.issuer}/oauth/v2/token`, { method: 'POST', headers: { ...form, ...basic }, body: new URLSearchParams(saml) });
    expect({ status: unsupported.status, body: await unsupported.json() }).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    const cc = await fetch(`${s.issuer}/oauth/v2/token`, { method: 'POST', headers: { ...form, ...basic }, body: new URLSearchParams({ grant_type: 'client_credentials', scope: API_SCOPE }) });
    expect({ status: cc.status, body: await cc.json() }).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: API_SCOPE } });
    // A body too large for oidc-provider is refused as it refuses it, read or not.
    const big = { grant_type: 'client_credentials', scope: 'x'.repeat(60 * 1024) };
    expect(await grant(s.issuer, big)).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'failed to parse the request body' } });
  });

  it('is listed in the discovery document', async () => {
    const discovery = await (await fetch(`${s.issuer}/.well-known/openid-configuration`)).json();
    expect(discovery.grant_types_supported).toContain(JWT_BEARER);
    expect(discovery.grant_types_supported).toContain('client_credentials');
  });
});

describe.each(DIALECTS)('JWT-profile grant in two server processes on one store [%s]', (dialect) => {
  const servers: ServerProcess[] = [];
  const bases: string[] = [];
  let adminToken: string;

  beforeAll(async () => {
    const dir = tempDir('identity-jwt-profile-');
    const url = dialect === 'postgres' ? await freshPostgresDatabase() : `file:${join(dir, 'identity.db')}`;
    for (const n of [0, 1]) {
      const { server, base } = await startServerProcessWithIssuer({ DATABASE_URL: url, ADMIN_PAT_FILE: join(dir, `admin-${n}.pat`) });
      servers.push(server);
      bases.push(base);
    }
    adminToken = readFileSync(join(dir, 'admin-0.pat'), 'utf8').trim();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map(stopServerProcess));
  });

  const api =
    (n: number): Api =>
    async (method, path, body) => {
      const res = await fetch(bases[n] + path, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: await res.json() };
    };

  it('a key removed through one process is refused by the other at once', async () => {
    const m = await machineWithKey(api(0), `cross-${dialect}`);
    const account = ServiceAccount.fromJson(m.file);
    expect(await account.authenticate(bases[1], { apiAccess: true })).toEqual(expect.any(String));
    expect((await api(0)('DELETE', `/management/v1/users/${m.userId}/keys/${m.file.keyId}`)).status).toBe(200);
    await expect(account.authenticate(bases[1], { apiAccess: true })).rejects.toMatchObject({ response: { status: 400, data: { error: 'invalid_grant' } } });
  });
});
