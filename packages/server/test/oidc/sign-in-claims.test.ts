/**
 * Issue 48: what a token says of how its person signed in, and what introspection tells a resource
 * server, as ZITADEL answers them — with openid-client over loopback, on both stores:
 * - the ID token carries `auth_time` and `amr` (ZITADEL's values: `pwd` after a password, `pwd otp mfa`
 *   after a password and an authenticator app's code), also when refreshed;
 * - introspection of a person's `openid profile email` token (JWT or opaque) carries `username`, the
 *   profile and the e-mail claims, as ZITADEL's does (and as PATs' already did); a token without those
 *   scopes carries none of them.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/login/totp.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { Browser, createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Cl4ims-Passw0rd!';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describeEachStore('how a person signed in, in ID tokens and introspection', (dialect) => {
  let s: OidcTestServer;
  let jwtApp: oc.Configuration;
  let opaqueApp: oc.Configuration;
  let introspector: oc.Configuration;
  let pia: string;
  let tom: string;

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = (await s.api('POST', '/management/v1/projects', { name: 'claims' })).body.id;
    const base = {
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE' as const],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE' as const, 'OIDC_GRANT_TYPE_REFRESH_TOKEN' as const],
      appType: 'OIDC_APP_TYPE_USER_AGENT' as const,
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' as const,
      devMode: true,
    };
    const discover = (clientId: string, auth = oc.None()) => oc.discovery(new URL(s.issuer), clientId, undefined, auth, { execute: [oc.allowInsecureRequests] });
    jwtApp = await discover((await createOidcApp(s, project, { name: 'jwt', ...base, accessTokenType: 'OIDC_TOKEN_TYPE_JWT' })).clientId);
    opaqueApp = await discover((await createOidcApp(s, project, { name: 'opaque', ...base, accessTokenType: 'OIDC_TOKEN_TYPE_BEARER' })).clientId);
    const api = await createOidcApp(s, project, {
      name: 'api',
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      redirectUris: ['https://api.example.com/cb'],
    });
    introspector = await discover(api.clientId, oc.ClientSecretBasic(api.clientSecret!));
    pia = await importHuman(s, 'pia', { password: PASSWORD });
    tom = await importHuman(s, 'tom', { password: PASSWORD, otpCode: SECRET });
  }, 120_000);
  afterAll(() => s?.close());

  /** Code + PKCE through the login form; `code` answers the authenticator app's step if one is asked. */
  async function signIn(config: oc.Configuration, loginName: string, scope: string, code?: string) {
    const browser = new Browser();
    const signedIn = await signInThroughForm(config, REDIRECT, loginName, PASSWORD, { scope }, { state: true, browser });
    let result: { callback?: URL; page?: { html: string } } = signedIn;
    if (!result.callback && code) {
      const action = /<form method="post" action="([^"]+\/otp)"/.exec(result.page?.html ?? '')?.[1];
      expect(action, result.page?.html.slice(0, 300)).toBeTruthy();
      const answered = await browser.follow(s.issuer + action!, REDIRECT, { form: { code } });
      result = { callback: answered.location };
    }
    expect(result.callback, result.page?.html.slice(0, 300)).toBeTruthy();
    return signedIn.redeem(result.callback);
  }

  it('discovery lists amr and auth_time among the claims', () => {
    expect(jwtApp.serverMetadata().claims_supported).toEqual(expect.arrayContaining(['amr', 'auth_time']));
  });

  it('after a password: the ID token has amr ["pwd"] and auth_time, and a refreshed one the same', async () => {
    const before = Math.floor(Date.now() / 1000);
    const tokens = await signIn(jwtApp, 'pia', 'openid offline_access');
    const after = Math.ceil(Date.now() / 1000);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(pia);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.auth_time).toBeGreaterThanOrEqual(before);
    expect(claims.auth_time).toBeLessThanOrEqual(after);

    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oc.refreshTokenGrant(jwtApp, tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ sub: pia, amr: ['pwd'], auth_time: claims.auth_time });
  });

  it('after a password and an authenticator app: amr ["pwd", "otp", "mfa"] (ZITADEL\'s values) and auth_time', async () => {
    const tokens = await signIn(jwtApp, 'tom', 'openid', totpCode(SECRET));
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(tom);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(typeof claims.auth_time).toBe('number');
  });

  it("introspection of an `openid profile email` token (JWT and opaque) carries username, profile and e-mail as ZITADEL's; without those scopes none", async () => {
    const expected = {
      active: true,
      sub: pia,
      username: expect.stringMatching(/^pia@/),
      preferred_username: expect.stringMatching(/^pia@/),
      name: 'Test pia',
      given_name: 'Test',
      family_name: 'pia',
      updated_at: expect.any(Number),
      email: 'pia@example.com',
      email_verified: true,
    };
    for (const [kind, config] of [
      ['JWT', jwtApp],
      ['opaque', opaqueApp],
    ] as const) {
      const tokens = await signIn(config, 'pia', 'openid profile email');
      const answer = await oc.tokenIntrospection(introspector, tokens.access_token);
      expect({ kind, ...answer }).toMatchObject({ kind, ...expected, scope: expect.stringContaining('profile') });
      expect(answer.username).toBe(answer.preferred_username);

      const bare = await oc.tokenIntrospection(introspector, (await signIn(config, 'pia', 'openid')).access_token);
      expect({ kind, active: bare.active, sub: bare.sub }).toEqual({ kind, active: true, sub: pia });
      for (const claim of ['username', 'name', 'email', 'preferred_username']) expect(bare[claim], `${kind} ${claim}`).toBeUndefined();
    }
    // Only e-mail: no profile claims, no username.
    const emailOnly = await oc.tokenIntrospection(introspector, (await signIn(opaqueApp, 'pia', 'openid email')).access_token);
    expect(emailOnly).toMatchObject({ active: true, email: 'pia@example.com', email_verified: true });
    expect(emailOnly.username).toBeUndefined();
    expect(emailOnly.name).toBeUndefined();
  });
});
