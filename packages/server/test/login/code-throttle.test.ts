/**
 * Issue 47, item 3: short codes could be guessed without limit at the default lockout policy
 * (`maxOtpAttempts: 0`, as ZITADEL's): 300 wrong TOTP codes in 2.7 s, the right one accepted after
 * them. Every short code checked for a user now goes through one throttle (domain/login/code-throttle.ts):
 * three wrong codes are free, then each check waits 1 s, doubling up to 300 s, counted in the store
 * under the user's lock; a check too early is refused without looking at the code; the right code
 * resets the count. On both stores: the sign-in's code page, concurrent guesses, the schedule and
 * its cap, the code confirming an app being set up, and the mailed verification code's page.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OutboxWorker } from '../../src/background/outbox-worker.js';
import { GrpcCode } from '../../src/domain/errors.js';
import { CODE_THROTTLE, CodeChecksThrottled, waitAfterFailures } from '../../src/domain/login/code-throttle.js';
import { checkTotpLogin, totpCode } from '../../src/domain/login/totp.js';
import { confirmOtpEnrolment, startOtpEnrolment } from '../../src/domain/users/otp-enrolment.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { describeEachStore } from '../support/instance.js';
import { readDroppedMail } from '../support/mail.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';
import { tempDir } from '../support/temp-dir.js';

const REDIRECT = 'http://127.0.0.1:1/cb';
const PASSWORD = 'Passw0rd-Codes!';
// A base32 secret as ZITADEL exports it with `withOtp`.
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
/** A well-formed code that is not the current one (ten minutes ahead, beyond the accepted drift). */
const wrongCode = (n = 0) => totpCode(SECRET, Date.now() + (10 + n) * 60_000);

describeEachStore('one throttle on short codes, whatever the lockout policy', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  let n = 0;
  const box = processSecretBox();

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    clientId = await publicClientInNewProject(s, { name: 'codes' }, 'codes', REDIRECT);
    // The instance's lockout policy as ZITADEL ships it: wrong codes never lock.
    expect(Number((await s.api('GET', '/admin/v1/policies/lockout')).body.policy.maxOtpAttempts ?? 0)).toBe(0);
  }, 60_000);
  afterAll(() => s?.close());

  /** A new user with a password and an authenticator app. */
  async function userWithApp(): Promise<{ userName: string; userId: string }> {
    const userName = `coder-${n++}`;
    const res = await s.api('POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'Co', lastName: 'Der' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      password: PASSWORD,
      otpCode: SECRET,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { userName, userId: res.body.userId };
  }
  /** The password step in a browser of its own; returns how to post codes to its code form. */
  async function passPassword(userName: string) {
    const browser = new Browser();
    const step = await loginThroughForm(browser, authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT }), REDIRECT, userName, PASSWORD);
    expect(step.page?.html).toContain('authenticator app');
    const otpUrl = s.issuer + /<form method="post" action="([^"]+\/otp)"/.exec(step.page!.html)![1];
    return async (code: string) => {
      const r = await browser.follow(otpUrl, REDIRECT, { form: { code } });
      return { status: r.res.status, retryAfter: r.res.headers.get('retry-after'), callback: r.location, html: r.location ? '' : await r.res.text() };
    };
  }
  const events = async (userId: string, type: string) => (await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: [type], limit: 1000 })).body.events.length as number;

  it('the sign-in code page: three wrong codes, then the right one within the wait is refused (429, the page says how long); after the wait it signs in and the count starts again', async () => {
    const { userName, userId } = await userWithApp();
    const submit = await passPassword(userName);
    for (let i = 0; i < CODE_THROTTLE.freeFailures; i++) expect((await submit(wrongCode(i))).status).toBe(401);
    const early = await submit(totpCode(SECRET));
    expect(early.status).toBe(429);
    expect(early.retryAfter).toBe('1');
    expect(early.html).toContain('Too many wrong codes were entered for this account. Wait a second, then enter the current code from your authenticator app.');
    expect(early.html).toContain('<form method="post"'); // the same step, on the same page
    // Not looked at, not counted.
    expect(await events(userId, 'user.human.mfa.otp.check.failed')).toBe(3);
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'otp')).toMatchObject({ count: 3 });

    await new Promise((r) => setTimeout(r, 1_100));
    const right = await submit(totpCode(SECRET));
    expect(right.callback?.searchParams.get('code')).toBeTruthy();
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'otp')).toBeUndefined();
    expect((await s.api('GET', `/management/v1/users/${userId}`)).body.user.state).toBe('USER_STATE_ACTIVE');
  }, 60_000);

  it('twenty guesses at once are checked one after another: three are looked at, seventeen refused unlooked-at, the right one among them too', async () => {
    const { userName, userId } = await userWithApp();
    const submit = await passPassword(userName);
    const guesses = [...Array.from({ length: 19 }, (_, i) => wrongCode(i)), totpCode(SECRET)];
    const answers = await Promise.all(guesses.map((code) => submit(code)));
    const statuses = answers.map((a) => a.status);
    // Which three are looked at depends on arrival; if the right one was among them it signed in.
    const signedIn = answers.filter((a) => a.callback).length;
    expect(statuses.filter((st) => st === 429)).toHaveLength(17);
    expect(statuses.filter((st) => st === 401)).toHaveLength(3 - signedIn);
    expect(await events(userId, 'user.human.mfa.otp.check.failed')).toBe(3 - signedIn);
  }, 60_000);

  it('the wait doubles from 1 s after the third wrong code up to 300 s, counted from the last failure; never longer; the right code resets it', async () => {
    expect([0, 1, 2, 3, 4, 5, 11, 12, 13, 50].map(waitAfterFailures)).toEqual([0, 0, 0, 1, 2, 4, 256, 300, 300, 300]);
    const { userId } = await userWithApp();
    const t0 = Date.now() + 3_600_000; // a clock of the test's own, an hour ahead
    const check = (at: number, code: string) => checkTotpLogin(s.t.store, box, s.t.instanceId, userId, code, at);
    const wrongAt = (at: number) => totpCode(SECRET, at + 10 * 60_000);
    for (let i = 0; i < 3; i++) expect(await check(t0, wrongAt(t0))).toEqual({ ok: false, reason: 'invalid_code' });
    let last = t0;
    for (const wait of [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]) {
      // Just before the wait is over: refused, and it says how long is left.
      const early = await check(last + wait * 1000 - 500, totpCode(SECRET, last + wait * 1000 - 500));
      expect(early).toMatchObject({ ok: false, reason: 'throttled' });
      expect((early as { throttled: CodeChecksThrottled }).throttled.retryAfterSeconds).toBe(1);
      last += wait * 1000;
      expect(await check(last, wrongAt(last))).toEqual({ ok: false, reason: 'invalid_code' });
    }
    // Fourteen wrong codes: the real user waits 300 s at most, then the right code signs in and resets.
    last += 300_000;
    expect(await check(last, totpCode(SECRET, last))).toEqual({ ok: true });
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'otp')).toBeUndefined();
    expect(await check(last + 60_000, wrongAt(last + 60_000))).toEqual({ ok: false, reason: 'invalid_code' });
  }, 60_000);

  it('the code that confirms an app being set up (the login step and the auth API) goes through the same throttle', async () => {
    const userName = `enrol-${n++}`;
    const created = await s.api('POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'En', lastName: 'Rol' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      password: PASSWORD,
    });
    const userId = created.body.userId as string;
    const { secret } = await startOtpEnrolment(s.t.store, box, { instanceId: s.t.instanceId, userId, issuerName: 'test' });
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) {
      await expect(confirmOtpEnrolment(s.t.store, box, userId, totpCode(secret, t0 + (10 + i) * 60_000), t0)).rejects.toMatchObject({ code: GrpcCode.InvalidArgument, id: 'EVENT-8isk2' });
    }
    const early = confirmOtpEnrolment(s.t.store, box, userId, totpCode(secret, t0), t0);
    await expect(early).rejects.toBeInstanceOf(CodeChecksThrottled);
    await expect(early).rejects.toMatchObject({ code: GrpcCode.ResourceExhausted, id: 'CODE-w41t1' });
    // Set apart from the sign-in code's count.
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'otp')).toBeUndefined();
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'otp_setup')).toMatchObject({ count: 3 });
    await expect(confirmOtpEnrolment(s.t.store, box, userId, totpCode(secret, t0 + 1_000), t0 + 1_000)).resolves.toHaveProperty('details');
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'otp_setup')).toBeUndefined();
  }, 60_000);

  it('the mailed verification code: three wrong codes on the page, then the right one within the wait is refused with a page that says how long; after it the code verifies', async () => {
    const userName = `mailer-${n++}`;
    const created = await s.api('POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'Ma', lastName: 'Iler' },
      email: { email: `${userName}@example.com` },
      password: PASSWORD,
    });
    const userId = created.body.userId as string;
    const mailDropDir = tempDir('code-throttle-mail-');
    const worker = new OutboxWorker({ store: s.t.store, secrets: box, instanceId: s.t.instanceId, externalUrl: s.issuer, mailDropDir });
    while ((await worker.runOnce()) > 0);
    const mail = (await readDroppedMail(mailDropDir)).find(({ mail }) => (mail.to && 'text' in mail.to ? mail.to.text : '') === `${userName}@example.com`)!;
    const code = /code=([A-Z0-9]{6})/.exec(mail.mail.text ?? '')![1]!;
    const post = async (c: string) => {
      const res = await fetch(`${s.issuer}/ui/login/mail/verification`, { method: 'POST', body: new URLSearchParams({ userID: userId, code: c }) });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), html: await res.text() };
    };
    for (const wrong of ['WRONG1', 'WRONG2', 'WRONG3']) expect((await post(wrong)).status).toBe(400);
    const early = await post(code);
    expect(early.status).toBe(429);
    expect(early.retryAfter).toBe('1');
    expect(early.html).toContain('Wait a second, then enter the code from the mail again.');
    await new Promise((r) => setTimeout(r, 1_100));
    const right = await post(code);
    expect(right.status).toBe(200);
    expect(right.html).toContain('Email verified');
    expect(await s.t.store.read.logins.codeFailures.get(userId, 'email_verification')).toBeUndefined();
  }, 60_000);

  it('an unlock forgets the wrong codes with the failed passwords', async () => {
    const { userId } = await userWithApp();
    const t0 = Date.now();
    for (let i = 0; i < 4; i++) await checkTotpLogin(s.t.store, box, s.t.instanceId, userId, wrongCode(i), t0);
    expect(await checkTotpLogin(s.t.store, box, s.t.instanceId, userId, totpCode(SECRET), t0)).toMatchObject({ reason: 'throttled' });
    // Unlock needs a locked user: lock, then unlock.
    expect((await s.api('POST', `/management/v1/users/${userId}/_lock`)).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${userId}/_unlock`)).status).toBe(200);
    expect(await checkTotpLogin(s.t.store, box, s.t.instanceId, userId, totpCode(SECRET), t0)).toEqual({ ok: true });
  }, 60_000);
});
