/**
 * The OAuth 2.0 / OpenID Connect operations of the spec (marked `x-served-by`) against the REAL
 * server: server.ts on loopback (oidc-provider + login pages + API), as the server's oidc tests
 * build it. Every request goes through the ledger's recording fetch (installed as the global
 * fetch for this file, so the browser stand-in's requests are recorded too): each answer must be
 * documented and match the spec, and every documented status of these operations must be seen.
 */
import { createHash, createPrivateKey, randomBytes } from 'node:crypto';
import { PasswordVerifier } from '@identity-service/server/src/auth/password-verifier.js';
import { totpCode } from '@identity-service/server/src/domain/login/totp.js';
import { rotateKeys } from '@identity-service/server/src/oidc/keys.js';
import { processSecretBox } from '@identity-service/server/src/secrets/secret-box.js';
import { startJwtIssuer, startLegacyProxy } from '@identity-service/server/test/support/jwt-idp.js';
import { linkIn, outboxWorkerFor, readDroppedMail } from '@identity-service/server/test/support/mail.js';
import { Browser, createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingFetch, unexercised, violations } from './support/ledger.js';
import { operations, servedOutsideApi } from './support/spec.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const AFTER_LOGOUT = 'http://127.0.0.1:1/signed-out';
const PASSWORD = 'Secr3t-Passw0rd!';
const AUD = 'urn:service:iam:org:project:id:service:aud';
const ROLES = 'urn:service:iam:org:project:roles';

// An authenticator app's secret (base32), for the users who give a TOTP code after the password.
const OTP_SECRET = 'KRUGKIDROVUWG2ZAMJZG653OEBTG66BA';

const realFetch = globalThis.fetch;
let s: OidcTestServer;
let spaClientId: string;
let opaqueClientId: string;
let web: { clientId: string; clientSecret: string };
let machine: { clientId: string; clientSecret: string };
let projectId: string;
let carolId: string;
// One password check at a time and none waiting, so a check held by a test makes a login wait (503).
const passwordChecks = new PasswordVerifier({ workers: 1, maxQueued: 0 });
// glibc crypt(3), sha512-crypt with 300,000 rounds (password "password"): holds the check for a while.
const SLOW_HASH = '$6$rounds=300000$Qu3u3S4lt$/OAQs4KtaIT7elS0lW/3vJaCA45g18MqKa5FLfj.ZRWdYEBLMzxGH6UH5.d854.8tOPDPxt.a0TeqiN8YY.la0';

const form = (body: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(body),
  redirect: 'manual',
});
const basic = (clientId: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` });
const url = (path: string, query: Record<string, string> = {}) => `${s.issuer}${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const authorizeUrl = (clientId: string, scope: string, challenge: string, state = 'st') =>
  url('/oauth/v2/authorize', { client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope, state, code_challenge: challenge, code_challenge_method: 'S256' });

/**
 * Past the offer to set up an authenticator app (the instance's default login policy offers it at a
 * user's first sign-in): presses Skip, as the person would. Any other answer is handed back.
 */
async function pastSetupOffer(browser: Browser, step: { res: Response; location?: URL }, origin = s.issuer, stopAt = REDIRECT): Promise<{ res: Response; location?: URL }> {
  if (step.location) return step;
  const skip = /<form method="post" action="([^"]+\/otp\/setup\/skip)"/.exec(await step.res.clone().text())?.[1];
  return skip ? browser.follow(origin + skip, stopAt, { method: 'POST', form: {} }) : step;
}

/** Authorization request → login page → submit; returns the code (following redirects by hand, so each step is recorded). */
async function signIn(browser: Browser, clientId: string, scope: string, loginName: string) {
  const { verifier, challenge } = pkce();
  const start = await browser.request(authorizeUrl(clientId, scope, challenge));
  expect(start.status).toBe(303);
  const loginPath = start.headers.get('location')!;
  expect(loginPath).toMatch(/^\/ui\/login\//);
  const page = await browser.request(s.issuer + loginPath);
  expect(page.status).toBe(200);
  const done = await pastSetupOffer(browser, await browser.follow(s.issuer + loginPath, REDIRECT, { form: { loginName, password: PASSWORD } }));
  const code = done.location?.searchParams.get('code');
  expect(code, `no code: ${done.res.status}`).toBeTruthy();
  return { code: code!, verifier, loginPath };
}

async function exchange(clientId: string, code: string, verifier: string) {
  const res = await fetch(url('/oauth/v2/token'), form({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier }));
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; id_token: string; refresh_token?: string; scope: string };
}

beforeAll(async () => {
  const recorded = recordingFetch((request) => realFetch(request));
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => recorded(new Request(input, init))) as typeof fetch;
  s = await startOidcServer('sqlite', { maxPasswordAttempts: 2, passwordVerifier: passwordChecks });
  const project = await s.api('POST', '/management/v1/projects', { name: 'oauth contract' });
  projectId = project.body.id;
  await s.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' });
  const publicApp = {
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [AFTER_LOGOUT],
    appType: 'OIDC_APP_TYPE_USER_AGENT' as const,
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' as const,
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE' as const, 'OIDC_GRANT_TYPE_REFRESH_TOKEN' as const],
    devMode: true,
  };
  spaClientId = (await createOidcApp(s, projectId, { name: 'spa', ...publicApp, accessTokenType: 'OIDC_TOKEN_TYPE_JWT' })).clientId;
  opaqueClientId = (await createOidcApp(s, projectId, { name: 'opaque', ...publicApp, accessTokenType: 'OIDC_TOKEN_TYPE_BEARER' })).clientId;
  const webApp = await createOidcApp(s, projectId, { name: 'web', redirectUris: ['https://web.example.com/cb'] });
  web = { clientId: webApp.clientId, clientSecret: webApp.clientSecret! };
  const alice = await importHuman(s, 'alice', { password: PASSWORD });
  await s.api('POST', `/management/v1/users/${alice}/grants`, { projectId, roleKeys: ['reader'] });
  carolId = await importHuman(s, 'carol', { password: PASSWORD });
  await importHuman(s, 'olga', { password: PASSWORD, otpCode: OTP_SECRET });
  await importHuman(s, 'otto', { password: PASSWORD, otpCode: OTP_SECRET });
  // An authenticator app and a password to change (as an administrator's SetHumanPassword leaves it).
  expect(
    (
      await s.api('POST', '/management/v1/users/human/_import', {
        userName: 'olav',
        profile: { firstName: 'O', lastName: 'Lav' },
        email: { email: 'olav@example.com', isEmailVerified: true },
        password: PASSWORD,
        otpCode: OTP_SECRET,
        passwordChangeRequired: true,
      })
    ).status,
  ).toBe(200);
  const robot = await s.api('POST', '/management/v1/users/machine', { userName: 'robot', name: 'Robot' });
  const secret = await s.api('PUT', `/management/v1/users/${robot.body.userId}/secret`);
  machine = { clientId: secret.body.clientId, clientSecret: secret.body.clientSecret };
}, 60_000);

afterAll(async () => {
  globalThis.fetch = realFetch;
  await passwordChecks.close();
  await s?.close();
});

describe('OAuth 2.0 / OpenID Connect operations on the real server', () => {
  it('discovery and keys', async () => {
    const meta = await fetch(url('/.well-known/openid-configuration'));
    expect(meta.status).toBe(200);
    const body = await meta.json();
    expect(body.issuer).toBe(s.issuer);
    expect(body.token_endpoint).toBe(`${s.issuer}/oauth/v2/token`);
    const keys = await fetch(url('/oauth/v2/keys'));
    expect(keys.status).toBe(200);
    for (const key of (await keys.json()).keys) expect(key.d).toBeUndefined();
  });

  it('authorize: HTML error page when the client cannot be told', async () => {
    expect((await fetch(url('/oauth/v2/authorize', { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }), { redirect: 'manual' })).status).toBe(400);
    const unknown = await fetch(authorizeUrl('nope', 'openid', pkce().challenge), { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('invalid_client');
    // A request the client can be told about goes back to it with the error.
    const noPkce = await fetch(url('/oauth/v2/authorize', { client_id: spaClientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }), { redirect: 'manual' });
    expect(noPkce.status).toBe(303);
    expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('login page: form, missing fields, busy, another check of the user in flight, wrong password, lockout, unknown attempt', async () => {
    expect((await fetch(url('/ui/login/unknown-attempt'), { redirect: 'manual' })).status).toBe(400);
    const browser = new Browser();
    const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
    const loginUrl = s.issuer + start.headers.get('location')!;
    expect((await browser.request(loginUrl)).status).toBe(200);
    expect((await browser.request(loginUrl, { form: { loginName: 'carol', password: '' } })).status).toBe(400);
    const tooLarge = await browser.request(loginUrl, { form: { loginName: 'carol', password: 'x'.repeat(2 * 1024 * 1024) } });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.text()).toContain('Request too large');
    const held = passwordChecks.verify('password', SLOW_HASH);
    const busy = await browser.request(loginUrl, { form: { loginName: 'carol', password: 'wrong' } });
    expect(busy.status).toBe(503);
    expect(await busy.text()).toContain('try again');
    await held;
    // A check of carol's password is running: another password for her waits for it, then 429.
    const inFlight = passwordChecks.verify('other', SLOW_HASH, { account: carolId });
    const throttled = await browser.request(loginUrl, { form: { loginName: 'carol', password: 'wrong' } });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('5');
    expect(await throttled.text()).toContain('try again');
    await inFlight;
    const wrong = await browser.request(loginUrl, { form: { loginName: 'carol', password: 'wrong' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The login name or the password is wrong.');
    const locked = await browser.request(loginUrl, { form: { loginName: 'carol', password: 'wrong' } });
    expect(locked.status).toBe(403);
    expect(await locked.text()).toContain('locked');
  });

  it('second factor: the code form after the password, then a wrong, malformed, foreign, too large and right code; too many wrong codes lock', async () => {
    expect((await s.api('PUT', '/admin/v1/policies/lockout', { maxPasswordAttempts: 2, maxOtpAttempts: 2 })).status).toBe(200);
    const passPassword = async (loginName: string) => {
      const browser = new Browser();
      const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
      const loginUrl = s.issuer + start.headers.get('location')!;
      const codeForm = await browser.request(loginUrl, { form: { loginName, password: PASSWORD } });
      expect(codeForm.status).toBe(200);
      expect(await codeForm.text()).toContain('authenticator app');
      return { browser, otpUrl: `${loginUrl}/otp`, passwordUrl: `${loginUrl}/password` };
    };
    const olga = await passPassword('olga');
    expect((await olga.browser.request(olga.otpUrl, { form: { code: '' } })).status).toBe(400);
    expect((await olga.browser.request(olga.otpUrl, { form: { code: 'x'.repeat(2 * 1024 * 1024) } })).status).toBe(413);
    expect((await new Browser().request(olga.otpUrl, { form: { code: totpCode(OTP_SECRET) } })).status).toBe(400);
    expect((await olga.browser.request(olga.otpUrl, { form: { code: totpCode(OTP_SECRET, Date.now() + 3_600_000) } })).status).toBe(401);
    const done = await olga.browser.request(olga.otpUrl, { form: { code: totpCode(OTP_SECRET) } });
    expect(done.status).toBe(303);
    // LoginOtp 200 (a new password is required next), then LoginPasswordChange 400, 413, 303.
    const olav = await passPassword('olav');
    const newPasswordForm = await olav.browser.request(olav.otpUrl, { form: { code: totpCode(OTP_SECRET) } });
    expect(newPasswordForm.status).toBe(200);
    expect(await newPasswordForm.text()).toContain('Choose a new password');
    expect((await new Browser().request(olav.passwordUrl, { form: { password: 'N3w-Passw0rd!x', passwordConfirmation: 'N3w-Passw0rd!x' } })).status).toBe(400);
    expect((await olav.browser.request(olav.passwordUrl, { form: { password: 'N3w-Passw0rd!x', passwordConfirmation: 'other' } })).status).toBe(400);
    const weak = await olav.browser.request(olav.passwordUrl, { form: { password: 'short', passwordConfirmation: 'short' } });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('at least 8 characters');
    expect((await olav.browser.request(olav.passwordUrl, { form: { password: 'x'.repeat(2 * 1024 * 1024), passwordConfirmation: '' } })).status).toBe(413);
    expect((await olav.browser.request(olav.passwordUrl, { form: { password: 'N3w-Passw0rd!x', passwordConfirmation: 'N3w-Passw0rd!x' } })).status).toBe(303);

    const otto = await passPassword('otto');
    const wrong = totpCode(OTP_SECRET, Date.now() + 7_200_000);
    expect((await otto.browser.request(otto.otpUrl, { form: { code: wrong } })).status).toBe(401);
    const locked = await otto.browser.request(otto.otpUrl, { form: { code: wrong } });
    expect(locked.status).toBe(403);
    expect(await locked.text()).toContain('locked');

    // Without a lockout (ZITADEL's default): after three wrong codes the next check waits (429, Retry-After).
    expect((await s.api('PUT', '/admin/v1/policies/lockout', { maxPasswordAttempts: 2, maxOtpAttempts: 0 })).status).toBe(200);
    const oona = await s.api('POST', '/management/v1/users/human/_import', {
      userName: 'oona',
      profile: { firstName: 'O', lastName: 'Ona' },
      email: { email: 'oona@example.com', isEmailVerified: true },
      password: PASSWORD,
      otpCode: OTP_SECRET,
    });
    expect(oona.status).toBe(200);
    const guesser = await passPassword('oona');
    for (let i = 1; i <= 3; i++) expect((await guesser.browser.request(guesser.otpUrl, { form: { code: totpCode(OTP_SECRET, Date.now() + i * 7_200_000) } })).status).toBe(401);
    const early = await guesser.browser.request(guesser.otpUrl, { form: { code: totpCode(OTP_SECRET) } });
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('1');
  });

  it('code + PKCE, token errors, consent step for offline_access, refresh', async () => {
    const browser = new Browser();
    const { code, verifier } = await signIn(browser, spaClientId, `openid profile offline_access ${ROLES} ${AUD}`, 'alice');
    const tokens = await exchange(spaClientId, code, verifier);
    expect(tokens.refresh_token).toBeTruthy();
    const refresh = () => fetch(url('/oauth/v2/token'), form({ grant_type: 'refresh_token', client_id: spaClientId, refresh_token: tokens.refresh_token! }));
    expect((await refresh()).status).toBe(200);
    // A code is used once; replaying it also revokes what it granted (RFC 6749 §4.1.2).
    const again = await fetch(url('/oauth/v2/token'), form({ grant_type: 'authorization_code', client_id: spaClientId, code, redirect_uri: REDIRECT, code_verifier: verifier }));
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
    const revoked = await refresh();
    expect(revoked.status).toBe(400);
    expect((await revoked.json()).error).toBe('invalid_grant');
    const unsupported = await fetch(url('/oauth/v2/token'), form({ grant_type: 'password', client_id: spaClientId }));
    expect(unsupported.status).toBe(400);
    expect((await unsupported.json()).error).toBe('unsupported_grant_type');
    const wrongSecret = await fetch(url('/oauth/v2/token'), form({ grant_type: 'client_credentials' }, basic(web.clientId, 'wrong')));
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get('www-authenticate')).toContain('invalid_client');
    const cc = await fetch(url('/oauth/v2/token'), form({ grant_type: 'client_credentials', scope: AUD }, basic(machine.clientId, machine.clientSecret)));
    expect(cc.status).toBe(200);
    expect((await cc.json()).id_token).toBeUndefined();
    // With openid, an ID token too, as ZITADEL answers (checked against the spec's token response).
    const ccOpenid = await fetch(url('/oauth/v2/token'), form({ grant_type: 'client_credentials', scope: `openid ${AUD}` }, basic(machine.clientId, machine.clientSecret)));
    expect(ccOpenid.status).toBe(200);
    expect(await ccOpenid.json()).toMatchObject({ scope: `openid ${AUD}`, id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
  });

  it("the JWT-profile grant: a machine user's assertion for a token and an ID token; a refused one", async () => {
    const robot = await s.api('POST', '/management/v1/users/machine', { userName: 'key-robot', name: 'Key robot', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' });
    const key = await s.api('POST', `/management/v1/users/${robot.body.userId}/keys`, { type: 'KEY_TYPE_JSON' });
    const file = JSON.parse(Buffer.from(key.body.keyDetails, 'base64').toString('utf8')) as { keyId: string; key: string; userId: string };
    const sign = (aud: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: file.keyId })
        .setIssuer(file.userId)
        .setSubject(file.userId)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(createPrivateKey(file.key));
    const grant = async (aud: string) => fetch(url('/oauth/v2/token'), form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: await sign(aud), scope: `openid ${AUD}` }));
    const ok = await grant(s.issuer);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ token_type: 'Bearer', scope: `openid ${AUD}`, id_token: expect.any(String) });
    const refused = await grant('https://elsewhere.example.com');
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');
  });

  it('introspection and revocation', async () => {
    const { code, verifier } = await signIn(new Browser(), opaqueClientId, `openid offline_access ${ROLES} ${AUD}`, 'alice');
    const tokens = await exchange(opaqueClientId, code, verifier);
    const intro = await fetch(url('/oauth/v2/introspect'), form({ token: tokens.access_token }, basic(web.clientId, web.clientSecret)));
    expect(intro.status).toBe(200);
    const body = await intro.json();
    expect(body).toMatchObject({ active: true, aud: [projectId, opaqueClientId, 'service'] });
    expect(body[ROLES]).toHaveProperty('reader');
    expect((await fetch(url('/oauth/v2/introspect'), form({}, basic(web.clientId, web.clientSecret)))).status).toBe(400);
    expect((await fetch(url('/oauth/v2/introspect'), form({ token: tokens.access_token }, basic(web.clientId, 'wrong')))).status).toBe(401);

    // Revoking the refresh token (a public client names itself) ends it.
    expect((await fetch(url('/oauth/v2/revoke'), form({ token: tokens.refresh_token!, client_id: opaqueClientId }))).status).toBe(200);
    const after = await fetch(url('/oauth/v2/introspect'), form({ token: tokens.refresh_token! }, basic(web.clientId, web.clientSecret)));
    expect(await after.json()).toEqual({ active: false });
    expect((await fetch(url('/oauth/v2/revoke'), form({ client_id: opaqueClientId }))).status).toBe(400);
    expect((await fetch(url('/oauth/v2/revoke'), form({ token: 'x' }, basic(web.clientId, 'wrong')))).status).toBe(401);
  });

  it('pushed authorization request: the request_uri stands for the parameters at the authorization endpoint', async () => {
    const { verifier, challenge } = pkce();
    const params = { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'pushed', code_challenge: challenge, code_challenge_method: 'S256' };
    const pushed = await fetch(url('/oauth/v2/par'), form({ client_id: spaClientId, ...params }));
    expect(pushed.status).toBe(201);
    const { request_uri, expires_in } = await pushed.json();
    expect(request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(expires_in).toBeGreaterThan(0);

    const browser = new Browser();
    const start = await browser.request(url('/oauth/v2/authorize', { client_id: spaClientId, request_uri }));
    expect(start.status).toBe(303);
    const loginPath = start.headers.get('location')!;
    expect(loginPath).toMatch(/^\/ui\/login\//);
    const done = await pastSetupOffer(browser, await browser.follow(s.issuer + loginPath, REDIRECT, { form: { loginName: 'alice', password: PASSWORD } }));
    expect(done.location?.searchParams.get('state')).toBe('pushed');
    const tokens = await exchange(spaClientId, done.location!.searchParams.get('code')!, verifier);
    expect(tokens.id_token).toBeTruthy();

    // A confidential client authenticates as at the token endpoint (and names itself: client_id is an
    // authorization request parameter, RFC 9126 §2.1); an unregistered redirect URI is refused before any browser sees it.
    const confidential = await fetch(url('/oauth/v2/par'), form({ client_id: web.clientId, ...params, redirect_uri: 'https://web.example.com/cb' }, basic(web.clientId, web.clientSecret)));
    expect(confidential.status).toBe(201);
    expect((await fetch(url('/oauth/v2/par'), form({ client_id: web.clientId, ...params, redirect_uri: 'https://web.example.com/cb' }, basic(web.clientId, 'wrong')))).status).toBe(401);
    expect((await fetch(url('/oauth/v2/par'), form({ client_id: spaClientId, ...params, redirect_uri: 'http://evil.example/cb' }))).status).toBe(400);
  });

  it('userinfo: claims, no token, no openid scope (GET and POST)', async () => {
    const { code, verifier } = await signIn(new Browser(), spaClientId, 'openid profile email', 'alice');
    const { access_token } = await exchange(spaClientId, code, verifier);
    const noOpenid = await (await fetch(url('/oauth/v2/token'), form({ grant_type: 'client_credentials', scope: AUD }, basic(machine.clientId, machine.clientSecret)))).json();
    for (const method of ['GET', 'POST']) {
      const ok = await fetch(url('/oidc/v1/userinfo'), { method, headers: { authorization: `Bearer ${access_token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ preferred_username: expect.stringMatching(/^alice@/), email: 'alice@example.com' });
      const none = await fetch(url('/oidc/v1/userinfo'), { method });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain('invalid_token');
      const scope = await fetch(url('/oidc/v1/userinfo'), { method, headers: { authorization: `Bearer ${noOpenid.access_token}` } });
      expect(scope.status).toBe(403);
    }
    const huge = await fetch(url('/oidc/v1/userinfo'), {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a='.padEnd(2 * 1024 * 1024, 'x'),
    });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error).toBe('invalid_request');
  });

  it("login page 403: the application's project refuses a user without a grant (projectRoleCheck)", async () => {
    const checked = (await s.api('POST', '/management/v1/projects', { name: 'role-checked', projectRoleCheck: true })).body.id;
    const app = await createOidcApp(s, checked, { name: 'checked', redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    await importHuman(s, 'petra', { password: PASSWORD });
    const browser = new Browser();
    const start = await browser.request(authorizeUrl(app.clientId, 'openid', pkce().challenge));
    const loginUrl = s.issuer + start.headers.get('location')!;
    const refused = await pastSetupOffer(browser, await browser.follow(loginUrl, REDIRECT, { form: { loginName: 'petra', password: PASSWORD } }));
    expect(refused.location).toBeUndefined();
    expect(refused.res.status).toBe(403);
    expect(await refused.res.text()).toContain('You have no role in checked');
  });

  it('end_session: confirmation page, errors, confirm with and without a redirect, signed-out page', async () => {
    const browser = new Browser();
    const { code, verifier } = await signIn(browser, spaClientId, 'openid', 'alice');
    const { id_token } = await exchange(spaClientId, code, verifier);
    const page = await browser.request(url('/oidc/v1/end_session', { id_token_hint: id_token, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye' }));
    expect(page.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(await page.text())![1];
    const confirmed = await browser.request(url('/oidc/v1/end_session/confirm'), { form: { xsrf, logout: 'yes' } });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${AFTER_LOGOUT}?state=bye`);
    // Without a post-logout redirect URI the browser lands on the signed-out page.
    const plain = await browser.request(url('/oidc/v1/end_session'));
    const xsrf2 = /name="xsrf" value="([^"]+)"/.exec(await plain.text())![1];
    const toSuccess = await browser.request(url('/oidc/v1/end_session/confirm'), { form: { xsrf: xsrf2, logout: 'yes' } });
    expect(toSuccess.status).toBe(303);
    const success = await browser.request(new URL(toSuccess.headers.get('location')!, s.issuer).href);
    expect(success.status).toBe(200);

    expect((await fetch(url('/oidc/v1/end_session', { client_id: spaClientId, post_logout_redirect_uri: 'http://evil.example/' }))).status).toBe(400);
    expect((await fetch(url('/oidc/v1/end_session/confirm'), form({ xsrf: 'forged', logout: 'yes' }))).status).toBe(400);
  });
});

describe('sign-in through a JWT identity provider', () => {
  it("provider button, the proxy's JWT endpoint, callback and link page, with their refusals", async () => {
    const issuer = await startJwtIssuer();
    const proxy = await startLegacyProxy(s.issuer, 'x-legacy');
    try {
      const jwtIdp = (autoRegister: boolean, keysEndpoint = issuer.keysEndpoint, name = `legacy ${autoRegister}`) =>
        s.api('POST', '/management/v1/idps/jwt', { name, jwtEndpoint: proxy.jwtEndpoint, issuer: issuer.issuer, keysEndpoint, headerName: 'x-legacy', autoRegister });
      const auto = (await jwtIdp(true)).body.idpId;
      const manual = (await jwtIdp(false)).body.idpId;
      const brokenKeys = (await jwtIdp(true, 'http://127.0.0.1:1/keys', 'broken keys')).body.idpId;
      const daveId = await importHuman(s, 'dave', { password: PASSWORD });

      /** A new attempt in a new browser, up to the login page. */
      const attempt = async () => {
        const browser = new Browser();
        const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
        const loginUrl = s.issuer + start.headers.get('location')!;
        const page = await (await browser.request(loginUrl)).text();
        expect(page).toContain(`value="${auto}"`);
        return { browser, idpUrl: `${loginUrl}/idp` };
      };
      /** Choose `idpId`; returns the proxy's answer (the JWT endpoint's, relayed). */
      const choose = async (idpId: string) => {
        const a = await attempt();
        const chosen = await a.browser.request(a.idpUrl, { form: { idpId } });
        expect(chosen.status).toBe(303);
        const toProxy = chosen.headers.get('location')!;
        // The proxy's own request to the service is what the ledger records as JwtIdpAuthorize.
        return { ...a, toProxy, answer: await a.browser.request(toProxy) };
      };

      // LoginWithIdp 400 (a provider not offered) and 413.
      const a = await attempt();
      expect((await a.browser.request(a.idpUrl, { form: { idpId: 'unknown' } })).status).toBe(400);
      expect((await a.browser.request(a.idpUrl, { form: { idpId: 'x'.repeat(2 * 1024 * 1024) } })).status).toBe(413);

      // JwtIdpAuthorize 400 (no parameters), 401 (no token), 502 (keys unreachable).
      expect((await fetch(url('/ui/login/login/jwt/authorize'))).status).toBe(400);
      proxy.setToken(undefined);
      expect((await choose(auto)).answer.status).toBe(401);
      proxy.setToken(await issuer.sign({ sub: 'contract-1', email: 'c1@example.com' }));
      expect((await choose(brokenKeys)).answer.status).toBe(502);

      // JwtIdpAuthorize 302 → IdpCallback 303 (auto-registered and signed in).
      const signedIn = await choose(auto);
      expect(signedIn.answer.status).toBe(302);
      const callback = signedIn.answer.headers.get('location')!;
      // IdpCallback 400: the callback in another browser.
      expect((await new Browser().request(callback)).status).toBe(400);
      const done = await signedIn.browser.request(callback);
      expect(done.status).toBe(303);

      // JwtIdpAuthorize 403: the provider deactivated while the proxy's request was on its way.
      const pending = await attempt();
      const chosen = await pending.browser.request(pending.idpUrl, { form: { idpId: manual } });
      await s.api('POST', `/management/v1/idps/${manual}/_deactivate`, {});
      expect((await pending.browser.request(chosen.headers.get('location')!)).status).toBe(403);
      await s.api('POST', `/management/v1/idps/${manual}/_reactivate`, {});

      // IdpCallback 200: the link page; IdpLink 400, 401, 429, 503, 403 (locked), 303.
      proxy.setToken(await issuer.sign({ sub: 'contract-2', preferred_username: 'c2' }));
      const linking = await choose(manual);
      const linkPage = await linking.browser.request(linking.answer.headers.get('location')!);
      expect(linkPage.status).toBe(200);
      const html = await linkPage.text();
      const linkUrl = s.issuer + /action="([^"]+\/idp\/link)"/.exec(html)![1];
      const state = /name="state" value="([^"]+)"/.exec(html)![1].replace(/&#61;/g, '=');
      expect((await linking.browser.request(linkUrl, { form: { state, loginName: 'dave', password: '' } })).status).toBe(400);
      expect((await linking.browser.request(linkUrl, { form: { state, loginName: 'dave', password: 'x'.repeat(2 * 1024 * 1024) } })).status).toBe(413);
      const held = passwordChecks.verify('password', SLOW_HASH);
      expect((await linking.browser.request(linkUrl, { form: { state, loginName: 'dave', password: 'wrong' } })).status).toBe(503);
      await held;
      const daveInFlight = passwordChecks.verify('other', SLOW_HASH, { account: daveId });
      expect((await linking.browser.request(linkUrl, { form: { state, loginName: 'dave', password: 'wrong' } })).status).toBe(429);
      await daveInFlight;
      expect((await linking.browser.request(linkUrl, { form: { state, loginName: 'alice', password: PASSWORD } })).status).toBe(303);
      proxy.setToken(await issuer.sign({ sub: 'contract-3' }));
      const another = await choose(manual);
      const page3 = await (await another.browser.request(another.answer.headers.get('location')!)).text();
      const url3 = s.issuer + /action="([^"]+\/idp\/link)"/.exec(page3)![1];
      const state3 = /name="state" value="([^"]+)"/.exec(page3)![1].replace(/&#61;/g, '=');
      expect((await another.browser.request(url3, { form: { state: state3, loginName: 'dave', password: 'wrong' } })).status).toBe(401);
      expect((await another.browser.request(url3, { form: { state: state3, loginName: 'dave', password: 'wrong' } })).status).toBe(403);
      // IdpLink 200: the account has an authenticator app; the link waits for its code.
      proxy.setToken(await issuer.sign({ sub: 'contract-4' }));
      const fourth = await choose(manual);
      const page4 = await (await fourth.browser.request(fourth.answer.headers.get('location')!)).text();
      const url4 = s.issuer + /action="([^"]+\/idp\/link)"/.exec(page4)![1];
      const state4 = /name="state" value="([^"]+)"/.exec(page4)![1].replace(/&#61;/g, '=');
      const codeForm = await fourth.browser.request(url4, { form: { state: state4, loginName: 'olga', password: PASSWORD } });
      expect(codeForm.status).toBe(200);
      expect(await codeForm.text()).toContain('authenticator app');
    } finally {
      await proxy.close();
      await issuer.close();
    }
  });
});

describe('sign-in through an OIDC identity provider', () => {
  it("the provider button, the upstream's answer at the redirect URI, with its refusals", async () => {
    // The upstream is a second instance of this service; its answers are checked against the spec too.
    const upstream = await startOidcServer('sqlite');
    let closed = false;
    try {
      const callbackUri = `${s.issuer}/ui/login/login/externalidp/callback`;
      const orgId = (await upstream.api('POST', '/management/v1/orgs', { name: 'upstream' })).body.id;
      const inUpstream = { 'x-service-orgid': orgId };
      const upstreamProject = (await upstream.api('POST', '/management/v1/projects', { name: 'partner' }, undefined, inUpstream)).body.id;
      const client = (
        await upstream.api(
          'POST',
          `/management/v1/projects/${upstreamProject}/apps/oidc`,
          {
            name: 'identity-service',
            redirectUris: [callbackUri],
            responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
            grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
            appType: 'OIDC_APP_TYPE_WEB',
            authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
            devMode: true,
          },
          undefined,
          inUpstream,
        )
      ).body;
      await importHuman(upstream, 'erin', { password: PASSWORD });
      const oidcIdp = async (name: string, clientSecret = client.clientSecret, issuer = upstream.issuer) =>
        (await s.api('POST', '/management/v1/idps/oidc', { name, clientId: client.clientId, clientSecret, issuer, scopes: ['email'], autoRegister: true })).body.idpId as string;
      const good = await oidcIdp('partner oidc');
      const wrongSecret = await oidcIdp('partner wrong secret', 'not-the-secret');
      const gone = await oidcIdp('partner gone', 'x', 'http://127.0.0.1:1');

      const attempt = async () => {
        const browser = new Browser();
        const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
        const loginUrl = s.issuer + start.headers.get('location')!;
        expect(await (await browser.request(loginUrl)).text()).toContain(`value="${good}"`);
        return { browser, idpUrl: `${loginUrl}/idp` };
      };
      /** Choose the provider and sign in at the upstream; stops where the upstream sends the browser back. */
      const throughUpstream = async (idpId: string) => {
        const a = await attempt();
        const chosen = await a.browser.request(a.idpUrl, { form: { idpId } });
        expect(chosen.status).toBe(303);
        const toUpstream = chosen.headers.get('location')!;
        const loginPage = await a.browser.follow(toUpstream, callbackUri);
        const action = /<form method="post" action="([^"]+)"/.exec(await loginPage.res.text())![1];
        const back = await pastSetupOffer(
          a.browser,
          await a.browser.follow(upstream.issuer + action.replace(/&amp;/g, '&'), callbackUri, { form: { loginName: 'erin', password: PASSWORD } }),
          upstream.issuer,
          callbackUri,
        );
        expect(back.location).toBeTruthy();
        return { ...a, back: back.location!.href, state: new URL(toUpstream).searchParams.get('state')! };
      };

      // LoginWithIdp 502: the upstream's discovery cannot be read.
      const a = await attempt();
      expect((await a.browser.request(a.idpUrl, { form: { idpId: gone } })).status).toBe(502);

      // OidcIdpCallback 302 → IdpCallback 303 (registered and signed in).
      const ok = await throughUpstream(good);
      const answer = await ok.browser.request(ok.back);
      expect(answer.status).toBe(302);
      expect((await ok.browser.request(answer.headers.get('location')!)).status).toBe(303);

      // 400 (a forged state), 401 (the upstream refuses the client's secret), 403 (the upstream's error).
      expect((await fetch(`${callbackUri}?state=forged&code=x`)).status).toBe(400);
      const refused = await throughUpstream(wrongSecret);
      expect((await refused.browser.request(refused.back)).status).toBe(401);
      expect((await fetch(`${callbackUri}?${new URLSearchParams({ state: refused.state, error: 'access_denied' })}`)).status).toBe(403);

      // 502: the upstream went away between the person's sign-in there and the code exchange.
      const last = await throughUpstream(good);
      await upstream.close();
      closed = true;
      expect((await last.browser.request(last.back)).status).toBe(502);
    } finally {
      if (!closed) await upstream.close();
    }
  });
});

describe("the mails' pages", () => {
  it('email verification and user initialisation: form, done, wrong code, no open code, too large', async () => {
    const mailed = async (body: Record<string, unknown>) => {
      const created = await s.api('POST', '/management/v1/users/human/_import', body);
      expect(created.status).toBe(200);
      const { worker, mailDropDir } = outboxWorkerFor(s);
      while ((await worker.runOnce()) > 0);
      const to = (body.email as { email: string }).email;
      return linkIn((await readDroppedMail(mailDropDir)).find(({ mail }) => (mail.to && 'text' in mail.to ? mail.to.text : '') === to)!.mail);
    };
    const post = (path: string, body: Record<string, string>) => fetch(url(path), form(body));

    const verify = await mailed({ userName: 'vera', profile: { firstName: 'V', lastName: 'R' }, email: { email: 'vera@example.com' }, password: PASSWORD });
    const userID = verify.searchParams.get('userID')!;
    expect((await fetch(url('/ui/login/mail/verification', { userID }))).status).toBe(200);
    expect((await fetch(url('/ui/login/mail/verification'))).status).toBe(400);
    expect((await fetch(url('/ui/login/mail/verification', { userID, code: 'WRONG1' }))).status).toBe(400);
    expect((await post('/ui/login/mail/verification', { userID, code: 'WRONG2' })).status).toBe(400);
    expect((await post('/ui/login/mail/verification', { userID, code: 'WRONG3' })).status).toBe(400);
    // Three wrong codes: the next check within a second is refused unlooked-at (the code throttle).
    expect((await fetch(url('/ui/login/mail/verification', { userID, code: verify.searchParams.get('code')! }))).status).toBe(429);
    expect((await post('/ui/login/mail/verification', { userID, code: verify.searchParams.get('code')! })).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await post('/ui/login/mail/verification', { userID, code: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(413);
    expect((await post('/ui/login/mail/verification', { userID, code: verify.searchParams.get('code')! })).status).toBe(200);
    // A used link says the email is verified already; no open code for an unverified email (or no such user) is 404.
    expect((await fetch(verify)).status).toBe(200);
    expect((await post('/ui/login/mail/verification', { userID, code: 'AGAIN1' })).status).toBe(200);
    expect((await fetch(url('/ui/login/mail/verification', { userID: 'no-such-user', code: 'AGAIN1' }))).status).toBe(404);
    expect((await post('/ui/login/mail/verification', { userID: 'no-such-user', code: 'AGAIN1' })).status).toBe(404);

    const init = await mailed({ userName: 'ivan', profile: { firstName: 'I', lastName: 'N' }, email: { email: 'ivan@example.com' } });
    const initUser = init.searchParams.get('userID')!;
    expect((await fetch(init)).status).toBe(200);
    const set = (password: string, code = init.searchParams.get('code')!) => post('/ui/login/user/init', { userID: initUser, code, password, passwordConfirmation: password });
    expect((await set('short')).status).toBe(400);
    expect((await set('x'.repeat(2 * 1024 * 1024))).status).toBe(413);
    for (const wrong of ['WRONG1', 'WRONG2', 'WRONG3']) expect((await set(PASSWORD, wrong)).status).toBe(400);
    expect((await set(PASSWORD)).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await set(PASSWORD)).status).toBe(200);
    expect((await fetch(init)).status).toBe(404);
    expect((await set(PASSWORD)).status).toBe(404);

    // The password reset mail's page: PasswordResetPage 200/404, PasswordResetSubmit 200/400/404/413.
    expect((await fetch(url('/ui/login/password/init', { userID: initUser }))).status).toBe(404);
    expect((await s.api('POST', `/management/v1/users/${initUser}/password/_reset`, { type: 'NOTIFICATION_TYPE_Email' })).status).toBe(200);
    const { worker, mailDropDir } = outboxWorkerFor(s);
    while ((await worker.runOnce()) > 0);
    const reset = linkIn((await readDroppedMail(mailDropDir)).find(({ mail }) => /Reset password/.test(mail.subject ?? ''))!.mail);
    expect(reset.pathname).toBe('/ui/login/password/init');
    expect((await fetch(reset)).status).toBe(200);
    const choose = (password: string, code = reset.searchParams.get('code')!) => post('/ui/login/password/init', { userID: initUser, code, password, passwordConfirmation: password });
    expect((await choose('short')).status).toBe(400);
    for (const wrong of ['WRONG1', 'WRONG2', 'WRONG3']) expect((await choose(PASSWORD, wrong)).status).toBe(400);
    expect((await choose('Reset-Passw0rd!')).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await choose('x'.repeat(2 * 1024 * 1024))).status).toBe(413);
    expect((await choose('Reset-Passw0rd!')).status).toBe(200);
    expect((await choose('Reset-Passw0rd!')).status).toBe(404);

    // "Forgot your password?": LoginPasswordResetForm 200/400/404, LoginPasswordResetRequest 200/400/404/413.
    const browser = new Browser();
    const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
    const loginUrl = s.issuer + start.headers.get('location')!;
    expect(await (await browser.request(loginUrl)).text()).toContain('id="forgot-password"');
    const resetUrl = `${loginUrl}/password/reset`;
    expect((await browser.request(resetUrl)).status).toBe(200);
    expect((await new Browser().request(resetUrl)).status).toBe(400);
    expect((await browser.request(resetUrl, { form: { loginName: '' } })).status).toBe(400);
    expect((await browser.request(resetUrl, { form: { loginName: 'x'.repeat(2 * 1024 * 1024) } })).status).toBe(413);
    const sent = await browser.request(resetUrl, { form: { loginName: 'alice' } });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('Check your mail');
    // Hidden by the login policy: neither the link nor the pages.
    const { details: _details, isDefault: _isDefault, ...policy } = (await s.api('GET', '/admin/v1/policies/login')).body.policy;
    expect((await s.api('PUT', '/admin/v1/policies/login', { ...policy, hidePasswordReset: true })).status).toBe(200);
    expect(await (await browser.request(loginUrl)).text()).not.toContain('forgot-password');
    expect((await browser.request(resetUrl)).status).toBe(404);
    expect((await browser.request(resetUrl, { form: { loginName: 'alice' } })).status).toBe(404);
    expect((await s.api('PUT', '/admin/v1/policies/login', { ...policy, hidePasswordReset: false })).status).toBe(200);
  });
});

describe('registration and the pages without an application', () => {
  it('register: form, expired attempt, weak password, too large, a taken and a new email answered alike, too many from one address; refused by the login policy; a new verification mail; / and /ui/login', async () => {
    const browser = new Browser();
    const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
    const loginUrl = s.issuer + start.headers.get('location')!;
    expect(await (await browser.request(loginUrl)).text()).toContain('id="register"');
    const registerUrl = `${loginUrl}/register`;
    const person = (email: string, password = PASSWORD) => ({ firstName: 'Reg', lastName: 'Istered', email, password, passwordConfirmation: password });
    expect((await browser.request(registerUrl)).status).toBe(200);
    expect((await new Browser().request(registerUrl)).status).toBe(400);
    expect((await browser.request(registerUrl, { form: person('reg@example.com', 'weak') })).status).toBe(400);
    expect((await browser.request(registerUrl, { form: person('x'.repeat(2 * 1024 * 1024)) })).status).toBe(413);
    const taken = await s.api('POST', '/management/v1/users/human/_import', {
      userName: 'taken@example.com',
      profile: { firstName: 'T', lastName: 'K' },
      email: { email: 'taken@example.com' },
      password: PASSWORD,
    });
    expect(taken.status).toBe(200);
    // A taken address and a new one get the same page (the owner of the taken one is mailed instead).
    const sent = async (email: string) => {
      const res = await browser.request(registerUrl, { form: person(email) });
      return { status: res.status, text: (await res.text()).replace(/[^<>]*@example\.com/g, 'ADDRESS') };
    };
    const takenAnswer = await sent('taken@example.com');
    expect(takenAnswer.status).toBe(200);
    expect(takenAnswer.text).toContain('Check your inbox');
    expect(await sent('reg@example.com')).toEqual(takenAnswer);
    // LoginRegisterSubmit 429: beyond REGISTRATIONS_PER_ADDRESS_PER_HOUR (10) accepted forms from this address.
    for (let i = 0; i < 8; i++) expect((await sent(`more-${i}@example.com`)).status).toBe(200);
    const tooMany = await browser.request(registerUrl, { form: person('one-too-many@example.com') });
    expect(tooMany.status).toBe(429);
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await tooMany.text()).toContain('Too many new accounts from your network');

    // The instance's login policy without allowRegister: no link, the page and the form refuse.
    const { details: _details, isDefault: _isDefault, ...policy } = (await s.api('GET', '/admin/v1/policies/login')).body.policy;
    expect((await s.api('PUT', '/admin/v1/policies/login', { ...policy, allowRegister: false })).status).toBe(200);
    try {
      const other = new Browser();
      const again = s.issuer + (await other.request(authorizeUrl(spaClientId, 'openid', pkce().challenge))).headers.get('location')!;
      expect(await (await other.request(again)).text()).not.toContain('id="register"');
      expect((await other.request(`${again}/register`)).status).toBe(403);
      expect((await other.request(`${again}/register`, { form: person('nobody@example.com') })).status).toBe(403);
    } finally {
      expect((await s.api('PUT', '/admin/v1/policies/login', { ...policy, allowRegister: true })).status).toBe(200);
    }

    // A new verification mail: EmailVerificationResend 200 (three times), 429, 404, 413, and 200 once verified.
    const userID = (await s.t.store.read.logins.usersByNameKey('reg@example.com'))[0]!.user.id;
    const resend = (body: Record<string, string>) => fetch(url('/ui/login/mail/verification/resend'), form(body));
    for (let i = 0; i < 3; i++) expect((await resend({ userID })).status).toBe(200);
    const limited = await resend({ userID });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await resend({ userID: 'no-such-user' })).status).toBe(404);
    expect((await resend({ userID: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(413);
    expect((await resend({ userID: taken.body.userId })).status).toBe(200);

    const root = await fetch(url('/'));
    expect([root.status, root.headers.get('content-type')]).toEqual([200, 'text/html; charset=UTF-8']);
    expect((await fetch(url('/ui/login'))).status).toBe(200);
  });
});

describe('setting up an authenticator app at sign-in', () => {
  it('the offer: a malformed, a wrong and the right code; skip without and with the password check; a forced setup cannot be skipped', async () => {
    const stamp = `${Date.now() % 1_000_000_000}`;
    await importHuman(s, `ursula-${stamp}`, { password: PASSWORD });
    await importHuman(s, `uwe-${stamp}`, { password: PASSWORD });
    const forcedOrg = `${stamp}8`;
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          {
            orgId: forcedOrg,
            org: { name: `forced-${stamp}` },
            loginPolicy: { allowUsernamePassword: true, forceMfa: true, secondFactors: ['SECOND_FACTOR_TYPE_OTP'] },
            humanUsers: [
              { userId: `${forcedOrg}1`, user: { userName: 'fred', profile: { firstName: 'F', lastName: 'Red' }, email: { email: 'fred@example.com', isEmailVerified: true }, password: PASSWORD } },
            ],
          },
        ],
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const passPassword = async (loginName: string) => {
      const browser = new Browser();
      const start = await browser.request(authorizeUrl(spaClientId, 'openid', pkce().challenge));
      const loginUrl = s.issuer + start.headers.get('location')!;
      const page = await browser.request(loginUrl, { form: { loginName, password: PASSWORD } });
      expect(page.status).toBe(200);
      const html = await page.text();
      return { browser, html, setupUrl: `${loginUrl}/otp/setup`, skipUrl: `${loginUrl}/otp/setup/skip` };
    };
    const ursula = await passPassword(`ursula-${stamp}`);
    expect(ursula.html).toContain('id="skip"');
    const secret = /data-secret="([A-Z2-7]+)"/.exec(ursula.html)![1];
    expect((await ursula.browser.request(ursula.setupUrl, { form: { code: 'abc' } })).status).toBe(400);
    for (let i = 1; i <= 3; i++) expect((await ursula.browser.request(ursula.setupUrl, { form: { code: totpCode(secret, Date.now() + i * 3_600_000) } })).status).toBe(401);
    // Three wrong codes: the next check within a second is refused unlooked-at (the code throttle).
    expect((await ursula.browser.request(ursula.setupUrl, { form: { code: totpCode(secret) } })).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await new Browser().request(ursula.setupUrl, { form: { code: totpCode(secret) } })).status).toBe(400);
    expect((await ursula.browser.request(ursula.setupUrl, { form: { code: totpCode(secret) } })).status).toBe(303);

    const uwe = await passPassword(`uwe-${stamp}`);
    expect((await new Browser().request(uwe.skipUrl, { method: 'POST', form: {} })).status).toBe(400);
    expect((await uwe.browser.request(uwe.skipUrl, { method: 'POST', form: {} })).status).toBe(303);

    const fred = await passPassword(`fred@forced-${stamp}.localhost`);
    expect(fred.html).toContain('id="setup-required"');
    const refused = await fred.browser.request(fred.skipUrl, { method: 'POST', form: {} });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('cannot be skipped');
  });
});

describe('signing keys of every algorithm', () => {
  // Last before the ledger: each rotation changes the key every later token is signed with.
  it('the key set and the tokens after rotations to ES256, EdDSA and back to RS256 match the spec', async () => {
    for (const alg of ['ES256', 'EdDSA', 'RS256'] as const) {
      await rotateKeys(s.t.store, processSecretBox(), 60 * 60 * 1000, alg);
      expect(await s.service.reloadKeys()).toBe(true);
      const keys = (await (await fetch(url('/oauth/v2/keys'))).json()) as { keys: { alg: string; d?: string }[] };
      expect(keys.keys[0].alg).toBe(alg);
      for (const key of keys.keys) expect(key.d).toBeUndefined();
      const token = await fetch(url('/oauth/v2/token'), form({ grant_type: 'client_credentials', scope: `openid ${AUD}` }, basic(machine.clientId, machine.clientSecret)));
      expect(token.status).toBe(200);
    }
  });
});

describe('the OAuth ledger', () => {
  it('every answer was documented and matched the spec', () => {
    expect(violations).toEqual([]);
  });

  it('every documented status of the OAuth operations was produced', () => {
    expect(operations.filter((op) => servedOutsideApi(op.operation)).map((op) => op.operationId)).toHaveLength(36);
    expect(unexercised((op) => servedOutsideApi(op.operation))).toEqual([]);
  });
});
