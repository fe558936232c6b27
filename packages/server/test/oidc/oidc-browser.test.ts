/**
 * The login page in a real browser: headless Debian Chromium (apt-get install -y chromium)
 * driven by playwright-core. Fills the form, submits, and lands on the redirect URI with a code.
 * Skips loudly where Chromium is not installed; CI installs it.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChromiumProfile, chromiumAvailable, chromiumProfile, type RedirectTarget, startRedirectTarget } from '../support/chromium.js';
import { createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const available = chromiumAvailable('login test');

describe.skipIf(!available)('login page in headless Chromium', () => {
  let s: OidcTestServer;
  let callback: RedirectTarget;
  let redirectUri: string;
  let profile: ChromiumProfile;

  beforeAll(async () => {
    s = await startOidcServer('sqlite');
    // The application's redirect URI: a page that just says it got the code.
    callback = await startRedirectTarget('/callback');
    redirectUri = callback.uri;
    profile = chromiumProfile('chromium-profile-');
  });
  afterAll(async () => {
    await callback?.close();
    await s?.close();
    profile?.remove();
  });

  it('fill the form, submit, land on the redirect URI with a code; a wrong password shows the message', async () => {
    const project = await s.api('POST', '/management/v1/projects', { name: 'browser' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'spa',
      redirectUris: [redirectUri],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    await importHuman(s, 'erin', { password: 'Browser-Passw0rd!' });
    const config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const state = oc.randomState();
    const url = oc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile',
      state,
      code_challenge: await oc.calculatePKCECodeChallenge(oc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });

    const context = await profile.launch();
    try {
      const page = await context.newPage();
      await page.goto(url.href);
      expect(new URL(page.url()).pathname).toMatch(/^\/ui\/login\//);

      await page.fill('#loginName', 'erin');
      await page.fill('#password', 'wrong');
      await page.click('button[type=submit]');
      await expect.poll(() => page.textContent('#login-error')).toContain('The login name or the password is wrong.');

      await page.fill('#password', 'Browser-Passw0rd!');
      // The instance's default login policy offers an authenticator app at the first sign-in: skip it.
      await page.click('button[type=submit]');
      await page.waitForSelector('#skip');
      await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('#skip')]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('code')).toBeTruthy();
      expect(landed.searchParams.get('state')).toBe(state);
      expect(await page.textContent('body')).toBe('signed in');
    } finally {
      await context.close();
    }
  }, 60_000);
});
