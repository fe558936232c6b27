/**
 * Issue 31 (the auth API's factor operations): a person signed in through this service's own
 * authorization server sets up an authenticator app for itself — AddMyAuthFactorOTP (a new secret,
 * not yet a factor), VerifyMyAuthFactorOTP (the app's code makes it one), ListMyAuthFactors,
 * RemoveMyAuthFactorOTP — with ZITADEL's errors; the secret is sealed at rest, and the next
 * sign-in asks for the code.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/login/totp.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/cb';
const PASSWORD = 'Passw0rd-Factors!';
const API_SCOPE = 'openid urn:zitadel:iam:org:project:id:zitadel:aud';

describeEachStore("the signed-in user's own authenticator app (auth API)", (dialect) => {
  let s: OidcTestServer;
  let config: oc.Configuration;
  let userId: string;
  let token: string;

  const signIn = () => signInThroughForm(config, REDIRECT, 'fiona', PASSWORD, { scope: API_SCOPE }, { state: true });
  const me = (method: string, path: string, body?: unknown, bearer = token) => s.api(method, `/auth/v1/users/me/auth_factors${path}`, body, bearer);
  const events = async () =>
    (await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, asc: true })).body.events.map((e: any) => e.type.type).filter((t: string) => t.startsWith('user.human.mfa'));

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = (await s.api('POST', '/management/v1/projects', { name: 'factors' })).body.id;
    const app = await createOidcApp(s, project, { name: 'factors', redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    userId = await importHuman(s, 'fiona', { password: PASSWORD });
    const result = await signIn();
    expect(result.callback, result.page?.html.slice(0, 300)).toBeTruthy();
    token = (await result.redeem()).access_token;
  }, 60_000);
  afterAll(() => s?.close());

  it('adds a secret, refuses a wrong code, confirms with the right one; lists it; refuses a second one; removes it', async () => {
    expect(await me('POST', '/_search', {})).toEqual({ status: 200, body: { result: [] } });
    // Nothing being set up: nothing to confirm.
    expect((await me('POST', '/otp/_verify', { code: '123456' })).body).toMatchObject({ code: 5, details: [{ id: 'COMMAND-3Mif9s' }] });

    const first = await me('POST', '/otp', {});
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(first.body.url);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(first.body.secret);
    expect(uri.searchParams.get('issuer')).toBe(new URL(s.issuer).host);
    expect(decodeURIComponent(uri.pathname)).toContain('fiona');
    expect(first.body.details.sequence).toBeTruthy();
    expect((await me('POST', '/_search')).body.result).toEqual([{ state: 'AUTH_FACTOR_STATE_NOT_READY', otp: {} }]);

    // A second add before confirming replaces the secret: the first one's code no longer fits.
    const second = await me('POST', '/otp');
    expect(second.status).toBe(200);
    expect(second.body.secret).not.toBe(first.body.secret);
    const wrong = await me('POST', '/otp/_verify', { code: totpCode(first.body.secret) });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 3, details: [{ id: 'EVENT-8isk2' }] });
    // Not counted toward the lockout: nothing is recorded for the user's code checks.
    expect(await events()).toEqual(['user.human.mfa.otp.added', 'user.human.mfa.init.skipped', 'user.human.mfa.otp.added', 'user.human.mfa.otp.added']);

    const verified = await me('POST', '/otp/_verify', { code: totpCode(second.body.secret) });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.details.sequence).toBeTruthy();
    expect((await me('POST', '/_search')).body.result).toEqual([{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }]);
    // The administrator sees the same factor.
    expect((await s.api('POST', `/management/v1/users/${userId}/auth_factors/_search`, {})).body.result).toEqual([{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }]);
    // Sealed at rest, never the base32 secret itself.
    const stored = await s.t.store.read.logins.otpSecret(userId);
    expect(stored).toMatch(/^sb1\./);
    expect(stored).not.toContain(second.body.secret);

    expect((await me('POST', '/otp')).body).toMatchObject({ code: 6, details: [{ id: 'COMMAND-do9se' }] });
    expect((await me('POST', '/otp', {})).status).toBe(409);
    expect((await me('POST', '/otp/_verify', { code: totpCode(second.body.secret) })).body).toMatchObject({ code: 9, details: [{ id: 'COMMAND-qx4ls' }] });

    // The next sign-in asks for the app's code after the password.
    const next = await signIn();
    expect(next.callback).toBeUndefined();
    expect(next.page?.html).toMatch(/<form method="post" action="[^"]+\/otp">/);

    const removed = await me('DELETE', '/otp');
    expect(removed.status).toBe(200);
    expect(await me('POST', '/_search')).toEqual({ status: 200, body: { result: [] } });
    expect((await me('DELETE', '/otp')).body).toMatchObject({ code: 5, details: [{ id: 'COMMAND-Hd9sd' }] });
    expect(await events()).toEqual([
      'user.human.mfa.otp.added',
      'user.human.mfa.init.skipped',
      'user.human.mfa.otp.added',
      'user.human.mfa.otp.added',
      'user.human.mfa.otp.verified',
      'user.human.mfa.otp.removed',
    ]);
  });

  it('refuses what a caller can get wrong: no token, an unknown field, a machine user', async () => {
    expect((await me('POST', '/otp', {}, 'not-a-token')).status).toBe(401);
    expect((await me('POST', '/otp/_verify', { code: '123456', codes: 1 })).status).toBe(400);
    expect((await me('POST', '/otp/_verify', {})).status).toBe(400);
    // The admin token belongs to a machine user: it has no factors and can set none up.
    expect(await me('POST', '/_search', {}, s.t.adminToken)).toEqual({ status: 200, body: { result: [] } });
    expect((await me('POST', '/otp', {}, s.t.adminToken)).body).toMatchObject({ code: 9, details: [{ id: 'COMMAND-SqyJz' }] });
  });
});
