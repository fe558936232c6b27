/**
 * Issue 12 (the second factor users already have): a user imported with ZITADEL's `otpCode` gives
 * the authenticator app's code after the password; wrong and reused codes are refused and counted
 * toward the organisation's lockout policy (`maxOtpAttempts`); an administrator can remove the app.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/login/totp.js';
import { sealPlainOtpSecrets } from '../../src/domain/users/otp-secret.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { describeEachStore } from '../support/instance.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/cb';
const PASSWORD = 'Passw0rd-Totp!';
// A base32 secret as ZITADEL exports it with `withOtp`.
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describeEachStore('TOTP at the login page', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  let userId: string;
  const orgId = `${Date.now() % 1_000_000_000}7`;
  const inOrg = () => ({ 'x-service-orgid': orgId });

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    // ZITADEL's organisation document: the user with its secret, and the organisation's lockout policy.
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          {
            orgId,
            org: { name: `totp-${orgId}` },
            lockoutPolicy: { maxPasswordAttempts: 5, maxOtpAttempts: 2 },
            humanUsers: [
              {
                userId: `${orgId}1`,
                user: { userName: 'tina', profile: { firstName: 'Ti', lastName: 'Na' }, email: { email: 'tina@example.com', isEmailVerified: true }, password: PASSWORD, otpCode: SECRET },
              },
            ],
          },
        ],
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.errors ?? []).toEqual([]);
    userId = `${orgId}1`;
    clientId = await publicClientInNewProject(s, { name: 'totp' }, 'totp', REDIRECT, inOrg());
  }, 60_000);
  afterAll(() => s?.close());

  const authorize = () => {
    const url = new URL(authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT }));
    return url.href;
  };
  /** The password step; returns the browser and the code form's address. */
  const passPassword = async () => {
    const browser = new Browser();
    const step = await loginThroughForm(browser, authorize(), REDIRECT, 'tina', PASSWORD);
    expect(step.callback, 'the password alone must not sign in').toBeUndefined();
    expect(step.page?.status).toBe(200);
    expect(step.page?.html).toContain('authenticator app');
    const action = /<form method="post" action="([^"]+\/otp)"/.exec(step.page!.html)![1];
    return { browser, otpUrl: s.issuer + action };
  };
  const submitCode = async (a: { browser: Browser; otpUrl: string }, code: string) => {
    const r = await a.browser.follow(a.otpUrl, REDIRECT, { form: { code } });
    return { status: r.res.status, callback: r.location, html: r.location ? '' : await r.res.text() };
  };
  const state = async () => (await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).body.user.state;
  const otpEvents = async () =>
    (
      await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: ['user.human.mfa.otp.check.failed', 'user.human.mfa.otp.check.succeeded', 'user.locked'], asc: true })
    ).body.events.map((e: any) => e.type.type);

  it('asks for the code after the password; a wrong code is refused and counted, the right one signs in, a used one is refused', async () => {
    const a = await passPassword();
    const wrong = await submitCode(a, totpCode(SECRET, Date.now() + 10 * 60_000));
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('The code is wrong');
    expect(await otpEvents()).toEqual(['user.human.mfa.otp.check.failed']);
    expect((await submitCode(a, 'abc')).status).toBe(400);

    // The code form without this browser's password check: a new sign-in is needed.
    const other = await passPassword();
    const stranger = new Browser();
    expect((await stranger.follow(other.otpUrl, REDIRECT, { form: { code: totpCode(SECRET) } })).res.status).toBe(400);

    const code = totpCode(SECRET);
    const right = await submitCode(a, code);
    expect(right.callback?.searchParams.get('code')).toBeTruthy();
    // The same code again, in a new sign-in: refused (and counted).
    const b = await passPassword();
    expect((await submitCode(b, code)).status).toBe(401);
    expect(await otpEvents()).toEqual(['user.human.mfa.otp.check.failed', 'user.human.mfa.otp.check.succeeded', 'user.human.mfa.otp.check.failed']);
    expect(await state()).toBe('USER_STATE_ACTIVE');
  });

  it("maxOtpAttempts wrong codes lock the user; unlocking lets the user in with the app's next code", async () => {
    const a = await passPassword();
    // One failure is left over from the first test (the reused code): one more reaches the limit of 2.
    const locked = await submitCode(a, '000000' === totpCode(SECRET) ? '111111' : '000000');
    expect(locked.status).toBe(403);
    expect(locked.html).toContain('locked');
    expect(await state()).toBe('USER_STATE_LOCKED');
    expect((await loginThroughForm(new Browser(), authorize(), REDIRECT, 'tina', PASSWORD)).page?.status).toBe(403);

    expect((await s.api('POST', `/management/v1/users/${userId}/_unlock`, undefined, undefined, inOrg())).status).toBe(200);
    const b = await passPassword();
    // The code of the next 30-second step: within the accepted drift, and not used before.
    expect((await submitCode(b, totpCode(SECRET, Date.now() + 30_000))).callback).toBeTruthy();
  });

  it('an administrator removes the authenticator app: the password alone signs in; the export no longer carries it', async () => {
    expect((await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).status).toBe(200);
    const before = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true, with_otp: true });
    expect(before.body.orgs[0].humanUsers[0].user.otpCode).toBe(SECRET);
    expect((await s.api('DELETE', `/management/v1/users/${userId}/auth_factors/otp`, undefined, undefined, inOrg())).status).toBe(200);
    expect((await loginThroughForm(new Browser(), authorize(), REDIRECT, 'tina', PASSWORD)).callback).toBeTruthy();
    const after = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true, with_otp: true });
    expect(after.body.orgs[0].humanUsers[0].user.otpCode).toBeUndefined();
  });

  it('the secret is sealed at rest; one an earlier version stored in plain text is sealed by the next start and still works', async () => {
    const other = (
      await s.api(
        'POST',
        '/management/v1/users/human/_import',
        {
          userName: 'theo',
          profile: { firstName: 'T', lastName: 'Heo' },
          email: { email: 'theo@example.com', isEmailVerified: true },
          password: PASSWORD,
          otpCode: SECRET,
        },
        undefined,
        inOrg(),
      )
    ).body.userId as string;
    const stored = await s.t.store.read.logins.otpSecret(other);
    expect(stored).toMatch(/^sb1\./);
    expect(stored).not.toContain(SECRET);
    // As an earlier version left it: plain base32.
    await s.t.store.transaction((tx) => tx.logins.replaceOtpSecret(other, stored!, SECRET));
    expect(await sealPlainOtpSecrets(s.t.store, processSecretBox())).toBe(1);
    expect(await s.t.store.read.logins.otpSecret(other)).toMatch(/^sb1\./);
    const exported = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true, with_otp: true });
    expect(exported.body.orgs[0].humanUsers.find((h: any) => h.userId === other).user.otpCode).toBe(SECRET);
  });
});
