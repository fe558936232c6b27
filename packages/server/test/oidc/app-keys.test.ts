/**
 * Application keys (ZITADEL's AddAppKey, ListAppKeys, GetAppKey, RemoveAppKey) and private-key JWT
 * client authentication (RFC 7523): an application with the auth method PRIVATE_KEY_JWT gets a key
 * file once, signs a `client_assertion` with it and introspects tokens with it; a removed, expired
 * or wrongly signed assertion is refused (401); RemoveApp takes the keys with it; UpdateAPIAppConfig
 * switches between the secret and the keys; an OIDC application can use keys at the token endpoint.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface KeyFile {
  type: string;
  keyId: string;
  key: string;
  appId: string;
  clientId: string;
}

// What oidc-provider prints (its warnings go to console.warn), from the first request of the file on:
// it warns once per process, so a later check still sees an earlier request's warning.
const warn = vi.spyOn(console, 'warn');

describeEachStore('application keys', (dialect) => {
  let s: OidcTestServer;
  let projectId: string;
  let accessToken: string;
  const ORG = `${Date.now() % 1_000_000_000}7`;
  const inOrg = { 'x-service-orgid': ORG };
  const api = (method: string, path: string, body?: unknown) => s.api(method, `/management/v1/projects/${projectId}${path}`, body, undefined, inOrg);
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

  /** RFC 7523 §3: iss = sub = the client, aud = the issuer, a short exp and a unique jti. */
  const assertion = (clientId: string, keyId: string, key: KeyObject) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: keyId })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(s.issuer)
      .setIssuedAt()
      .setExpirationTime('1m')
      .setJti(randomUUID())
      .sign(key);

  const post = async (path: string, params: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.issuer}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) });
    return { status: res.status, body: await res.json() };
  };
  const introspectWith = (signed: string, token = accessToken) => post('/oauth/v2/introspect', { token, client_assertion_type: JWT_BEARER, client_assertion: signed });
  const introspectSigned = async (file: KeyFile, key = createPrivateKey(file.key)) => introspectWith(await assertion(file.clientId, file.keyId, key));

  const addKeyApp = async (name: string) => {
    const added = await api('POST', '/apps/api', { name, authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });
    expect(added.status).toBe(200);
    return added.body as { appId: string; clientId: string; clientSecret?: string };
  };
  const addKey = async (appId: string, body: Record<string, unknown> = { type: 'KEY_TYPE_JSON' }) => {
    const res = await api('POST', `/apps/${appId}/keys`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const file = JSON.parse(Buffer.from(res.body.keyDetails, 'base64').toString('utf8')) as KeyFile;
    return { id: res.body.id as string, file };
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    expect((await s.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: { orgs: [{ orgId: ORG, org: { name: 'Keys' } }] } })).body.errors ?? []).toEqual([]);
    projectId = (await s.api('POST', '/management/v1/projects', { name: 'keys' }, undefined, inOrg)).body.id;
    // A token to look at: a machine user's, by client credentials (obtained with its secret, elsewhere).
    const robot = (await s.api('POST', '/management/v1/users/machine', { userName: 'keys-robot', name: 'Robot' })).body.userId;
    const secret = (await s.api('PUT', `/management/v1/users/${robot}/secret`)).body;
    const token = await post('/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, { authorization: basic(secret.clientId, secret.clientSecret) });
    accessToken = token.body.access_token;
    expect(accessToken).toBeTruthy();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('an API application introspects with an assertion signed with its key; removed, the key is refused', async () => {
    const app = await addKeyApp('orders-api');
    expect(app.clientSecret).toBeUndefined();
    expect((await api('GET', `/apps/${app.appId}`)).body.app.apiConfig).toEqual({ clientId: app.clientId, authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });
    expect((await api('POST', `/apps/${app.appId}/api_config/_generate_client_secret`)).status).toBe(400);

    const { id, file } = await addKey(app.appId, { type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00Z' });
    expect(file).toEqual({ type: 'application', keyId: id, key: expect.stringContaining('-----BEGIN RSA PRIVATE KEY-----'), appId: app.appId, clientId: app.clientId });

    const seen = await introspectSigned(file);
    expect(seen.status, JSON.stringify(seen.body)).toBe(200);
    expect(seen.body).toMatchObject({ active: true });
    // An assertion is good until it expires, its jti notwithstanding, as in ZITADEL (test/oidc/introspection-zitadel.test.ts).
    const again = await assertion(file.clientId, file.keyId, createPrivateKey(file.key));
    expect((await introspectWith(again)).status).toBe(200);
    expect((await introspectWith(again)).status).toBe(200);
    // Signed with another key under the same key id: refused.
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await introspectSigned(file, stranger)).status).toBe(401);
    // For another audience: refused.
    const elsewhere = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: id })
      .setIssuer(app.clientId)
      .setSubject(app.clientId)
      .setAudience('https://elsewhere.example')
      .setExpirationTime('1m')
      .setJti(randomUUID())
      .sign(createPrivateKey(file.key));
    expect((await introspectWith(elsewhere)).status).toBe(401);

    // Only the public key is stored; the key is shown without it.
    const stored = await s.t.store.read.appKeys.get(app.appId, id);
    expect(stored?.publicKey).toContain('-----BEGIN PUBLIC KEY-----');
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    expect((await api('GET', `/apps/${app.appId}/keys/${id}`)).body).toEqual({
      key: { id, details: expect.objectContaining({ sequence: expect.any(String) }), type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z' },
    });
    const listed = await api('POST', `/apps/${app.appId}/keys/_search`, {});
    expect(listed.body.details.totalResult).toBe('1');
    expect(listed.body.result.map((k: { id: string }) => k.id)).toEqual([id]);

    expect((await api('DELETE', `/apps/${app.appId}/keys/${id}`)).status).toBe(200);
    expect((await introspectSigned(file)).status).toBe(401);
    expect((await api('GET', `/apps/${app.appId}/keys/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/apps/${app.appId}/keys/${id}`)).status).toBe(404);
  });

  it('an expired key is refused; a key without expiration date lasts until 9999', async () => {
    const app = await addKeyApp('short-lived');
    const expiresAt = new Date(Date.now() + 3000);
    const { file } = await addKey(app.appId, { type: 'KEY_TYPE_JSON', expirationDate: expiresAt.toISOString() });
    expect((await introspectSigned(file)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 200));
    expect((await introspectSigned(file)).status).toBe(401);

    const lasting = await addKey(app.appId);
    expect((await api('GET', `/apps/${app.appId}/keys/${lasting.id}`)).body.key.expirationDate).toBe('9999-12-31T23:59:59.000Z');
    expect((await introspectSigned(lasting.file)).status).toBe(200);
  });

  it('bad input → 400 with the error body, nothing written', async () => {
    const app = await addKeyApp('strict');
    const past = await api('POST', `/apps/${app.appId}/keys`, { type: 'KEY_TYPE_JSON', expirationDate: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      code: 3,
      message: expect.stringContaining('ExpireBeforeNow'),
      details: [expect.objectContaining({ '@type': expect.any(String), id: 'DOMAIN-dv3t5', message: expect.any(String) })],
    });
    expect((await api('POST', `/apps/${app.appId}/keys`, { type: 'KEY_TYPE_UNSPECIFIED' })).status).toBe(400);
    expect((await api('POST', `/apps/${app.appId}/keys`, {})).status).toBe(400);
    expect((await api('POST', `/apps/${app.appId}/keys`, { type: 'KEY_TYPE_JSON', expirationDate: 'tomorrow' })).status).toBe(400);
    expect((await api('POST', `/apps/${app.appId}/keys`, { type: 'KEY_TYPE_JSON', extra: 1 })).status).toBe(400);
    expect((await api('POST', `/apps/${app.appId}/keys/_search`, {})).body.details.totalResult).toBe('0');

    // Keys are for PRIVATE_KEY_JWT applications only.
    const basicApp = (await api('POST', '/apps/api', { name: 'with-secret' })).body;
    const refused = await api('POST', `/apps/${basicApp.appId}/keys`, { type: 'KEY_TYPE_JSON' });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('COMMAND-Dff54');
    expect((await api('POST', `/apps/missing/keys`, { type: 'KEY_TYPE_JSON' })).status).toBe(404);
    expect((await api('GET', `/apps/${app.appId}/keys/missing`)).status).toBe(404);
  });

  it('UpdateAPIAppConfig switches between the secret and the keys', async () => {
    const added = (await api('POST', '/apps/api', { name: 'switching' })).body;
    const { appId, clientId, clientSecret } = added;
    expect((await post('/oauth/v2/introspect', { token: accessToken }, { authorization: basic(clientId, clientSecret) })).status).toBe(200);

    expect((await api('PUT', `/apps/${appId}/api_config`, { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).body).toEqual({ details: expect.any(Object) });
    expect((await post('/oauth/v2/introspect', { token: accessToken }, { authorization: basic(clientId, clientSecret) })).status).toBe(401);
    const { file } = await addKey(appId);
    expect((await introspectSigned(file)).status).toBe(200);
    expect((await api('PUT', `/apps/${appId}/api_config`, { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).status).toBe(400);

    const back = await api('PUT', `/apps/${appId}/api_config`, { authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' });
    expect(back.status).toBe(200);
    expect(back.body.clientSecret).toEqual(expect.any(String));
    expect((await post('/oauth/v2/introspect', { token: accessToken }, { authorization: basic(clientId, back.body.clientSecret) })).status).toBe(200);
    // Its keys stay, but are not accepted while the method is BASIC.
    expect((await introspectSigned(file)).status).toBe(401);
    expect((await api('POST', `/apps/${appId}/keys/_search`, {})).body.result).toHaveLength(1);

    const oidc = (await api('POST', '/apps/oidc', { name: 'web', redirectUris: ['https://web.example/cb'] })).body;
    expect((await api('PUT', `/apps/${oidc.appId}/api_config`, { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).status).toBe(400);
    expect((await api('PUT', `/apps/${appId}/api_config`, { authMethodType: 'API_AUTH_METHOD_TYPE_NONE' })).status).toBe(400);
  });

  it('RemoveApp removes its keys', async () => {
    const app = await addKeyApp('going');
    const { id, file } = await addKey(app.appId);
    expect((await api('DELETE', `/apps/${app.appId}`)).status).toBe(200);
    expect(await s.t.store.read.appKeys.get(app.appId, id)).toBeUndefined();
    expect((await introspectSigned(file)).status).toBe(401);
  });

  describe('an OIDC application with PRIVATE_KEY_JWT', () => {
    it('has no secret and authenticates with its key at the token and introspection endpoints', async () => {
      const added = await api('POST', '/apps/oidc', { name: 'keyed-web', redirectUris: ['https://web.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });
      expect(added.status).toBe(200);
      expect(added.body.clientSecret).toBeUndefined();
      const { appId, clientId } = added.body;
      expect((await api('POST', `/apps/${appId}/oidc_config/_generate_client_secret`)).status).toBe(400);
      const { file } = await addKey(appId);
      expect(file.clientId).toBe(clientId);
      expect((await introspectSigned(file)).status).toBe(200);

      // At the token endpoint: the client is authenticated (the grant is then the problem), or not (401).
      const token = async (signed: string) =>
        post('/oauth/v2/token', { grant_type: 'authorization_code', code: 'unknown', redirect_uri: 'https://web.example/cb', client_assertion_type: JWT_BEARER, client_assertion: signed });
      const good = await token(await assertion(clientId, file.keyId, createPrivateKey(file.key)));
      expect(good).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      expect(await token(await assertion(clientId, file.keyId, stranger))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    });
  });

  it('import: PRIVATE_KEY_JWT applications are imported as such, a key without its public key is not; exported as they are', async () => {
    const app = await addKeyApp('moving');
    await addKey(app.appId);
    const web = (await api('POST', '/apps/oidc', { name: 'moving-web', redirectUris: ['https://web.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).body;
    const exported = (await s.api('POST', '/admin/v1/export', { org_ids: [ORG], with_passwords: true, timeout: '1m', response_output: true })).body;
    const org = exported.orgs[0];
    expect(org.apiApps).toContainEqual({
      appId: app.appId,
      app: { projectId, name: 'moving', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' },
      identityServiceClient: { clientId: app.clientId },
    });
    expect(org.oidcApps).toContainEqual(expect.objectContaining({ appId: web.appId, app: expect.objectContaining({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' }) }));

    const target = await startOidcServer(dialect);
    try {
      const keyEntry = { id: '4242', projectId, appId: app.appId, clientId: app.clientId, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00Z' };
      const imported = (await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: { orgs: [{ ...org, appKeys: [keyEntry] }] } })).body;
      expect(imported.errors).toEqual([expect.objectContaining({ type: 'app_key', id: '4242', message: expect.stringContaining('IMPORT-k3yPb') })]);
      expect(imported.success.orgs[0].apiAppIds).toContain(app.appId);
      const there = (await target.api('GET', `/management/v1/projects/${projectId}/apps/${app.appId}`, undefined, undefined, inOrg)).body.app;
      expect(there.apiConfig).toEqual({ clientId: app.clientId, authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });
      expect((await target.api('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/keys/_search`, {}, undefined, inOrg)).body.result).toEqual([]);
      // Neither has a secret there.
      expect((await target.t.store.read.oidcApps.get(projectId, app.appId))?.clientSecretHash).toBeNull();
      expect((await target.t.store.read.oidcApps.get(projectId, web.appId))?.clientSecretHash).toBeNull();
      expect((await target.api('GET', `/management/v1/projects/${projectId}/apps/${web.appId}`, undefined, undefined, inOrg)).body.app.oidcConfig.authMethodType).toBe(
        'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
      );
      // A new key there works there.
      const res = await target.api('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/keys`, { type: 'KEY_TYPE_JSON' }, undefined, inOrg);
      const file = JSON.parse(Buffer.from(res.body.keyDetails, 'base64').toString('utf8')) as KeyFile;
      const signed = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: file.keyId })
        .setIssuer(file.clientId)
        .setSubject(file.clientId)
        .setAudience(target.issuer)
        .setExpirationTime('1m')
        .setJti(randomUUID())
        .sign(createPrivateKey(file.key));
      const seen = await fetch(`${target.issuer}/oauth/v2/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: 'unknown', client_assertion_type: JWT_BEARER, client_assertion: signed }),
      });
      expect(seen.status).toBe(200);
      expect((await seen.json()).active).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('oidc-provider reads every form itself, rewritten or not (token, introspection, revocation): it never warns of a body read before it', async () => {
    const app = await addKeyApp('forms');
    const { file } = await addKey(app.appId);
    expect((await introspectSigned(file)).status).toBe(200);
    const revoked = await fetch(`${s.issuer}/oauth/v2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'unknown', client_assertion_type: JWT_BEARER, client_assertion: await assertion(file.clientId, file.keyId, createPrivateKey(file.key)) }),
    });
    expect(revoked.status).toBe(200);
    // Not ours to judge (no such client): passed on unchanged, and refused by oidc-provider.
    expect((await post('/oauth/v2/token', { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' })).body.error).toBe('invalid_client');
    expect(warn.mock.calls.map((call) => call.join(' ')).filter((line) => line.includes('already parsed request body'))).toEqual([]);
  });
});
