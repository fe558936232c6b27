/**
 * The token-signing key's algorithm (ZITADEL's web-key algorithms: RS256 by default, ES256, EdDSA,
 * …), against the real server on loopback with real clients: a server whose first key is ES256
 * (SIGNING_KEY_ALGORITHM) publishes an EC key and lists ES256 in discovery; a person's ID token and
 * JWT access token from a code flow (openid-client, which checks the ID token's algorithm against
 * discovery), a JWT-profile token and its ID token (@zitadel/node's ServiceAccount and the raw
 * grant) are ES256 and verify against the published keys; the API, userinfo and introspection take
 * them. A rotation to EdDSA signs new tokens with Ed25519 while the ES256 ones still work, and a
 * rotation without an algorithm keeps the current one. A bad SIGNING_KEY_ALGORITHM refuses to start.
 */

import { createPrivateKey } from 'node:crypto';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { rotateKeys } from '../../src/oidc/keys.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createRequestHandler } from '../../src/server.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const API_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TEXT = '/admin/v1/text/default/message/verifyemail/en';
const PASSWORD = 'Secr3t-Passw0rd!';

describe('SIGNING_KEY_ALGORITHM', () => {
  it('is unset (RS256 keys) unless set, takes ZITADEL’s web-key algorithms, and refuses anything else', () => {
    expect(loadConfig({}).signingKeyAlgorithm).toBeUndefined();
    for (const alg of ['ES256', 'ES384', 'ES512', 'EdDSA', 'RS512']) expect(loadConfig({ SIGNING_KEY_ALGORITHM: alg }).signingKeyAlgorithm).toBe(alg);
    for (const alg of ['HS256', 'none', 'es256', 'PS256']) expect(() => loadConfig({ SIGNING_KEY_ALGORITHM: alg })).toThrow(ConfigError);
  });
});

describeEachStore('token-signing algorithms', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  let personId: string;
  let machine: { userId: string; file: { type: string; keyId: string; key: string; userId: string } };

  beforeAll(async () => {
    s = await startOidcServer(dialect, { signingKeyAlgorithm: 'ES256' });
    const project = await s.api('POST', '/management/v1/projects', { name: 'signing' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'spa',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
    });
    clientId = app.clientId;
    personId = await importHuman(s, 'erin', { password: PASSWORD });
    expect((await s.api('POST', '/admin/v1/members', { userId: personId, roles: ['IAM_OWNER'] })).status).toBe(200);
    const robot = await s.api('POST', '/management/v1/users/machine', { userName: 'signer', name: 'signer', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
    expect((await s.api('POST', '/admin/v1/members', { userId: robot.body.userId, roles: ['IAM_OWNER'] })).status).toBe(200);
    const key = await s.api('POST', `/management/v1/users/${robot.body.userId}/keys`, { type: 'KEY_TYPE_JSON' });
    machine = { userId: robot.body.userId, file: JSON.parse(Buffer.from(key.body.keyDetails, 'base64').toString('utf8')) };
  }, 120_000);
  afterAll(() => s?.close());

  const jwks = () => createRemoteJWKSet(new URL(`${s.issuer}/oauth/v2/keys`));
  const publishedKeys = async () => ((await (await fetch(`${s.issuer}/oauth/v2/keys`)).json()) as { keys: Record<string, unknown>[] }).keys;
  const discovery = async () => (await (await fetch(`${s.issuer}/.well-known/openid-configuration`)).json()) as { id_token_signing_alg_values_supported: string[] };

  /** A person's tokens through the login form, exchanged by openid-client (which checks the ID token's alg against discovery). */
  async function personTokens() {
    const config = await oc.discovery(new URL(s.issuer), clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const signedIn = await signInThroughForm(config, REDIRECT, 'erin', PASSWORD, { scope: `openid profile ${API_SCOPE}` });
    expect(signedIn.callback, signedIn.page?.html.slice(0, 300)).toBeTruthy();
    return { config, tokens: await signedIn.redeem() };
  }

  /** The machine user's JWT-profile grant with `openid`, as @zitadel/node asks for it. */
  async function machineGrant() {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ iss: machine.userId, sub: machine.userId, aud: s.issuer, iat: now, exp: now + 600 })
      .setProtectedHeader({ alg: 'RS256', kid: machine.file.keyId })
      .sign(createPrivateKey(machine.file.key));
    const res = await fetch(`${s.issuer}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, scope: `openid ${API_SCOPE}` }),
    });
    const body = (await res.json()) as { access_token: string; id_token: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  it('an ES256 first key: published as a public EC key, listed in discovery', async () => {
    const keys = await publishedKeys();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String), x: expect.any(String), y: expect.any(String) });
    expect(keys[0].d).toBeUndefined();
    expect((await discovery()).id_token_signing_alg_values_supported).toEqual(['ES256']);
  });

  it("a person's ID token and JWT access token are ES256 and verify; the API, userinfo and introspection take the token", async () => {
    const { config, tokens } = await personTokens();
    for (const token of [tokens.id_token!, tokens.access_token]) {
      expect(decodeProtectedHeader(token).alg).toBe('ES256');
      await jwtVerify(token, jwks(), { issuer: s.issuer });
    }
    expect(tokens.claims()?.sub).toBe(personId);
    expect((await s.api('GET', TEXT, undefined, tokens.access_token)).status).toBe(200);
    expect((await oc.fetchUserInfo(config, tokens.access_token, personId)).sub).toBe(personId);
    const project = await s.api('POST', '/management/v1/projects', { name: 'resource server' });
    const api = await s.api('POST', `/management/v1/projects/${project.body.id}/apps/api`, { name: 'rs' });
    const introspector = await oc.discovery(new URL(s.issuer), api.body.clientId, undefined, oc.ClientSecretBasic(api.body.clientSecret), { execute: [oc.allowInsecureRequests] });
    expect(await oc.tokenIntrospection(introspector, tokens.access_token)).toMatchObject({ active: true, sub: personId });
  });

  it("the JWT-profile grant's access token and ID token are ES256; @zitadel/node's ServiceAccount gets a token that calls the API", async () => {
    const body = await machineGrant();
    for (const token of [body.access_token, body.id_token]) {
      expect(decodeProtectedHeader(token).alg).toBe('ES256');
      await jwtVerify(token, jwks(), { issuer: s.issuer });
    }
    const token = await ServiceAccount.fromJson(machine.file).authenticate(s.issuer, { apiAccess: true });
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    expect((await s.api('GET', TEXT, undefined, token)).status).toBe(200);
  });

  it('a rotation to EdDSA signs new tokens with Ed25519, the ES256 ones still work, and the next rotation keeps EdDSA', async () => {
    const before = await machineGrant();
    const rotated = await rotateKeys(s.t.store, processSecretBox(), 60 * 60 * 1000, 'EdDSA');
    expect(rotated.alg).toBe('EdDSA');
    expect(await s.service.reloadKeys()).toBe(true);

    const keys = await publishedKeys();
    expect(keys.map((k) => k.alg)).toEqual(['EdDSA', 'ES256']);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: rotated.kid, x: expect.any(String) });
    for (const key of keys) expect(key.d).toBeUndefined();
    expect(new Set((await discovery()).id_token_signing_alg_values_supported)).toEqual(new Set(['EdDSA', 'ES256']));

    const after = await machineGrant();
    for (const token of [after.access_token, after.id_token]) {
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'EdDSA', kid: rotated.kid });
      await jwtVerify(token, jwks(), { issuer: s.issuer });
    }
    const { tokens } = await personTokens();
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('EdDSA');
    for (const token of [before.access_token, after.access_token, tokens.access_token]) expect((await s.api('GET', TEXT, undefined, token)).status).toBe(200);

    const next = await rotateKeys(s.t.store, processSecretBox());
    expect(next.alg).toBe('EdDSA');
  });

  it('a process started with another SIGNING_KEY_ALGORITHM than the key in use keeps the key and says how to switch', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => void lines.push(line));
    const start = async (signingKeyAlgorithm?: 'EdDSA' | 'ES384') => {
      lines.length = 0;
      const handler = await createRequestHandler({ store: s.t.store, instanceId: s.t.instanceId, issuer: s.issuer, lockout: { maxPasswordAttempts: 0 }, logger, signingKeyAlgorithm });
      handler.stop();
      return lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 'warn');
    };
    const inUse = (await publishedKeys())[0].alg;
    expect(inUse).toBe('EdDSA');
    const [warning] = await start('ES384');
    expect(warning).toMatchObject({ configured: 'ES384', inUse: 'EdDSA', toSwitch: expect.stringContaining('keys:rotate -w @identity-service/server -- 24 ES384') });
    expect((await publishedKeys())[0].alg).toBe('EdDSA');
    expect(await start('EdDSA')).toEqual([]);
    expect(await start()).toEqual([]);
  });

  it('every other algorithm signs tokens that verify against the published key (jose) and that the API takes', async () => {
    for (const alg of ['RS384', 'RS512', 'ES384', 'ES512', 'RS256'] as const) {
      const rotated = await rotateKeys(s.t.store, processSecretBox(), 60 * 60 * 1000, alg);
      expect(await s.service.reloadKeys()).toBe(true);
      const body = await machineGrant();
      for (const token of [body.access_token, body.id_token]) {
        expect(decodeProtectedHeader(token), alg).toMatchObject({ alg, kid: rotated.kid });
        await jwtVerify(token, jwks(), { issuer: s.issuer, algorithms: [alg] });
      }
      expect((await s.api('GET', TEXT, undefined, body.access_token)).status, alg).toBe(200);
    }
  });
});
