/**
 * Issue 11's "done when" in a real browser: headless Debian Chromium (apt-get install -y
 * chromium) driven by playwright-core picks the JWT provider on the login page, goes through the
 * legacy application's proxy (which adds the JWT) and lands on the redirect URI with a code; the
 * code yields tokens for the auto-registered user with the role an administrator granted.
 * Skips loudly where Chromium is not installed; CI installs it.
 */
import { decodeJwt } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChromiumProfile, chromiumAvailable, chromiumProfile, type RedirectTarget, startRedirectTarget } from '../support/chromium.js';
import { type JwtIssuer, type LegacyProxy, startJwtIssuer, startLegacyProxy } from '../support/jwt-idp.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const available = chromiumAvailable('identity-provider test');

describe.skipIf(!available)('signing in through a JWT identity provider in headless Chromium', () => {
  let s: OidcTestServer;
  let jwt: JwtIssuer;
  let proxy: LegacyProxy;
  let callback: RedirectTarget;
  let redirectUri: string;
  let profile: ChromiumProfile;

  beforeAll(async () => {
    s = await startOidcServer('sqlite');
    jwt = await startJwtIssuer();
    proxy = await startLegacyProxy(s.issuer, 'authorization');
    callback = await startRedirectTarget('/callback');
    redirectUri = callback.uri;
    profile = chromiumProfile('chromium-idp-');
  });
  afterAll(async () => {
    await callback?.close();
    await proxy?.close();
    await jwt?.close();
    await s?.close();
    profile?.remove();
  });

  it('picks the provider, is auto-registered, lands with a code; the tokens carry the granted role', async () => {
    const project = (await s.api('POST', '/management/v1/projects', { name: 'portal' })).body.id;
    await s.api('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'member', displayName: 'Member' });
    const app = await s.api('POST', `/management/v1/projects/${project}/apps/oidc`, {
      name: 'Portal',
      redirectUris: [redirectUri],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      devMode: true,
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
    });
    expect(
      (
        await s.api('POST', '/management/v1/idps/jwt', {
          name: 'Company portal',
          jwtEndpoint: proxy.jwtEndpoint,
          issuer: jwt.issuer,
          keysEndpoint: jwt.keysEndpoint,
          headerName: 'authorization',
          autoRegister: true,
        })
      ).status,
    ).toBe(200);
    proxy.setToken(await jwt.sign({ sub: 'portal-7', email: 'grace@portal.example', email_verified: true, given_name: 'Grace', family_name: 'Hopper' }));

    const config = await oc.discovery(new URL(s.issuer), app.body.clientId, undefined, oc.ClientSecretBasic(app.body.clientSecret), { execute: [oc.allowInsecureRequests] });
    const context = await profile.launch();
    const signIn = async () => {
      const verifier = oc.randomPKCECodeVerifier();
      const state = oc.randomState();
      const url = oc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid profile urn:zitadel:iam:org:project:roles',
        state,
        code_challenge: await oc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const page = await context.newPage();
      await page.goto(url.href);
      await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('button.provider:has-text("Company portal")')]);
      expect(await page.textContent('body')).toBe('signed in');
      const tokens = await oc.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
      await page.close();
      await context.clearCookies(); // the next sign-in goes through the provider again
      return tokens;
    };
    try {
      const first = await signIn();
      const userId = first.claims()!.sub;
      const user = await s.api('GET', `/management/v1/users/${userId}`);
      expect(user.body.user.human).toMatchObject({ profile: { firstName: 'Grace', lastName: 'Hopper' }, email: { email: 'grace@portal.example', isEmailVerified: true } });
      expect((await s.api('POST', `/management/v1/users/${userId}/grants`, { projectId: project, roleKeys: ['member'] })).status).toBe(200);
      const second = await signIn();
      expect(second.claims()!.sub).toBe(userId);
      expect(Object.keys(decodeJwt(second.access_token)['urn:zitadel:iam:org:project:roles'] as object)).toEqual(['member']);
    } finally {
      await context.close();
    }
  }, 60_000);
});
