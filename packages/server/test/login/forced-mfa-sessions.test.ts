/**
 * Issue 47 item 1: a second factor forced (or an app set up) after a person signed in holds for
 * everything issued afterwards on that sign-in, over real HTTP on both stores, with openid-client for
 * the grants and the login's browser stand-in (cookies kept, redirects followed by hand):
 * - the browser's next authorization (no `prompt`) is led to just the missing step — setting up an
 *   app where `forceMfa` is set, the app's code where the user set one up since — not to the password
 *   form, and ends at the application with a code whose ID token says the factor was given
 *   (`amr` pwd otp mfa) and keeps the sign-in's `auth_time`;
 * - a refresh token from the sign-in without the factor is refused (`invalid_grant`), before and after
 *   the factor is given; the one issued with the factor refreshes;
 * - `prompt=none` answers `interaction_required` until the factor is given, a code afterwards;
 * - a refresh token stops once its sign-in's check lifetimes (the user's organisation's) run out.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/login/totp.js';
import { describeEachStore } from '../support/instance.js';
import { Browser, loginThroughForm, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'F0rced-Passw0rd!';
const SCOPE = 'openid offline_access';

describeEachStore('a second factor required after the sign-in (existing sessions and refresh tokens)', (dialect) => {
  let s: OidcTestServer;
  let orgId: string;
  let config: oc.Configuration;
  const inOrg = () => ({ 'x-service-orgid': orgId });
  const policy = { allowUsernamePassword: true, forceMfa: false, secondFactors: ['SECOND_FACTOR_TYPE_OTP'], mfaInitSkipLifetime: '2592000s' };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    orgId = (await s.api('POST', '/management/v1/orgs', { name: `Forced later ${dialect}` })).body.id;
    expect((await s.api('POST', '/management/v1/policies/login', policy, undefined, inOrg())).status).toBe(200);
    const project = (await s.api('POST', '/management/v1/projects', { name: 'mfa later' }, undefined, inOrg())).body.id;
    const app = await s.api(
      'POST',
      `/management/v1/projects/${project}/apps/oidc`,
      {
        name: 'spa',
        redirectUris: [REDIRECT],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
        devMode: true,
        accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
      },
      undefined,
      inOrg(),
    );
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    config = await oc.discovery(new URL(s.issuer), app.body.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
  }, 60_000);
  afterAll(() => s?.close());

  const importUser = async (userName: string) => {
    const res = await s.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName,
        profile: { firstName: 'Fay', lastName: userName },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        password: PASSWORD,
      },
      undefined,
      inOrg(),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.userId as string;
  };

  /** An authorization request of the app and how to redeem its callback. */
  async function authorization(extra: Record<string, string> = {}, scope = SCOPE) {
    const verifier = oc.randomPKCECodeVerifier();
    const state = oc.randomState();
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope, state, code_challenge: await oc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra });
    return { url: url.href, redeem: (callback: URL) => oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }) };
  }

  /** A fresh browser signs in with the password and skips the offered app (not forced yet). */
  async function signedInWithPassword(userName: string, scope = SCOPE) {
    const browser = new Browser();
    const first = await authorization({}, scope);
    const result = await loginThroughForm(browser, first.url, REDIRECT, userName, PASSWORD);
    expect(result.callback, result.page?.html.slice(0, 300)).toBeTruthy();
    const tokens = await first.redeem(result.callback!);
    expect(tokens.claims()!.amr).toEqual(['pwd']);
    return { browser, tokens };
  }

  const refusal = async (refreshToken: string) => {
    const error = await oc.refreshTokenGrant(config, refreshToken).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'the refresh should have been refused').toBeInstanceOf(oc.ResponseBodyError);
    return error as oc.ResponseBodyError;
  };
  const silently = async (browser: Browser) => {
    const { url, redeem } = await authorization({ prompt: 'none' });
    const { location } = await browser.follow(url, REDIRECT);
    expect(location, 'prompt=none must answer at the redirect URI').toBeTruthy();
    return { location: location!, redeem };
  };
  const setForceMfa = async (forceMfa: boolean) => {
    const res = await s.api('PUT', '/management/v1/policies/login', { ...policy, forceMfa }, undefined, inOrg());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('forceMfa set after the sign-in: the session is led to set up an app (no password asked), its refresh token refused; after the setup both go on', async () => {
    const userId = await importUser('fay');
    const { browser, tokens } = await signedInWithPassword('fay');
    const signedInAt = tokens.claims()!.auth_time;
    // Before the policy changes: the session and its refresh token are good.
    const before = await authorization();
    expect((await browser.follow(before.url, REDIRECT)).location).toBeTruthy();
    const refreshed = await oc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()!.sub).toBe(userId);

    await setForceMfa(true);
    // prompt=none: interaction_required, as it was.
    const none = await silently(browser);
    expect(none.location.searchParams.get('error')).toBe('interaction_required');
    // The refresh tokens of the sign-in without the factor: refused, saying why.
    for (const token of [tokens.refresh_token!, refreshed.refresh_token!]) {
      const refused = await refusal(token);
      expect(refused.error).toBe('invalid_grant');
      expect(refused.error_description).toMatch(/requires a second factor/);
    }

    // The same browser's next authorization: the forced setup, not the password form, and no code yet.
    const next = await authorization();
    const shown = await browser.follow(next.url, REDIRECT);
    expect(shown.location, 'a code was issued without the forced second factor').toBeUndefined();
    const html = await shown.res.text();
    expect(shown.res.status).toBe(200);
    expect(html).toContain('id="setup-required"');
    expect(html).not.toContain('id="password"');
    expect(html).not.toContain('id="skip"');
    const secret = /data-secret="([A-Z2-7]+)"/.exec(html)![1];
    const action = /<form method="post" action="([^"]+\/otp\/setup)"/.exec(html)![1];
    const done = await browser.follow(s.issuer + action, REDIRECT, { form: { code: totpCode(secret) } });
    expect(done.location, 'the setup should end at the application').toBeTruthy();
    const withFactor = await next.redeem(done.location!);
    expect(withFactor.claims()).toMatchObject({ sub: userId, amr: ['pwd', 'otp', 'mfa'], auth_time: signedInAt });

    // The factor given: the session goes straight on, prompt=none answers a code, the new refresh token refreshes.
    const again = await authorization();
    const straight = await browser.follow(again.url, REDIRECT);
    expect(straight.location?.searchParams.get('code')).toBeTruthy();
    expect((await again.redeem(straight.location!)).claims()!.amr).toEqual(['pwd', 'otp', 'mfa']);
    const quiet = await silently(browser);
    expect(quiet.location.searchParams.get('code')).toBeTruthy();
    expect((await oc.refreshTokenGrant(config, withFactor.refresh_token!)).claims()).toMatchObject({ sub: userId, amr: ['pwd', 'otp', 'mfa'] });
    // The refresh token of the sign-in without it stays refused.
    expect((await refusal(tokens.refresh_token!)).error).toBe('invalid_grant');
    await setForceMfa(false);
  });

  it('an app set up after the sign-in: the session is led to its code, the old refresh token refused, a wrong code refused', async () => {
    const userId = await importUser('ida');
    const { browser, tokens } = await signedInWithPassword('ida', `${SCOPE} urn:zitadel:iam:org:project:id:zitadel:aud`);
    // The person sets up an app through the auth API with the token of that sign-in.
    const asIda = (method: string, path: string, body?: unknown) => s.api(method, path, body, tokens.access_token);
    const started = await asIda('POST', '/auth/v1/users/me/auth_factors/otp', {});
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const secret = started.body.secret as string;
    expect((await asIda('POST', '/auth/v1/users/me/auth_factors/otp/_verify', { code: totpCode(secret) })).status).toBe(200);

    expect((await refusal(tokens.refresh_token!)).error).toBe('invalid_grant');
    expect((await silently(browser)).location.searchParams.get('error')).toBe('interaction_required');
    const next = await authorization();
    const shown = await browser.follow(next.url, REDIRECT);
    expect(shown.location).toBeUndefined();
    const html = await shown.res.text();
    expect(html).not.toContain('id="password"');
    const action = /<form method="post" action="([^"]+\/otp)"/.exec(html)![1];
    const wrong = await browser.follow(s.issuer + action, REDIRECT, { form: { code: totpCode(secret, Date.now() + 10 * 60_000) } });
    expect(wrong.res.status).toBe(401);
    expect(wrong.location).toBeUndefined();
    const done = await browser.follow(s.issuer + action, REDIRECT, { form: { code: totpCode(secret, Date.now() + 30_000) } });
    expect(done.location, 'the code should end at the application').toBeTruthy();
    expect((await next.redeem(done.location!)).claims()).toMatchObject({ sub: userId, amr: ['pwd', 'otp', 'mfa'] });
  });

  it("a refresh token lives no longer than its sign-in's check lifetimes (the user's organisation's policy)", async () => {
    const quickOrg = (await s.api('POST', '/management/v1/orgs', { name: `Quick checks ${dialect}` })).body.id as string;
    const inQuick = { 'x-service-orgid': quickOrg };
    expect((await s.api('POST', '/management/v1/policies/login', { allowUsernamePassword: true, mfaInitSkipLifetime: '0s', passwordCheckLifetime: '3s' }, undefined, inQuick)).status).toBe(200);
    const imported = await s.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName: 'quinn',
        profile: { firstName: 'Quinn', lastName: 'Quick' },
        email: { email: 'quinn@example.com', isEmailVerified: true },
        password: PASSWORD,
      },
      undefined,
      inQuick,
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const domain = (await s.api('GET', '/management/v1/orgs/me', undefined, undefined, inQuick)).body.org.primaryDomain;
    const { tokens } = await signedInWithPassword(`quinn@${domain}`);
    const signedInAt = tokens.claims()!.auth_time!;
    const within = await oc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(Date.now() / 1000 - signedInAt, 'the refresh within the lifetime came too late to prove anything').toBeLessThan(3);
    await new Promise((r) => setTimeout(r, Math.max(0, (signedInAt + 4) * 1000 - Date.now())));
    const refused = await refusal(within.refresh_token!);
    expect(refused.error).toBe('invalid_grant');
    expect(refused.error_description).toMatch(/outlived its lifetime/);
  });

  it('forced with no factor that can be set up: the session is refused, not signed in again, and so is its refresh token', async () => {
    await importUser('zoe');
    const { browser, tokens } = await signedInWithPassword('zoe');
    const res = await s.api('PUT', '/management/v1/policies/login', { ...policy, forceMfa: true, secondFactors: [] }, undefined, inOrg());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    try {
      const refused = await refusal(tokens.refresh_token!);
      expect(refused.error_description).toMatch(/cannot be set up/);
      const shown = await browser.follow((await authorization()).url, REDIRECT);
      expect(shown.location).toBeUndefined();
      expect(shown.res.status).toBe(403);
    } finally {
      await setForceMfa(false);
    }
  });
});
