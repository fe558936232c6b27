/**
 * Tokens and codes of the authorization server at rest: oidc_payloads keeps only their SHA-256
 * as the key and no copy in the payload, so a value read from the table is no bearer token;
 * tokens stored by an earlier version (under the token itself) are moved and keep working.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { hashLegacyTokenKeys } from '../../src/oidc/adapter.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const AUD = 'urn:service:iam:org:project:id:service:aud';
const PASSWORD = 'Secr3t-Passw0rd!';

describeEachStore('OAuth tokens at rest', (dialect) => {
  let s: OidcTestServer;
  let config: oc.Configuration;
  let loginName: string;

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = await s.api('POST', '/management/v1/projects', { name: 'vault' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'opaque',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
      devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    await importHuman(s, 'bob', { password: PASSWORD });
    const org = await s.api('GET', '/management/v1/orgs/me');
    loginName = `bob@${org.body.org.primaryDomain}`;
  });
  afterAll(() => s?.close());

  async function signIn() {
    const { callback, redeem } = await signInThroughForm(config, REDIRECT, loginName, PASSWORD, { scope: `openid offline_access ${AUD}`, prompt: 'consent' });
    if (!callback) throw new Error('login did not reach the redirect URI');
    const code = callback.searchParams.get('code')!;
    const tokens = await redeem(callback);
    return { code, tokens };
  }

  const userinfo = (token: string) => fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  it('access tokens, refresh tokens and codes are stored under their hash, with no copy in the row; a key read from the table works nowhere', async () => {
    const { code, tokens } = await signIn();
    expect(tokens.access_token.split('.')).toHaveLength(1); // opaque
    expect(tokens.refresh_token).toBeTruthy();
    expect((await userinfo(tokens.access_token)).status).toBe(200);

    const now = new Date();
    for (const [kind, value] of [
      ['AccessToken', tokens.access_token],
      ['RefreshToken', tokens.refresh_token!],
      ['AuthorizationCode', code],
    ] as const) {
      expect(await s.t.store.read.oidc.payloads.find(kind, value, now), kind).toBeUndefined();
      const row = await s.t.store.read.oidc.payloads.find(kind, hashToken(value), now);
      expect(row, kind).toBeDefined();
      expect(JSON.stringify(row), kind).not.toContain(value);
    }

    // What someone who can read the table gets is no token.
    const stolenKey = hashToken(tokens.access_token);
    expect((await userinfo(stolenKey)).status).toBe(401);
    expect((await s.api('GET', '/admin/v1/languages', undefined, stolenKey)).status).toBe(401);

    // The tokens themselves still do everything: refresh (which consumes the refresh token) and revocation.
    const refreshed = await oc.refreshTokenGrant(config, tokens.refresh_token!);
    expect((await userinfo(refreshed.access_token)).status).toBe(200);
    await oc.tokenRevocation(config, refreshed.access_token);
    expect((await userinfo(refreshed.access_token)).status).toBe(401);
  });

  it('a token an earlier version stored under its own value is moved to its hash at start and keeps working', async () => {
    const { tokens } = await signIn();
    const now = new Date();
    // As an earlier version wrote it: keyed by the token, `jti` in the payload.
    const row = (await s.t.store.read.oidc.payloads.find('AccessToken', hashToken(tokens.access_token), now))!;
    await s.t.store.transaction(async (tx) => {
      await tx.oidc.payloads.destroy('AccessToken', row.id);
      await tx.oidc.payloads.upsert({ ...row, id: tokens.access_token, payload: { ...row.payload, jti: tokens.access_token } });
    });

    expect(await hashLegacyTokenKeys(s.t.store)).toBe(1);
    expect(await hashLegacyTokenKeys(s.t.store)).toBe(0);
    expect(await s.t.store.read.oidc.payloads.find('AccessToken', tokens.access_token, now)).toBeUndefined();
    expect(JSON.stringify(await s.t.store.read.oidc.payloads.find('AccessToken', hashToken(tokens.access_token), now))).not.toContain(tokens.access_token);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
  });

  it('a stored token is found until it expires, and not after (the expiry is checked on every lookup)', async () => {
    const now = new Date();
    const row = (kind: string, id: string, expiresAt: Date | null) => ({ kind, id, payload: { kind }, grantId: null, uid: null, userCode: null, consumedAt: null, expiresAt });
    await s.t.store.transaction(async (tx) => {
      await tx.oidc.payloads.upsert(row('AccessToken', 'expiry-future', new Date(now.getTime() + 60_000)));
      await tx.oidc.payloads.upsert(row('AccessToken', 'expiry-past', new Date(now.getTime() - 1)));
      await tx.oidc.payloads.upsert(row('AccessToken', 'expiry-never', null));
    });
    const found = async (id: string, at: Date) => (await s.t.store.read.oidc.payloads.find('AccessToken', id, at))?.id;
    expect(await found('expiry-future', now)).toBe('expiry-future');
    expect(await found('expiry-future', new Date(now.getTime() + 60_000))).toBeUndefined();
    expect(await found('expiry-past', now)).toBeUndefined();
    expect(await found('expiry-never', new Date(now.getTime() + 1e12))).toBe('expiry-never');
    expect(await found('expiry-future', now)).toBe('expiry-future');
    // The kind is part of the key.
    expect(await s.t.store.read.oidc.payloads.find('RefreshToken', 'expiry-never', now)).toBeUndefined();
  });
});
