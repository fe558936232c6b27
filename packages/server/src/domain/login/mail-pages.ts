/**
 * The pages a mail's button leads to (ZITADEL's paths; routes in http/routes/login-mail.ts): email
 * verification (verifying at once when the link carries the code, as ZITADEL's login does; a new
 * mail on request), and choosing a password with a mailed code — the first one (user
 * initialisation, the init mail) or a new one (the password-reset mail): one flow, two kinds
 * (`SET_PASSWORD`). Every page wears the user's organisation's look, a finished step leads on to the
 * login policy's `defaultRedirectUri` when one is set (page-look.ts), and every refusal says what
 * to do next.
 */

import type { Store } from '../../store/store.js';
import { DomainError } from '../errors.js';
import type { SlidingWindowLimit } from '../rate-limit.js';
import { hasNul } from '../unstorable-text.js';
import { CodeRefused, emailVerificationState, initCodeOpen, initializeWithCode, mailVerificationAgainFromPage, verifyEmailWithCode } from '../users/email.js';
import { resetCodeOpen, resetPasswordWithCode } from '../users/password.js';
import { CodeChecksThrottled, codeWaitText } from './code-throttle.js';
import { type LoginOutcome, showPage } from './flow.js';
import { mailPageContext } from './page-look.js';

export interface MailPageDeps {
  store: Store;
  instanceId: string;
  /** "Send a new verification mail" per user, in this process. */
  resends: SlidingWindowLimit;
}

/** A value from a link or form: trimmed, and none when it holds U+0000 (no id or code does). */
const clean = (value: string) => (hasNul(value) ? '' : value.trim());

/** What a mail's link carries. */
export interface MailLink {
  userId: string;
  code: string;
  orgId: string;
}

const CLOSE_PAGE = 'You can close this page and go back to the application.';

/** A code checked too soon after wrong ones (code-throttle.ts): what the page says. */
const waitText = (error: CodeChecksThrottled) => codeWaitText(error.retryAfterSeconds, 'the code from the mail again');

/** The verification link (or its form): verified, the form for the code, or why not. */
export async function verifyEmailPage(deps: MailPageDeps, link: MailLink): Promise<LoginOutcome> {
  const [userId, code, orgId] = [clean(link.userId), clean(link.code), clean(link.orgId)];
  if (!userId) return showPage({ name: 'done', title: 'Link incomplete', text: 'This verification link lacks the user.', next: 'Open the link from the mail again, or ask for a new mail.' }, 400);
  const { look, continueTo } = await mailPageContext(deps.store.read, deps.instanceId, userId);
  if (!code) return showPage({ name: 'verification', userId, orgId, look });
  try {
    await verifyEmailWithCode(deps.store, userId, code);
  } catch (error) {
    if (error instanceof CodeChecksThrottled) return showPage({ name: 'verification', userId, orgId, error: waitText(error), look }, 429, error.retryAfterSeconds);
    if (!(error instanceof CodeRefused)) throw error;
    // A link used once already (the code is gone with it): nothing left to do but go on.
    if (error.check === 'none' && (await emailVerificationState(deps.store, userId)) === 'verified') {
      return showPage({ name: 'done', title: 'Email already verified', text: 'This link was used already: your email address is verified.', next: CLOSE_PAGE, look, continueTo });
    }
    return showPage({ name: 'verification', userId, orgId, error: error.message, resend: true, look }, error.check === 'none' ? 404 : 400);
  }
  return showPage({ name: 'done', title: 'Email verified', text: 'Your email address is verified.', next: CLOSE_PAGE, look, continueTo });
}

/**
 * "Send a new verification mail": at most as often as `resends` allows per user, since anyone
 * holding a link (or guessing an id) could otherwise flood the user's inbox.
 */
export async function resendVerification(deps: MailPageDeps, link: Omit<MailLink, 'code'>): Promise<LoginOutcome> {
  const [userId, orgId] = [clean(link.userId), clean(link.orgId)];
  const { look, continueTo } = await mailPageContext(deps.store.read, deps.instanceId, userId);
  const state = await emailVerificationState(deps.store, userId);
  if (state === 'verified') return showPage({ name: 'done', title: 'Email already verified', text: 'Your email address is verified already.', next: CLOSE_PAGE, look, continueTo });
  if (state === 'unknown') {
    const next = 'Open the link from the newest mail again, or ask an administrator for a new mail.';
    return showPage({ name: 'done', title: 'Link incomplete', text: 'This verification link names no account that can verify an email.', next, look }, 404);
  }
  const wait = deps.resends.take(userId);
  if (wait !== undefined) {
    const error = `A new mail was sent a short while ago. Check your inbox and spam folder, or ask again in ${Math.ceil(wait / 60)} minute(s).`;
    return showPage({ name: 'verification', userId, orgId, error, look }, 429, wait);
  }
  await mailVerificationAgainFromPage(deps.store, userId);
  const notice = 'A new verification mail is on its way. Enter its code here, or follow its link; the code of an older mail no longer works.';
  return showPage({ name: 'verification', userId, orgId, notice, look });
}

/** The two kinds of password chosen with a mailed code: what each checks, does and says. */
const SET_PASSWORD = {
  /** ZITADEL's user initialisation (the init mail): the first password; the email counts as verified. */
  init: {
    open: initCodeOpen,
    set: initializeWithCode,
    nothing: [
      'Nothing to set up',
      'This account has no open initialisation: it was completed already, or the link is incomplete.',
      'Sign in at the application, or ask an administrator for a new mail.',
    ],
    enter: 'Enter the code and a password.',
    done: ['Password set', 'Your account is ready and your email is verified.', 'Go back to the application and sign in with your login name and the new password.'],
  },
  /** ZITADEL's password reset page (the PasswordReset mail). */
  reset: {
    open: resetCodeOpen,
    set: resetPasswordWithCode,
    nothing: [
      'Nothing to reset',
      'This account has no open password reset: it was used already, or the link is incomplete.',
      'Sign in at the application, or ask an administrator for a new reset mail.',
    ],
    enter: 'Enter the code and a new password.',
    done: ['Password changed', 'Your new password is set.', 'Go back to the application and sign in with it.'],
  },
} as const;

export type SetPasswordKind = keyof typeof SET_PASSWORD;

/** The form to choose the password, where a code of this kind is open for the user. */
export async function setPasswordPage(deps: MailPageDeps, kind: SetPasswordKind, link: MailLink): Promise<LoginOutcome> {
  const {
    open,
    nothing: [title, text, next],
  } = SET_PASSWORD[kind];
  const userId = clean(link.userId);
  const { look } = await mailPageContext(deps.store.read, deps.instanceId, userId);
  if (!userId || !(await open(deps.store, userId))) return showPage({ name: 'done', title, text, next, look }, 404);
  return showPage({ name: 'set-password', userId, code: clean(link.code), orgId: clean(link.orgId), reset: kind === 'reset', look });
}

/** The form sent: the password set with the code, or the form again with why not. */
export async function setPasswordWithCode(deps: MailPageDeps, kind: SetPasswordKind, form: MailLink & { password: string; passwordConfirmation: string }): Promise<LoginOutcome> {
  const {
    set,
    enter,
    done: [title, text, next],
  } = SET_PASSWORD[kind];
  const [userId, code, orgId] = [clean(form.userId), clean(form.code), clean(form.orgId)];
  const password = hasNul(form.password) ? '' : form.password;
  const { look, continueTo } = await mailPageContext(deps.store.read, deps.instanceId, userId);
  const again = (error: string, status: 400 | 404 | 429, retryAfterSeconds?: number) =>
    showPage({ name: 'set-password', userId, code, orgId, error, reset: kind === 'reset', look }, status, retryAfterSeconds);
  if (!userId || !code || !password) return again(enter, 400);
  if (password !== form.passwordConfirmation) return again('The two passwords differ.', 400);
  try {
    await set(deps.store, deps.instanceId, userId, code, password);
  } catch (error) {
    if (error instanceof CodeChecksThrottled) return again(waitText(error), 429, error.retryAfterSeconds);
    if (error instanceof CodeRefused) return again(error.message, error.check === 'none' ? 404 : 400);
    if (error instanceof DomainError) return again(error.message, 400);
    throw error;
  }
  return showPage({ name: 'done', title, text, next, look, continueTo });
}
