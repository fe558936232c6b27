/**
 * The login flows answer with outcomes, not responses (domain/login/flow.ts): a page by name, a
 * redirect, a refusal with its log line. Asked here without HTTP, on both stores: the pages a
 * mail leads to (verification, initialisation, reset: one flow, two kinds) and the refusals of a
 * sign-in through an identity provider (domain/federation/browser-flow.ts). The browser suites
 * (password-reset-at-login, jwt-idp-login, oidc-idp-login, …) cover the same flows through the routes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jwtFromProxy, oidcCallback, providerCallback, startProviderSignIn } from '../../src/domain/federation/browser-flow.js';
import { OidcUpstreams } from '../../src/domain/federation/oidc-upstream.js';
import { ProviderKeys } from '../../src/domain/federation/provider-keys.js';
import type { LoginDeps, LoginOutcome, SignInAttempt } from '../../src/domain/login/flow.js';
import { type MailPageDeps, resendVerification, setPasswordPage, setPasswordWithCode, verifyEmailPage } from '../../src/domain/login/mail-pages.js';
import { SlidingWindowLimit } from '../../src/domain/rate-limit.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const ISSUER = 'http://127.0.0.1:1';

/** The page's name and status, and what it shows, of a `{ page }` outcome. */
function pageOf(outcome: LoginOutcome) {
  if (!('page' in outcome)) throw new Error(`not a page: ${JSON.stringify(outcome)}`);
  return { ...outcome.page, status: outcome.status ?? 200, retryAfterSeconds: outcome.retryAfterSeconds };
}

describeEachStore('login flows as outcomes', (dialect) => {
  let t: TestInstance;
  let mail: MailPageDeps;
  let login: LoginDeps;
  let unverifiedId: string;
  const stamp = Date.now() % 1_000_000_000;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    const secrets = processSecretBox();
    mail = { store: t.store, instanceId: t.instanceId, resends: new SlidingWindowLimit(1, 60_000) };
    login = {
      store: t.store,
      instanceId: t.instanceId,
      issuer: ISSUER,
      secrets,
      providerKeys: new ProviderKeys(),
      oidcUpstreams: new OidcUpstreams(secrets),
      registrations: new SlidingWindowLimit(5, 60_000),
    };
    const added = await t.call('POST', '/management/v1/users/human', {
      body: { userName: `vera-${stamp}`, profile: { firstName: 'Vera', lastName: 'V' }, email: { email: `vera-${stamp}@example.com`, isEmailVerified: false } },
    });
    expect(added.status).toBe(200);
    unverifiedId = ((await added.json()) as { userId: string }).userId;
  }, 60_000);
  afterAll(() => t?.close());

  it('verification: a link without the user, or with a NUL in it, is "Link incomplete" (400); without a code, the code form', async () => {
    for (const userId of ['', 'x\u0000y']) {
      const page = pageOf(await verifyEmailPage(mail, { userId, code: 'abc', orgId: '' }));
      expect([page.name, page.status, page.name === 'done' && page.title]).toEqual(['done', 400, 'Link incomplete']);
    }
    const form = pageOf(await verifyEmailPage(mail, { userId: ` ${unverifiedId} `, code: '', orgId: t.defaultOrgId }));
    expect(form).toMatchObject({ name: 'verification', userId: unverifiedId, orgId: t.defaultOrgId, status: 200 });
    expect(form).not.toHaveProperty('error');
  });

  it('a new verification mail: once per window, then 429 with the wait; a verified or unknown user is told so', async () => {
    const sent = pageOf(await resendVerification(mail, { userId: unverifiedId, orgId: '' }));
    expect(sent).toMatchObject({ name: 'verification', status: 200, notice: expect.stringContaining('A new verification mail is on its way') });
    const again = pageOf(await resendVerification(mail, { userId: unverifiedId, orgId: '' }));
    expect(again).toMatchObject({ name: 'verification', status: 429, error: expect.stringContaining('A new mail was sent a short while ago') });
    expect(again.retryAfterSeconds).toBeGreaterThan(0);
    const unknown = pageOf(await resendVerification(mail, { userId: '999999999999999999', orgId: '' }));
    expect(unknown).toMatchObject({ name: 'done', status: 404, title: 'Link incomplete' });
  });

  it('choosing a password with a mailed code: nothing open is 404 per kind; the form refuses what is missing or differs, per kind', async () => {
    expect(pageOf(await setPasswordPage(mail, 'init', { userId: unverifiedId, code: 'c', orgId: '' }))).toMatchObject({ name: 'done', status: 404, title: 'Nothing to set up' });
    expect(pageOf(await setPasswordPage(mail, 'reset', { userId: unverifiedId, code: 'c', orgId: '' }))).toMatchObject({ name: 'done', status: 404, title: 'Nothing to reset' });
    const form = { userId: unverifiedId, code: 'ABC123', orgId: '', password: 'Passw0rd!x', passwordConfirmation: 'Passw0rd!y' };
    expect(pageOf(await setPasswordWithCode(mail, 'init', { ...form, code: '' }))).toMatchObject({ name: 'set-password', status: 400, reset: false, error: 'Enter the code and a password.' });
    expect(pageOf(await setPasswordWithCode(mail, 'reset', { ...form, code: '' }))).toMatchObject({ name: 'set-password', status: 400, reset: true, error: 'Enter the code and a new password.' });
    expect(pageOf(await setPasswordWithCode(mail, 'reset', form))).toMatchObject({ name: 'set-password', status: 400, reset: true, code: 'ABC123', error: 'The two passwords differ.' });
  });

  const attempt = (uid: string): SignInAttempt => ({ uid, clientId: 'no-such-client', loginHint: '', prompt: { name: 'login', reasons: [], details: {} } });

  it('an identity provider\u2019s sign-in: each refusal is a page with the way back where there is one, and a log line', async () => {
    const uid = `attempt-${stamp}`;
    const back = `${ISSUER}/ui/login/${uid}`;
    const notOffered = await startProviderSignIn(login, attempt(uid), '123456789012345678');
    expect(notOffered).toMatchObject({ status: 400, refusal: { backTo: back, message: expect.stringContaining('not offered') }, log: { level: 'warn', fields: { uid } } });
    expect(notOffered).not.toHaveProperty('cookies');

    const gone = async () => undefined;
    const badState = await oidcCallback(login, gone, { state: 'not-sealed', code: 'c', params: new URLSearchParams() });
    expect(badState).toMatchObject({ status: 400, refusal: { backTo: undefined, message: expect.stringContaining('invalid or has expired') } });
    const noIds = await jwtFromProxy(login, gone, { authRequestId: '', userAgentId: '', header: () => undefined });
    expect(noIds).toMatchObject({ status: 400, refusal: { message: expect.stringContaining('lacks authRequestID') } });

    const otherBrowser = await providerCallback(login, attempt(uid), 'not-sealed', 'some-cookie');
    expect(otherBrowser).toMatchObject({ status: 400, refusal: { backTo: back, message: expect.stringContaining('belongs to another browser') } });
  });
});
