/**
 * Issue 31 (the login policy's second factor acts), in headless Chromium on both stores:
 * - an organisation imported with `forceMfa`: its user must set up an authenticator app at the
 *   first sign-in (the test reads the secret the page shows and computes the codes from it) before
 *   any code reaches the application; the step cannot be skipped; the page wears the
 *   organisation's colours and its login texts;
 * - later sign-ins ask for the app's code; a wrong one is refused and counted toward the lockout
 *   policy (`maxOtpAttempts`), which locks the user;
 * - without `forceMfa` the setup is offered with a skip button, not offered again within
 *   `mfaInitSkipLifetime` (5 s here), and offered again after it.
 * Skips loudly where Chromium is not installed; CI installs it.
 */
import type { Browser as Chromium, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/login/totp.js';
import { chromiumAvailable, launchChromium, type RedirectTarget, screenshot, startRedirectTarget } from '../support/chromium.js';
import { DIALECTS } from '../support/instance.js';
import { authorizeUrl, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const available = chromiumAvailable('second-factor tests');
const PASSWORD = 'Passw0rd-Second!';
const SKIP_LIFETIME_MS = 5_000;

for (const dialect of DIALECTS) {
  describe.skipIf(!available)(`the login policy's second factor in Chromium [${dialect}]`, () => {
    let s: OidcTestServer;
    let chrome: Chromium;
    let callback: RedirectTarget;
    let redirect: string;
    const stamp = `${Date.now() % 1_000_000_000}`;
    const forcedOrg = `${stamp}5`;
    const offeringOrg = `${stamp}6`;
    const mia = `${forcedOrg}1`;
    const clients: Record<string, string> = {};
    let secret = '';

    beforeAll(async () => {
      s = await startOidcServer(dialect);
      callback = await startRedirectTarget('/cb');
      redirect = callback.uri;
      const human = (userId: string, userName: string) => ({
        userId,
        user: { userName, profile: { firstName: userName, lastName: 'Test' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: PASSWORD },
      });
      // ZITADEL's organisation documents: one forcing a second factor, one only offering it.
      const imported = await s.api('POST', '/admin/v1/import', {
        timeout: '1m',
        data_orgs: {
          orgs: [
            {
              orgId: forcedOrg,
              org: { name: `forced-${stamp}` },
              loginPolicy: { allowUsernamePassword: true, forceMfa: true, secondFactors: ['SECOND_FACTOR_TYPE_OTP'], mfaInitSkipLifetime: '2592000s' },
              lockoutPolicy: { maxPasswordAttempts: 5, maxOtpAttempts: 2 },
              humanUsers: [human(mia, 'mia')],
            },
            {
              orgId: offeringOrg,
              org: { name: `offering-${stamp}` },
              loginPolicy: { allowUsernamePassword: true, forceMfa: false, secondFactors: ['SECOND_FACTOR_TYPE_OTP'], mfaInitSkipLifetime: `${SKIP_LIFETIME_MS / 1000}s` },
              humanUsers: [human(`${offeringOrg}1`, 'sam')],
            },
          ],
        },
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect(imported.body.errors ?? []).toEqual([]);
      const inForced = { 'x-service-orgid': forcedOrg };
      expect(
        (await s.api('POST', '/management/v1/policies/label', { primaryColor: '#aa0000', backgroundColor: '#ffeecc', fontColor: '#102030', themeMode: 'THEME_MODE_LIGHT' }, undefined, inForced))
          .status,
      ).toBe(200);
      expect((await s.api('PUT', '/management/v1/text/login/en', { initMfaOtpText: { title: 'Protect your Forced account' } }, undefined, inForced)).status).toBe(200);
      for (const orgId of [forcedOrg, offeringOrg]) {
        const headers = { 'x-service-orgid': orgId };
        clients[orgId] = await publicClientInNewProject(s, { name: 'mfa', privateLabelingSetting: 'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY' }, 'mfa', redirect, headers);
      }
      chrome = await launchChromium();
    }, 90_000);
    afterAll(async () => {
      await chrome?.close();
      await callback?.close();
      await s?.close();
    });

    /** A fresh browser profile (no session): the sign-in page, the password given. */
    async function afterPassword(orgId: string, userName: string): Promise<Page> {
      const page = await (await chrome.newContext()).newPage();
      await page.goto(authorizeUrl(s.issuer, { client_id: clients[orgId], redirect_uri: redirect }));
      await page.fill('#loginName', userName);
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('h1');
      return page;
    }
    const submit = async (page: Page, code: string) => {
      await page.fill('#code', code);
      await page.click('form:not(.skip) button[type=submit]');
    };
    const landed = (page: Page) => page.waitForURL((u) => u.href.startsWith(redirect));
    const codeOf = (page: Page) => new URL(page.url()).searchParams.get('code');
    const otpEvents = async (userId: string) =>
      (await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: ['user.human.mfa.otp.check.failed', 'user.locked'], asc: true })).body.events.map((e: any) => e.type.type);

    it('forceMfa: the first sign-in sets up an app (QR code and secret shown, no skip) before any code is issued', async () => {
      const page = await afterPassword(forcedOrg, 'mia');
      await screenshot(page, `mfa-setup-${dialect}`, 'second-factor setup');

      expect(new URL(page.url()).pathname).toMatch(/^\/ui\/login\//);
      expect(await page.textContent('h1')).toBe('Protect your Forced account');
      expect(await page.locator('#setup-required').count()).toBe(1);
      expect(await page.locator('#skip').count()).toBe(0);
      expect(await page.locator('#qr-code svg').count()).toBe(1);
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 238, 204)');
      secret = (await page.getAttribute('#otp-secret', 'data-secret'))!;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect((await page.textContent('#otp-secret'))!.replace(/\s/g, '')).toBe(secret);

      // Skipping a forced setup is refused, even when posted by hand.
      const skipStatus = await page.evaluate(async (url) => (await fetch(url, { method: 'POST', body: new URLSearchParams() })).status, `${new URL(page.url()).pathname}/otp/setup/skip`);
      expect(skipStatus).toBe(403);

      // A wrong code: the same secret again, with the error.
      await submit(page, totpCode(secret, Date.now() + 10 * 60_000));
      await expect.poll(() => page.textContent('#login-error')).toContain('does not match');
      expect(await page.getAttribute('#otp-secret', 'data-secret')).toBe(secret);

      await Promise.all([landed(page), submit(page, totpCode(secret))]);
      expect(codeOf(page)).toBeTruthy();
      expect((await s.api('POST', `/management/v1/users/${mia}/auth_factors/_search`, {}, undefined, { 'x-service-orgid': forcedOrg })).body.result).toEqual([
        { state: 'AUTH_FACTOR_STATE_READY', otp: {} },
      ]);
      await page.context().close();
    }, 60_000);

    it('later sign-ins ask for the code; a wrong one is refused and counted, and enough of them lock the user', async () => {
      expect(secret).not.toBe('');
      const page = await afterPassword(forcedOrg, 'mia');
      expect(await page.locator('form[action$="/otp"] #code').count()).toBe(1);
      await submit(page, totpCode(secret, Date.now() + 10 * 60_000));
      await expect.poll(() => page.textContent('#login-error')).toContain('The code is wrong');
      expect(await otpEvents(mia)).toEqual(['user.human.mfa.otp.check.failed']);
      // The setup's code's step is used: the next step's code signs in.
      await Promise.all([landed(page), submit(page, totpCode(secret, Date.now() + 30_000))]);
      expect(codeOf(page)).toBeTruthy();
      await page.context().close();

      // maxOtpAttempts 2: two wrong codes in a row lock the user.
      const again = await afterPassword(forcedOrg, 'mia');
      await submit(again, totpCode(secret, Date.now() + 10 * 60_000));
      await expect.poll(() => again.textContent('#login-error')).toContain('The code is wrong');
      await submit(again, totpCode(secret, Date.now() + 20 * 60_000));
      await expect.poll(() => again.textContent('#login-error')).toContain('locked');
      expect(await otpEvents(mia)).toEqual(['user.human.mfa.otp.check.failed', 'user.human.mfa.otp.check.failed', 'user.human.mfa.otp.check.failed', 'user.locked']);
      expect((await s.api('GET', `/management/v1/users/${mia}`, undefined, undefined, { 'x-service-orgid': forcedOrg })).body.user.state).toBe('USER_STATE_LOCKED');
      await again.context().close();
    }, 60_000);

    it('without forceMfa: offered with a skip button; not offered again within mfaInitSkipLifetime; offered again after it', async () => {
      const first = await afterPassword(offeringOrg, 'sam');
      expect(await first.locator('#setup-offered').count()).toBe(1);
      expect(await first.locator('#qr-code svg').count()).toBe(1);
      // The instance's built-in texts where the organisation has none.
      expect(await first.textContent('h1')).toBe('Set up an authenticator app');
      await Promise.all([landed(first), first.click('#skip')]);
      expect(codeOf(first)).toBeTruthy();
      const skippedAt = Date.now();
      await first.context().close();

      const within = await (await chrome.newContext()).newPage();
      await within.goto(authorizeUrl(s.issuer, { client_id: clients[offeringOrg], redirect_uri: redirect }));
      await within.fill('#loginName', 'sam');
      await within.fill('#password', PASSWORD);
      await Promise.all([landed(within), within.click('button[type=submit]')]);
      expect(Date.now() - skippedAt, 'the sign-in within the lifetime took too long to prove anything').toBeLessThan(SKIP_LIFETIME_MS);
      await within.context().close();

      await new Promise((r) => setTimeout(r, Math.max(0, skippedAt + SKIP_LIFETIME_MS + 200 - Date.now())));
      const after = await afterPassword(offeringOrg, 'sam');
      expect(await after.locator('#setup-offered').count()).toBe(1);
      expect(await after.locator('#skip').count()).toBe(1);
      await after.context().close();
    }, 60_000);
  });
}
