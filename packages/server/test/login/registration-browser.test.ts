/**
 * Issue 31, in headless Chromium on both stores: self-registration where the organisation's login
 * policy allows it (the application then gets a code and tokens through openid-client, the
 * verification mail reaches a real SMTP server, and its link verifies once and then says so); no
 * link and a refusing page where it does not; a weak password refused by the complexity policy and a
 * taken email named on the form; the login policy's check lifetimes (a browser that signed in within
 * `passwordCheckLifetime` is not asked again, after it is; `prompt=login` and `max_age` always ask);
 * the pages a person reaches without an application (`/`, `/ui/login`, an expired sign-in).
 * Skips loudly where Chromium is not installed; CI installs it.
 */
import * as oc from 'openid-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChromiumProfile, chromiumAvailable, chromiumProfile, type RedirectTarget, startRedirectTarget } from '../support/chromium.js';
import { describeEachStore } from '../support/instance.js';
import { linkIn, outboxWorkerFor, type SmtpSink, startSmtpSink } from '../support/mail.js';
import { authorizeUrl, Browser, importHuman, loginThroughForm, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const available = chromiumAvailable('registration test');
const STRONG = 'Regist3r-Passw0rd!';
/** Short enough to wait out in a test, long enough for a sign-in and the next authorization within it. */
const LIFETIME_S = 4;
/** The server's limit of registrations per client address and hour here (REGISTRATIONS_PER_ADDRESS_PER_HOUR). */
const REGISTRATIONS_PER_HOUR = 3;

describeEachStore('self-registration, check lifetimes and start pages (Chromium)', (dialect) => {
  if (!available) {
    it.skip('needs Chromium', () => {});
    return;
  }
  let s: OidcTestServer;
  let sink: SmtpSink;
  let callback: RedirectTarget;
  let redirectUri: string;
  let profile: ChromiumProfile | undefined;
  let context: BrowserContext;
  let open: { clientId: string; orgId: string };
  let closed: { clientId: string; orgId: string };
  let quick: { clientId: string; orgId: string };

  const inOrg = (orgId: string) => ({ 'x-service-orgid': orgId });
  async function orgWithApp(name: string, loginPolicy: Record<string, unknown>) {
    const orgId = (await s.api('POST', '/management/v1/orgs', { name: `${name} ${dialect}` })).body.id as string;
    // mfaInitSkipLifetime 0: no authenticator app is offered after the password here, so a sign-in goes
    // straight on to the application (the offer has its own tests: mfa-login-browser.test.ts).
    const policy = await s.api('POST', '/management/v1/policies/login', { allowUsernamePassword: true, mfaInitSkipLifetime: '0s', ...loginPolicy }, undefined, inOrg(orgId));
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    return { orgId, clientId: await publicClientInNewProject(s, { name }, `${name} app`, redirectUri, inOrg(orgId)) };
  }

  /** openid-client's authorization request for `clientId`, and how to redeem what comes back. */
  async function authorization(clientId: string, extra: Record<string, string> = {}) {
    const config = await oc.discovery(new URL(s.issuer), clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const verifier = oc.randomPKCECodeVerifier();
    const state = oc.randomState();
    const url = oc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      state,
      code_challenge: await oc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    const redeem = (landed: string) => oc.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: state });
    return { url: url.href, redeem, config };
  }

  const landedAtApp = (page: Page) => page.url().startsWith(redirectUri);
  /**
   * A registration form posted over HTTP from `address` (a loopback address) in a sign-in of its own
   * to the Open organisation's application: the answer's status, its Retry-After and the page.
   */
  async function registerOverHttp(address: string, person: { firstName: string; lastName: string; email: string; password: string }) {
    const browser = new Browser({ localAddress: address });
    const login = await browser.follow((await authorization(open.clientId)).url, redirectUri);
    const registerUrl = /id="register" href="([^"]+)"/.exec(await login.res.text())?.[1];
    expect(registerUrl, 'the login page links the register page').toBeDefined();
    const res = await browser.request(s.issuer + registerUrl, { form: { ...person, passwordConfirmation: person.password } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), html: await res.text() };
  }
  /** A plain authorization request (PKCE, no state) for the tests' HTTP browser. */
  const authorizeUrlOf = (clientId: string) => authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: redirectUri });

  beforeAll(async () => {
    s = await startOidcServer(dialect, { registrationsPerAddressPerHour: REGISTRATIONS_PER_HOUR });
    sink = await startSmtpSink();
    callback = await startRedirectTarget('/callback');
    redirectUri = callback.uri;
    const smtp = await s.api('POST', '/admin/v1/smtp', { senderAddress: 'noreply@identity.example', senderName: 'Identity', tls: false, host: `127.0.0.1:${sink.port}` });
    expect(smtp.status, JSON.stringify(smtp.body)).toBe(200);
    expect((await s.api('POST', `/admin/v1/smtp/${smtp.body.id}/_activate`)).status).toBe(200);
    open = await orgWithApp('Open', { allowRegister: true });
    closed = await orgWithApp('Closed', { allowRegister: false });
    quick = await orgWithApp('Quick', { allowRegister: false, passwordCheckLifetime: `${LIFETIME_S}s`, secondFactorCheckLifetime: `${LIFETIME_S}s` });
    profile = chromiumProfile(`chromium-register-${dialect}-`);
    context = await profile.launch();
  }, 90_000);
  afterAll(async () => {
    await context?.close();
    await callback?.close();
    await sink?.close();
    await s?.close();
    profile?.remove();
  });

  it('registers where allowed: a weak password is refused on the form; an accepted form says to check the inbox; the account signs in once its address is confirmed; a taken email gets the same page and its owner a notice', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    const email = `reg-${dialect}@example.com`;
    const { url, redeem, config } = await authorization(open.clientId);
    await page.goto(url);
    await page.click('#register');
    expect(new URL(page.url()).pathname).toMatch(/^\/ui\/login\/[^/]+\/register$/);
    expect(await page.textContent('h1')).toBe('Create your account');
    expect(await page.textContent('#password-rules')).toBe('At least 8 characters, with a lower-case letter, an upper-case letter, a digit and a symbol.');
    // Issue 48.7: the rules overlapped the password input (a negative top margin meant for another line).
    const [input, rules, next] = await Promise.all(['#password', '#password-rules', 'label[for=passwordConfirmation]'].map((sel) => page.locator(sel).boundingBox()));
    expect(rules!.y, 'the rules start below the password input').toBeGreaterThanOrEqual(input!.y + input!.height);
    expect(rules!.y + rules!.height, 'and end above the next label').toBeLessThanOrEqual(next!.y);

    // The organisation's complexity policy (ZITADEL's default: upper, lower, digit, symbol, 8).
    await page.fill('#firstName', 'Rita');
    await page.fill('#lastName', 'Register');
    await page.fill('#email', email);
    await page.fill('#password', 'weakpassword');
    await page.fill('#passwordConfirmation', 'weakpassword');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('#register-error')).toContain('The password does not fit the rules: must contain an upper-case letter');
    expect(await page.inputValue('#email')).toBe(email); // what was entered stays
    expect(await s.t.store.read.logins.usersByNameKey(email)).toEqual([]);

    await page.fill('#password', STRONG);
    await page.fill('#passwordConfirmation', STRONG);
    const accepted = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.click('button[type=submit]');
    expect((await accepted).status()).toBe(200);
    // Not signed in yet: the page says where the next step went.
    expect(await page.textContent('h1')).toBe('Check your inbox');
    expect(await page.textContent('#sent-to')).toBe(email);
    const sentPage = { message: await page.textContent('#message'), next: await page.textContent('#next-step') };
    const [created] = await s.t.store.read.logins.usersByNameKey(email);
    const userId = created!.user.id;

    // The API's user creation, with the new user as its creator; in the organisation of the app.
    const user = await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg(open.orgId));
    expect(user.body.user).toMatchObject({ userName: email, state: 'USER_STATE_INITIAL', human: { email: { email } } });
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId });
    expect(events.body.events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['user.human.added']);
    expect(events.body.events[0]).toMatchObject({ editor: { userId }, aggregate: { resourceOwner: open.orgId } });

    // Its password does not sign in before the address is confirmed: answered as a wrong one, with a reminder.
    await page.click('#back');
    await page.fill('#loginName', email);
    await page.fill('#password', STRONG);
    const early = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.click('button[type=submit]');
    expect((await early).status()).toBe(401);
    expect(await page.textContent('#login-error')).toBe(
      'The login name or the password is wrong. Just created your account? Confirm your email address first: follow the link in the mail we sent you.',
    );

    // The verification mail, through the outbox to the SMTP server.
    const { worker } = outboxWorkerFor(s);
    await worker.runOnce();
    const mail = sink.messages.find((m) => m.to && JSON.stringify(m.to).includes(email));
    expect(mail?.subject).toBe('Verify email');
    const link = linkIn(mail!);
    const verifier = await context.newPage();
    await verifier.goto(link.href);
    expect(await verifier.textContent('h1')).toBe('Email verified');
    // The same link again: it says so instead of a bare error.
    await verifier.goto(link.href);
    expect(await verifier.textContent('h1')).toBe('Email already verified');
    await verifier.close();
    expect((await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg(open.orgId))).body.user.state).toBe('USER_STATE_ACTIVE');

    // Confirmed: the same sign-in goes on to the application, which gets tokens.
    await page.fill('#loginName', email);
    await page.fill('#password', STRONG);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('button[type=submit]')]);
    const tokens = await redeem(page.url());
    expect(tokens.claims()!.sub).toBe(userId);
    const info = await oc.fetchUserInfo(config, tokens.access_token, userId);
    expect(info).toMatchObject({ email, email_verified: true, given_name: 'Rita', family_name: 'Register' });

    // The same email again, from a fresh browser: the same page as for a new account (nothing tells
    // the address has one), nothing created; the owner is mailed a notice instead.
    await context.clearCookies();
    await page.goto((await authorization(open.clientId)).url);
    await page.click('#register');
    await page.fill('#firstName', 'Rita');
    await page.fill('#lastName', 'Again');
    await page.fill('#email', email);
    await page.fill('#password', 'An0ther-Passw0rd!');
    await page.fill('#passwordConfirmation', 'An0ther-Passw0rd!');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.click('button[type=submit]');
    expect((await answer).status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Check your inbox');
    expect(await page.textContent('#sent-to')).toBe(email);
    expect({ message: await page.textContent('#message'), next: await page.textContent('#next-step') }).toEqual(sentPage);
    expect((await s.t.store.read.logins.usersByNameKey(email)).map((r) => r.user.id)).toEqual([userId]);
    const before = sink.messages.length;
    await worker.runOnce();
    await worker.stop();
    const notice = sink.messages.slice(before).find((m) => JSON.stringify(m.to).includes(email));
    expect(notice?.subject).toBe('You already have an account');
    expect(notice?.text).toContain('Someone, maybe you, just tried to create a new account with this email address. You already have one: sign in with');
    expect(notice?.text).toContain(`How to sign in: ${s.issuer}/ui/login`);
    const outbox = await s.api('POST', '/admin/v1/notifications/_search', { userId, messageType: 'registration_attempt' });
    expect(outbox.body.result).toEqual([expect.objectContaining({ status: 'sent', recipient: email })]);
    // The account's password is unchanged: the owner signs in with it.
    await page.click('#back');
    await page.fill('#loginName', email);
    await page.fill('#password', STRONG);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('button[type=submit]')]);
    await page.close();
  }, 120_000);

  it('offers no registration where the login policy does not allow it, and the page refuses', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto((await authorization(closed.clientId)).url);
    await page.waitForSelector('#loginName');
    expect(await page.locator('#register').count()).toBe(0);
    const registerUrl = `${page.url()}/register`;
    const shown = await page.goto(registerUrl);
    expect(shown!.status()).toBe(403);
    expect(await page.textContent('h1')).toBe('Registration is not available');
    // A form posted anyway (the policy may have changed since the page was shown) creates nobody.
    const posted = await page.request.post(registerUrl, { form: { firstName: 'No', lastName: 'Body', email: `nobody-${dialect}@example.com`, password: STRONG, passwordConfirmation: STRONG } });
    expect(posted.status()).toBe(403);
    expect(await s.t.store.read.logins.usersByNameKey(`nobody-${dialect}@example.com`)).toEqual([]);
    // The way on: back to the sign-in page.
    await page.goto(registerUrl);
    await page.click('#back');
    await page.waitForSelector('#loginName');
    await page.close();
  }, 60_000);

  it("an org scope names where the account goes, but cannot open registration where the application's organisation has it off; nor register where the named organisation's policy forbids it", async () => {
    // The default organisation has no login policy of its own: the instance's, which allows registering.
    const defaultOrg = s.t.defaultOrgId;
    const page = await context.newPage();
    for (const [clientId, orgId, label] of [
      [closed.clientId, defaultOrg, 'the default organisation through an app whose organisation has it off'],
      [open.clientId, closed.orgId, 'an organisation whose policy forbids it'],
    ] as const) {
      await context.clearCookies();
      const email = `scoped-${dialect}-${orgId}@example.com`;
      await page.goto((await authorization(clientId, { scope: `openid profile email urn:zitadel:iam:org:id:${orgId}` })).url);
      await page.waitForSelector('#loginName');
      expect(await page.locator('#register').count(), label).toBe(0);
      const registerUrl = `${page.url()}/register`;
      const shown = await page.goto(registerUrl);
      expect(shown!.status(), label).toBe(403);
      expect(await page.textContent('h1')).toBe('Registration is not available');
      const posted = await page.request.post(registerUrl, { form: { firstName: 'Sco', lastName: 'Ped', email, password: STRONG, passwordConfirmation: STRONG } });
      expect(posted.status(), label).toBe(403);
      expect(await s.t.store.read.logins.usersByNameKey(email), label).toEqual([]);
    }
    // Where both allow it, the scope decides where the account goes: the named organisation.
    const other = await orgWithApp('Other', { allowRegister: true });
    await context.clearCookies();
    const email = `elsewhere-${dialect}@example.com`;
    await page.goto((await authorization(open.clientId, { scope: `openid profile email urn:zitadel:iam:org:id:${other.orgId}` })).url);
    await page.click('#register');
    await page.fill('#firstName', 'Else');
    await page.fill('#lastName', 'Where');
    await page.fill('#email', email);
    await page.fill('#password', STRONG);
    await page.fill('#passwordConfirmation', STRONG);
    await page.click('button[type=submit]');
    expect(await page.textContent('h1')).toBe('Check your inbox');
    expect((await s.t.store.read.logins.usersByNameKey(email)).map((r) => r.user.orgId)).toEqual([other.orgId]);
    await page.close();
  }, 90_000);

  it(`accepts at most ${REGISTRATIONS_PER_HOUR} registrations an hour from one address (HTTP form posts from 127.0.0.3), then answers 429 with a page that says what to do; other addresses go on`, async () => {
    const register = (address: string, email: string) => registerOverHttp(address, { firstName: 'Many', lastName: 'Forms', email, password: STRONG });
    // A mistake on the form costs nothing.
    const weak = (await registerOverHttp('127.0.0.3', { firstName: 'W', lastName: 'Eak', email: `weak-${dialect}@example.com`, password: 'weak' })).status;
    expect(weak).toBe(400);
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) {
      const accepted = await register('127.0.0.3', `many-${dialect}-${i}@example.com`);
      expect(accepted.status, accepted.html.slice(0, 300)).toBe(200);
      expect(accepted.html).toContain('Check your inbox');
    }
    const refused = await register('127.0.0.3', `many-${dialect}-more@example.com`);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(3000);
    expect(refused.html).toContain('<h1>Too many new accounts from your network</h1>');
    expect(refused.html).toContain('Try again in 60 minutes.');
    expect(refused.html).toContain('If you already have an account, sign in with it instead');
    expect(refused.html).toContain('id="back" class="button"');
    expect(refused.html).toContain('<style>'); // the service's frame and look, as every page
    expect(await s.t.store.read.logins.usersByNameKey(`many-${dialect}-more@example.com`)).toEqual([]);
    // Another address is not held to this one's count.
    expect((await register('127.0.0.4', `other-address-${dialect}@example.com`)).status).toBe(200);
  }, 90_000);

  it("registering an address whose account was registered but never confirmed: the same page; that account loses its password and the address gets the init mail, whose link lets its owner choose one, so the first registrant's password never signs in", async () => {
    const email = `squatted-${dialect}@example.com`;
    const register = (password: string) => registerOverHttp('127.0.0.5', { firstName: 'Sq', lastName: 'Uat', email, password });
    // Someone else registers the address first, and never confirms it.
    const first = await register('Squatt3r-Passw0rd!');
    expect(first.status).toBe(200);
    const [squatted] = await s.t.store.read.logins.usersByNameKey(email);
    const userId = squatted!.user.id;
    // The owner of the address registers: the same page; nothing new is created.
    const second = await register('0wner-Passw0rd!');
    expect(second.status).toBe(200);
    expect(second.html).toContain('Check your inbox');
    expect((await s.t.store.read.logins.usersByNameKey(email)).map((r) => r.user.id)).toEqual([userId]);
    const before = sink.messages.length;
    const { worker } = outboxWorkerFor(s);
    await worker.runOnce();
    await worker.stop();
    const mails = sink.messages.slice(before).filter((m) => JSON.stringify(m.to).includes(email));
    expect(mails.map((m) => m.subject).sort()).toEqual(['Initialize User', 'Verify email']);
    // The first registration's verification link confirms the address, but the account has no password any more.
    expect(await fetch(linkIn(mails.find((m) => m.subject === 'Verify email')!)).then((r) => r.text())).toContain('Email verified');
    // The init link: the owner chooses the password; the address is confirmed with it.
    const init = linkIn(mails.find((m) => m.subject === 'Initialize User')!);
    const set = await fetch(`${s.issuer}/ui/login/user/init`, {
      method: 'POST',
      body: new URLSearchParams({ userID: init.searchParams.get('userID')!, code: init.searchParams.get('code')!, password: 'Ch0sen-Passw0rd!', passwordConfirmation: 'Ch0sen-Passw0rd!' }),
    });
    expect(set.status).toBe(200);
    expect(await set.text()).toContain('Password set');
    const user = (await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg(open.orgId))).body.user;
    expect(user).toMatchObject({ state: 'USER_STATE_ACTIVE', human: { email: { email, isEmailVerified: true } } });
    const signIn = (password: string) => loginThroughForm(new Browser(), authorizeUrlOf(open.clientId), redirectUri, email, password);
    expect((await signIn('Squatt3r-Passw0rd!')).page?.status).toBe(401);
    expect((await signIn('Ch0sen-Passw0rd!')).callback?.searchParams.get('code')).toBeTruthy();
  }, 60_000);

  it(`check lifetimes: within passwordCheckLifetime (${LIFETIME_S}s) no password is asked, after it is; prompt=login and max_age always ask`, async () => {
    await context.clearCookies();
    const userName = `quick-${dialect}`;
    await s.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName,
        profile: { firstName: 'Quinn', lastName: 'Quick' },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        password: STRONG,
      },
      undefined,
      inOrg(quick.orgId),
    );
    const page = await context.newPage();
    await page.goto((await authorization(quick.clientId)).url);
    await page.fill('#loginName', userName);
    await page.fill('#password', STRONG);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('button[type=submit]')]);
    const signedInAt = Date.now();

    // Within the lifetime: straight back to the application, and its code is good.
    const again = await authorization(quick.clientId);
    await page.goto(again.url);
    expect(landedAtApp(page)).toBe(true);
    expect(Date.now() - signedInAt).toBeLessThan(LIFETIME_S * 1000); // else this step proved nothing
    expect((await again.redeem(page.url())).claims()!.sub).toBeTruthy();
    // prompt=login and max_age=0 ask even now.
    await page.goto((await authorization(quick.clientId, { prompt: 'login' })).url);
    expect(await page.locator('#password').count()).toBe(1);
    await page.goto((await authorization(quick.clientId, { max_age: '0' })).url);
    expect(await page.locator('#password').count()).toBe(1);

    // After the lifetime: the password is asked again.
    await new Promise((r) => setTimeout(r, Math.max(0, signedInAt + LIFETIME_S * 1000 + 500 - Date.now())));
    const later = await authorization(quick.clientId);
    await page.goto(later.url);
    expect(landedAtApp(page)).toBe(false);
    await page.fill('#loginName', userName);
    await page.fill('#password', STRONG);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('button[type=submit]')]);
    expect((await later.redeem(page.url())).claims()!.sub).toBeTruthy();

    // The default lifetimes (10 days for the password) keep another organisation's users signed in.
    await context.clearCookies();
    await importHuman(s, `steady-${dialect}`, { password: STRONG });
    await page.goto((await authorization(open.clientId)).url);
    await page.fill('#loginName', `steady-${dialect}`);
    await page.fill('#password', STRONG);
    // The instance's default policy offers an authenticator app after the password: the user skips it.
    await page.click('button[type=submit]');
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri)), page.click('#skip')]);
    await new Promise((r) => setTimeout(r, 1000));
    await page.goto((await authorization(open.clientId)).url);
    expect(landedAtApp(page)).toBe(true);
    await page.close();
  }, 90_000);

  it('pages without an application: / and /ui/login lead on; an expired sign-in and a used or lost verification code offer the next step', async () => {
    const page = await context.newPage();
    const root = await page.goto(s.issuer + '/');
    expect(root!.status()).toBe(200);
    expect(root!.headers()['content-type']).toContain('text/html');
    expect(await page.getAttribute('#openapi', 'href')).toBe('/openapi.json');
    expect(await page.getAttribute('#docs', 'href')).toBe('/docs');
    await page.click('#health');
    expect(JSON.parse((await page.textContent('body'))!)).toEqual({ status: 'ok' });

    const start = await page.goto(s.issuer + '/ui/login');
    expect(start!.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Signing in starts at an application');
    await page.click('#home');
    expect(await page.textContent('h1')).toBe('Identity service');

    const expired = await page.goto(s.issuer + '/ui/login/no-such-attempt');
    expect(expired!.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('This sign-in has expired');
    expect(await page.textContent('#next-step')).toContain('choose its sign-in button again');
    await page.click('#home');
    expect(await page.textContent('h1')).toBe('Identity service');

    // A code that no longer works: the page offers a new mail, and it comes.
    const userName = `lost-${dialect}`;
    const created = await s.api('POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'Lou', lastName: 'Lost' },
      email: { email: `${userName}@example.com` },
      password: STRONG,
    });
    expect(created.status).toBe(200);
    const userId = created.body.userId as string;
    const before = sink.messages.length;
    const { worker } = outboxWorkerFor(s);
    await worker.runOnce();
    const wrong = await page.goto(`${s.issuer}/ui/login/mail/verification?userID=${userId}&code=WRONG1`);
    expect(wrong!.status()).toBe(400);
    await page.click('#resend');
    expect(await page.textContent('#page-notice')).toContain('A new verification mail is on its way');
    await worker.runOnce();
    await worker.stop();
    const mails = sink.messages.slice(before).filter((m) => JSON.stringify(m.to).includes(`${userName}@example.com`));
    // The import's own mail and the new one; only the newest code works.
    expect(mails.length).toBe(2);
    await page.goto(linkIn(mails.at(-1)!).href);
    expect(await page.textContent('h1')).toBe('Email verified');
    await page.close();
  }, 60_000);
});
