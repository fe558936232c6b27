/**
 * The pages a mail's button leads to (ZITADEL's paths): email verification
 * (`/ui/login/mail/verification?userID=…&code=…&orgID=…`, verifying at once when the link
 * carries the code, as ZITADEL's login does) and user initialisation (`/ui/login/user/init`,
 * choose a password with the init code). Server-rendered, no JavaScript, like the login page;
 * every refusal says what to do next.
 */
import type { Context, Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { CodeChecksThrottled, codeWaitText } from '../../domain/login/code-throttle.js';
import { CodeRefused, emailVerificationState, initCodeOpen, initializeWithCode, mailVerificationAgainFromPage, verifyEmailWithCode } from '../../domain/users/email.js';
import { SlidingWindowLimit } from '../../domain/rate-limit.js';
import { hasNul } from '../../oidc/nul-guard.js';
import { resetCodeOpen, resetPasswordWithCode } from '../../domain/users/password.js';
import type { Store } from '../../store/store.js';
import type { AppEnv } from '../env.js';
import { donePage, initPage, verificationPage } from '../../ui/pages.js';
import { mailPageContext } from '../../domain/login/page-look.js';

const RESENDS_PER_WINDOW = 3;
const RESEND_WINDOW_MS = 15 * 60_000;

const clean = (v: unknown) => (typeof v === 'string' && !hasNul(v) ? v.trim() : '');

/** A code checked too soon after wrong ones (domain/login/code-throttle.ts): `Retry-After`, and what the page says. */
function waitText(c: Context, error: CodeChecksThrottled): string {
  c.header('Retry-After', String(error.retryAfterSeconds));
  return codeWaitText(error.retryAfterSeconds, 'the code from the mail again');
}

export function registerMailPageRoutes(app: Hono<AppEnv>, store: Store, instanceId: string) {
  // Each page wears the user's organisation's colours and links; a finished step leads on to the
  // login policy's defaultRedirectUri when one is set (page-look.ts).
  const context = (userId: string) => mailPageContext(store.read, instanceId, userId);

  async function verify(c: Context, userId: string, code: string, orgId: string) {
    if (!userId) return c.html(donePage('Link incomplete', 'This verification link lacks the user.', 'Open the link from the mail again, or ask for a new mail.'), 400);
    const { look, continueTo } = await context(userId);
    if (!code) return c.html(verificationPage({ userId, orgId, look }));
    try {
      await verifyEmailWithCode(store, userId, code);
    } catch (error) {
      if (error instanceof CodeChecksThrottled) return c.html(verificationPage({ userId, orgId, error: waitText(c, error), look }), 429);
      if (!(error instanceof CodeRefused)) throw error;
      // A link used once already (the code is gone with it): nothing left to do but go on.
      if (error.check === 'none' && (await emailVerificationState(store, userId)) === 'verified') {
        return c.html(donePage('Email already verified', 'This link was used already: your email address is verified.', 'You can close this page and go back to the application.', { look, continueTo }));
      }
      return c.html(verificationPage({ userId, orgId, error: error.message, resend: true, look }), error.check === 'none' ? 404 : 400);
    }
    return c.html(donePage('Email verified', 'Your email address is verified.', 'You can close this page and go back to the application.', { look, continueTo }));
  }
  app.get('/ui/login/mail/verification', (c) => verify(c, clean(c.req.query('userID')), clean(c.req.query('code')), clean(c.req.query('orgID'))));
  app.post('/ui/login/mail/verification', async (c) => {
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    return verify(c, clean(form.userID), clean(form.code), clean(form.orgID));
  });

  // "Send a new verification mail": at most RESENDS_PER_WINDOW per user and window in this process,
  // since anyone holding a link (or guessing an id) could otherwise flood the user's inbox.
  const resends = new SlidingWindowLimit(RESENDS_PER_WINDOW, RESEND_WINDOW_MS);
  app.post('/ui/login/mail/verification/resend', async (c) => {
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    const userId = clean(form.userID);
    const orgId = clean(form.orgID);
    const { look, continueTo } = await context(userId);
    const state = await emailVerificationState(store, userId);
    if (state === 'verified') return c.html(donePage('Email already verified', 'Your email address is verified already.', 'You can close this page and go back to the application.', { look, continueTo }));
    if (state === 'unknown') return c.html(donePage('Link incomplete', 'This verification link names no account that can verify an email.', 'Open the link from the newest mail again, or ask an administrator for a new mail.', { look }), 404);
    const wait = resends.take(userId);
    if (wait !== undefined) {
      c.header('Retry-After', String(wait));
      return c.html(verificationPage({ userId, orgId, error: `A new mail was sent a short while ago. Check your inbox and spam folder, or ask again in ${Math.ceil(wait / 60)} minute(s).`, look }), 429);
    }
    await mailVerificationAgainFromPage(store, userId);
    return c.html(verificationPage({ userId, orgId, notice: 'A new verification mail is on its way. Enter its code here, or follow its link; the code of an older mail no longer works.', look }));
  });

  app.get('/ui/login/user/init', async (c) => {
    const userId = clean(c.req.query('userID'));
    const code = clean(c.req.query('code'));
    const orgId = clean(c.req.query('orgID'));
    const { look } = await context(userId);
    if (!userId || !(await initCodeOpen(store, userId))) {
      return c.html(donePage('Nothing to set up', 'This account has no open initialisation: it was completed already, or the link is incomplete.', 'Sign in at the application, or ask an administrator for a new mail.', { look }), 404);
    }
    return c.html(initPage({ userId, code, orgId, look }));
  });
  app.post('/ui/login/user/init', async (c) => {
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    const userId = clean(form.userID);
    const code = clean(form.code);
    const orgId = clean(form.orgID);
    const password = typeof form.password === 'string' && !hasNul(form.password) ? form.password : '';
    const again = typeof form.passwordConfirmation === 'string' ? form.passwordConfirmation : '';
    const { look, continueTo } = await context(userId);
    const page = (error: string, status: 400 | 404 | 429) => c.html(initPage({ userId, code, orgId, error, look }), status);
    if (!userId || !code || !password) return page('Enter the code and a password.', 400);
    if (password !== again) return page('The two passwords differ.', 400);
    try {
      await initializeWithCode(store, instanceId, userId, code, password);
    } catch (error) {
      if (error instanceof CodeChecksThrottled) return page(waitText(c, error), 429);
      if (error instanceof CodeRefused) return page(error.message, error.check === 'none' ? 404 : 400);
      if (error instanceof DomainError) return page(error.message, 400);
      throw error;
    }
    return c.html(donePage('Password set', 'Your account is ready and your email is verified.', 'Go back to the application and sign in with your login name and the new password.', { look, continueTo }));
  });

  // ZITADEL's password reset page (the link of the PasswordReset mail).
  app.get('/ui/login/password/init', async (c) => {
    const userId = clean(c.req.query('userID'));
    const { look } = await context(userId);
    if (!userId || !(await resetCodeOpen(store, userId))) {
      return c.html(donePage('Nothing to reset', 'This account has no open password reset: it was used already, or the link is incomplete.', 'Sign in at the application, or ask an administrator for a new reset mail.', { look }), 404);
    }
    return c.html(initPage({ userId, code: clean(c.req.query('code')), orgId: clean(c.req.query('orgID')), reset: true, look }));
  });
  app.post('/ui/login/password/init', async (c) => {
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    const userId = clean(form.userID);
    const code = clean(form.code);
    const orgId = clean(form.orgID);
    const password = typeof form.password === 'string' && !hasNul(form.password) ? form.password : '';
    const again = typeof form.passwordConfirmation === 'string' ? form.passwordConfirmation : '';
    const { look, continueTo } = await context(userId);
    const page = (error: string, status: 400 | 404 | 429) => c.html(initPage({ userId, code, orgId, error, reset: true, look }), status);
    if (!userId || !code || !password) return page('Enter the code and a new password.', 400);
    if (password !== again) return page('The two passwords differ.', 400);
    try {
      await resetPasswordWithCode(store, instanceId, userId, code, password);
    } catch (error) {
      if (error instanceof CodeChecksThrottled) return page(waitText(c, error), 429);
      if (error instanceof CodeRefused) return page(error.message, error.check === 'none' ? 404 : 400);
      if (error instanceof DomainError) return page(error.message, 400);
      throw error;
    }
    return c.html(donePage('Password changed', 'Your new password is set.', 'Go back to the application and sign in with it.', { look, continueTo }));
  });
}
