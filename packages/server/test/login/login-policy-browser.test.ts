/**
 * Issue 12 (policies that act on the login page), in headless Chromium: an organisation whose
 * login policy allows no password and lists one JWT provider gets a login page that offers only
 * that provider; its privacy links are at the foot and its label colours style the page. The
 * screenshot is written to the test output (its path is printed). A posted password is refused.
 * Skips loudly where Chromium is not installed; CI installs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChromiumProfile, chromiumAvailable, chromiumProfile, screenshot } from '../support/chromium.js';
import { authorizeUrl, Browser, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const available = chromiumAvailable('login-policy test');
const REDIRECT = 'http://127.0.0.1:1/cb';

describe.skipIf(!available)("the login page under the organisation's login, privacy and label policies (Chromium)", () => {
  let s: OidcTestServer;
  let profile: ChromiumProfile;
  let signInUrl: string;
  const orgId = `${Date.now() % 1_000_000_000}3`;
  const inOrg = { 'x-service-orgid': orgId };

  beforeAll(async () => {
    s = await startOidcServer('sqlite');
    profile = chromiumProfile('chromium-policy-');
    expect((await s.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: { orgs: [{ orgId, org: { name: 'Branded' } }] } })).status).toBe(200);
    const idp = async (name: string) =>
      (
        await s.api(
          'POST',
          '/management/v1/idps/jwt',
          {
            name,
            jwtEndpoint: 'https://legacy.example/jwt',
            issuer: 'https://legacy.example',
            keysEndpoint: 'https://legacy.example/keys',
            headerName: 'authorization',
            autoRegister: true,
          },
          undefined,
          inOrg,
        )
      ).body.idpId as string;
    const offered = await idp('Company portal');
    await idp('Old portal');
    expect(
      (
        await s.api(
          'POST',
          '/management/v1/policies/login',
          {
            allowUsernamePassword: false,
            allowExternalIdp: true,
            idps: [{ idpId: offered, ownerType: 'IDP_OWNER_TYPE_ORG' }],
          },
          undefined,
          inOrg,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await s.api(
          'POST',
          '/management/v1/policies/privacy',
          {
            tosLink: 'https://branded.example/terms',
            privacyLink: 'https://branded.example/privacy',
            helpLink: 'javascript:alert(1)',
            supportEmail: 'help@branded.example',
          },
          undefined,
          inOrg,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await s.api(
          'POST',
          '/management/v1/policies/label',
          {
            primaryColor: '#aa0000',
            backgroundColor: '#ffeecc',
            fontColor: '#102030',
            themeMode: 'THEME_MODE_LIGHT',
          },
          undefined,
          inOrg,
        )
      ).status,
    ).toBe(200);
    const clientId = await publicClientInNewProject(s, { name: 'branded', privateLabelingSetting: 'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY' }, 'Branded app', REDIRECT, inOrg);
    signInUrl = authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    profile?.remove();
  });

  it('offers only the listed provider, no password form; shows the privacy links and the label colours', async () => {
    const context = await profile.launch();
    try {
      const page = await context.newPage();
      await page.goto(signInUrl);
      await page.waitForSelector('h1');
      await screenshot(page, 'login-policy', 'login page');

      expect(await page.locator('#password').count()).toBe(0);
      expect(await page.locator('button.provider').allTextContents()).toEqual(['Company portal']);
      expect(await page.locator('#tos-link').getAttribute('href')).toBe('https://branded.example/terms');
      expect(await page.locator('#privacy-link').getAttribute('href')).toBe('https://branded.example/privacy');
      expect(await page.locator('#support-email').getAttribute('href')).toBe('mailto:help@branded.example');
      // A link no browser should follow from a login page is kept in the policy but not shown.
      expect(await page.locator('#help-link').count()).toBe(0);
      const colours = await page.evaluate(() => ({
        background: getComputedStyle(document.body).backgroundColor,
        font: getComputedStyle(document.body).color,
        link: getComputedStyle(document.querySelector('#tos-link')!).color,
      }));
      expect(colours).toEqual({ background: 'rgb(255, 238, 204)', font: 'rgb(16, 32, 48)', link: 'rgb(170, 0, 0)' });
    } finally {
      await context.close();
    }
  });

  it('refuses a posted password (403) where the login policy allows none', async () => {
    const browser = new Browser();
    const start = await browser.follow(signInUrl, REDIRECT);
    const loginUrl = start.res.url;
    const posted = await browser.request(loginUrl, { form: { loginName: 'someone', password: 'Secr3t-Passw0rd!' } });
    expect(posted.status).toBe(403);
    expect(await posted.text()).toContain('not allowed for this application');
  });
});
