/**
 * Issue 12 (login policy, label policy): "Forgot your password?" at the login page sends the
 * PasswordReset mail for the login name (the same answer for an unknown name, one mail a minute);
 * the mail and the pages wear the organisation's label colours; after the new password is set,
 * the login policy's defaultRedirectUri is where the page leads (no application is waiting).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { linkIn, outboxWorkerFor, readDroppedMail } from '../support/mail.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Old-Passw0rd!';

describeEachStore('password reset from the login page', (dialect) => {
  let s: OidcTestServer;
  let signInUrl: string;
  const stamp = Date.now() % 1_000_000_000;
  const orgId = `${stamp}7`;
  const userId = `${stamp}71`;
  const loginName = `rita@branded-${stamp}.localhost`;
  const inOrg = { 'x-service-orgid': orgId };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          {
            orgId,
            org: { name: `Branded ${stamp}` },
            labelPolicy: { primaryColor: '#aa0000', backgroundColor: '#ffeecc', fontColor: '#102030' },
            loginPolicy: { allowUsernamePassword: true, defaultRedirectUri: 'https://branded.example/home' },
            humanUsers: [{ userId, user: { userName: 'rita', profile: { firstName: 'Rita', lastName: 'R' }, email: { email: 'rita@example.com', isEmailVerified: true }, password: PASSWORD } }],
          },
        ],
      },
    });
    expect(imported.body.errors ?? []).toEqual([]);
    const clientId = await publicClientInNewProject(s, { name: 'branded', privateLabelingSetting: 'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY' }, 'Branded app', REDIRECT, inOrg);
    signInUrl = authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('mails a reset link for the login name, in the organisation\u2019s colours, and the new password signs in', async () => {
    const browser = new Browser();
    const start = await browser.request(signInUrl);
    const loginUrl = new URL(start.headers.get('location')!, s.issuer).href;
    const loginHtml = await (await browser.request(loginUrl)).text();
    expect(loginHtml).toContain(`href="${new URL(loginUrl).pathname}/password/reset"`);

    const resetUrl = `${loginUrl}/password/reset`;
    const form = await browser.request(resetUrl);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('--primary:#aa0000');

    // An unknown name gets the same answer, and no mail.
    const unknown = await (await browser.request(resetUrl, { form: { loginName: 'nobody@nowhere' } })).text();
    const known = await (await browser.request(resetUrl, { form: { loginName } })).text();
    expect(unknown).toContain('Check your mail');
    expect(known.replace(/<style>[^]*<\/style>/, '')).toBe(unknown.replace(/<style>[^]*<\/style>/, ''));
    // Asked again at once: no second mail (one a minute).
    expect((await browser.request(resetUrl, { form: { loginName } })).status).toBe(200);

    const { worker, mailDropDir } = outboxWorkerFor(s);
    while ((await worker.runOnce()) > 0);
    const mails = await readDroppedMail(mailDropDir);
    expect(mails.map(({ mail }) => [mail.subject, mail.to && 'text' in mail.to ? mail.to.text : ''])).toEqual([['Reset password', 'rita@example.com']]);
    const mail = mails[0]!.mail;
    // The label policy's colours style the mail: the button, the background, the text.
    expect(mail.html).toContain('background:#aa0000');
    expect(mail.html).toContain('background:#ffeecc');
    expect(mail.html).toContain('color:#102030');

    const link = linkIn(mail);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('--primary:#aa0000');
    const done = await fetch(new URL('/ui/login/password/init', s.issuer), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ userID: userId, code: link.searchParams.get('code')!, password: 'New-Passw0rd!', passwordConfirmation: 'New-Passw0rd!' }),
    });
    expect(done.status).toBe(200);
    // No application waits for this page: it leads on to the login policy's defaultRedirectUri.
    expect(await done.text()).toContain('<a id="continue" class="button" href="https://branded.example/home">');

    expect((await loginThroughForm(new Browser(), signInUrl, REDIRECT, loginName, PASSWORD)).callback).toBeUndefined();
    expect((await loginThroughForm(new Browser(), signInUrl, REDIRECT, loginName, 'New-Passw0rd!')).callback?.searchParams.get('code')).toBeTruthy();
  });

  it('offers no reset when the login policy hides it', async () => {
    expect((await s.api('PUT', '/management/v1/policies/login', { allowUsernamePassword: true, hidePasswordReset: true }, undefined, inOrg)).status).toBe(200);
    const browser = new Browser();
    const loginUrl = new URL((await browser.request(signInUrl)).headers.get('location')!, s.issuer).href;
    expect(await (await browser.request(loginUrl)).text()).not.toContain('password/reset');
    expect((await browser.request(`${loginUrl}/password/reset`)).status).toBe(404);
    expect((await browser.request(`${loginUrl}/password/reset`, { form: { loginName } })).status).toBe(404);
  });
});
