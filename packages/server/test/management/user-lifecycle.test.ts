/**
 * Issue 12 (the user lifecycle): AddHumanUser checks the initial password against the effective
 * complexity policy (the organisation's own, else the instance's); a user with an initial or
 * administrator-set password chooses a new one at the next sign-in, checked the same way;
 * SetHumanPassword with noChangeRequired lets the user straight in.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { linkIn, outboxWorkerFor, readDroppedMail } from '../support/mail.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, publicClient, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/cb';

describeEachStore('the user lifecycle', (dialect) => {
  let s: OidcTestServer;
  let orgId: string;
  let clientId: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });
  const addHuman = (userName: string, initialPassword?: string, headers: Record<string, string> = inOrg()) =>
    s.api(
      'POST',
      '/management/v1/users/human',
      {
        userName,
        profile: { firstName: 'Li', lastName: 'Fe' },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        ...(initialPassword ? { initialPassword } : {}),
      },
      undefined,
      headers,
    );

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    orgId = (await s.api('POST', '/management/v1/orgs', { name: `life-${Date.now()}` })).body.id;
    // The organisation's own policy: 12 characters and a symbol.
    expect((await s.api('POST', '/management/v1/policies/password/complexity', { minLength: 12, hasSymbol: true }, undefined, inOrg())).status).toBe(200);
    const project = (await s.api('POST', '/management/v1/projects', { name: 'life' }, undefined, inOrg())).body.id;
    clientId = (await s.api('POST', `/management/v1/projects/${project}/apps/oidc`, publicClient('life', REDIRECT), undefined, inOrg())).body.clientId;
  }, 60_000);
  afterAll(() => s?.close());

  const authorize = () => authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT });
  /** Sign in; when a new password is asked for, returns the form's address in that browser. */
  const signIn = async (userName: string, password: string) => {
    const browser = new Browser();
    const step = await loginThroughForm(browser, authorize(), REDIRECT, userName, password);
    const action = step.page ? /action="([^"]+\/password)"/.exec(step.page.html)?.[1] : undefined;
    return { ...step, browser, newPasswordUrl: action ? s.issuer + action : undefined };
  };
  const choose = async (a: { browser: Browser; newPasswordUrl?: string }, password: string, again = password) => {
    const r = await a.browser.follow(a.newPasswordUrl!, REDIRECT, { form: { password, passwordConfirmation: again } });
    return { status: r.res.status, callback: r.location, html: r.location ? '' : await r.res.text() };
  };

  it("AddHumanUser: the organisation's policy refuses a short initial password, naming the rule; a compliant one is taken; the instance default applies elsewhere", async () => {
    const short = await addHuman('short', 'short');
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/^invalid password: must be at least 12 characters long/);
    const noSymbol = await addHuman('nosymbol', 'TwelveChars12');
    expect(noSymbol.status).toBe(400);
    expect(noSymbol.body.message).toMatch(/must contain a symbol/);
    expect((await addHuman('compliant', 'Twelve-Chars1')).status).toBe(200);
    // Nothing was written for the refused ones.
    expect((await s.api('POST', '/management/v1/users/_search', {}, undefined, inOrg())).body.result.map((u: any) => u.userName)).toEqual(['compliant']);
    // The instance's default (8 characters, lower, upper, digit, symbol) in an organisation without its own.
    const elsewhere = await addHuman('elsewhere', 'short', {});
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.message).toMatch(/at least 8 characters/);
    expect((await addHuman('elsewhere', 'Eight-c1', {})).status).toBe(200);
  });

  it('an initial password must be changed at the first sign-in, under the same policy; afterwards the new one signs in directly', async () => {
    const userId = (await addHuman('newbie', 'Initial-Pass1')).body.userId;
    const first = await signIn('newbie', 'Initial-Pass1');
    expect(first.callback).toBeUndefined();
    expect(first.page?.status).toBe(200);
    expect(first.page?.html).toContain('Choose a new password');
    expect((await choose(first, 'Other-Pass-12', 'Other-Pass-13')).status).toBe(400);
    const weak = await choose(first, 'Short-1!');
    expect(weak.status).toBe(400);
    expect(weak.html).toContain('at least 12 characters');
    const done = await choose(first, 'Chosen-Pass-12');
    expect(done.callback?.searchParams.get('code')).toBeTruthy();

    expect((await signIn('newbie', 'Chosen-Pass-12')).callback).toBeTruthy();
    expect((await signIn('newbie', 'Initial-Pass1')).page?.status).toBe(401);
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: ['user.human.password.changed'], asc: true });
    expect(events.body.events).toHaveLength(1);
  });

  it('SetHumanPassword: by default the user changes it at the next sign-in; with noChangeRequired the user goes straight in; the profile can be changed', async () => {
    const userId = (await addHuman('reset', 'Initial-Pass1')).body.userId;
    expect((await s.api('POST', `/management/v1/users/${userId}/password`, { password: 'short' }, undefined, inOrg())).status).toBe(400);
    expect((await s.api('POST', `/management/v1/users/${userId}/password`, { password: 'Admin-Set-Pass1' }, undefined, inOrg())).status).toBe(200);
    const asked = await signIn('reset', 'Admin-Set-Pass1');
    expect(asked.newPasswordUrl).toBeTruthy();
    expect((await s.api('POST', `/management/v1/users/${userId}/password`, { password: 'Admin-Set-Pass2', noChangeRequired: true }, undefined, inOrg())).status).toBe(200);
    expect((await signIn('reset', 'Admin-Set-Pass2')).callback).toBeTruthy();

    expect((await s.api('PUT', `/management/v1/users/${userId}/profile`, { firstName: 'Re', lastName: 'Named', preferredLanguage: 'de' }, undefined, inOrg())).status).toBe(200);
    expect((await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).body.user.human.profile).toMatchObject({
      firstName: 'Re',
      lastName: 'Named',
      displayName: 'Re Named',
      preferredLanguage: 'de',
    });
  });

  it('SendHumanResetPasswordNotification mails a link; its page sets a new password under the policy, and it signs in', async () => {
    const userId = (await addHuman('forgetful', 'Initial-Pass1')).body.userId;
    expect((await s.api('POST', `/management/v1/users/${userId}/password`, { password: 'Known-Pass-123', noChangeRequired: true }, undefined, inOrg())).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${userId}/password/_reset`, { type: 'NOTIFICATION_TYPE_Sms' }, undefined, inOrg())).status).toBe(400);
    expect((await s.api('POST', `/management/v1/users/${userId}/password/_reset`, {}, undefined, inOrg())).status).toBe(200);
    const { worker, mailDropDir } = outboxWorkerFor(s);
    while ((await worker.runOnce()) > 0);
    const mail = (await readDroppedMail(mailDropDir)).find(({ mail: m }) => m.subject === 'Reset password')!.mail;
    expect(mail.text).toContain('We received a password reset request');
    const link = linkIn(mail);
    expect(link.searchParams.get('userID')).toBe(userId);
    const post = (password: string) =>
      fetch(new URL('/ui/login/password/init', s.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ userID: userId, code: link.searchParams.get('code')!, password, passwordConfirmation: password }),
      });
    const weak = await post('Short-1!');
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('at least 12 characters');
    expect((await post('Reset-Pass-123')).status).toBe(200);
    expect((await signIn('forgetful', 'Reset-Pass-123')).callback).toBeTruthy();
    expect((await signIn('forgetful', 'Known-Pass-123')).page?.status).toBe(401);
  });
});
