/**
 * "Forgot your password?" at the login page (ZITADEL's login offers it unless the login policy of
 * the application's organisation has `hidePasswordReset`): the person enters the login name, the
 * password-reset mail is queued (users/password.ts), and the page answers the same whether or not
 * such a user exists. The mail's link leads to the set-password page (mail-pages.ts).
 */
import { login } from '../policies/login.js';
import { hasNul } from '../unstorable-text.js';
import { requestPasswordResetAtLogin } from '../users/password.js';
import { attemptApp, type LoginDeps, type LoginOutcome, type SignInAttempt, showPage } from './flow.js';
import { type PageLook, signInLook } from './page-look.js';

/** The attempt's look where its organisation offers the reset, else the page that says why there is no form. */
async function offered(deps: LoginDeps, attempt: SignInAttempt): Promise<{ refused: LoginOutcome } | { look: PageLook }> {
  const app = await attemptApp(deps, attempt);
  const [policy, look] = await Promise.all([login.effective(deps.store.read, deps.instanceId, app?.orgId ?? deps.instanceId), signInLook(deps.store.read, deps.instanceId, app)]);
  if (policy.hidePasswordReset || !policy.allowUsernamePassword) {
    return {
      refused: showPage(
        { name: 'message', title: 'Password reset not offered', text: 'This application\u2019s organisation does not offer a password reset here. Ask an administrator to reset your password.' },
        404,
      ),
    };
  }
  return { look };
}

/** The form for the login name. */
export async function passwordResetForm(deps: LoginDeps, attempt: SignInAttempt): Promise<LoginOutcome> {
  const a = await offered(deps, attempt);
  return 'refused' in a ? a.refused : showPage({ name: 'forgot-password', uid: attempt.uid, look: a.look });
}

/** The login name sent: the mail is queued if such a user exists; the answer is the same either way. */
export async function requestPasswordReset(deps: LoginDeps, attempt: SignInAttempt, typed: string): Promise<LoginOutcome> {
  const a = await offered(deps, attempt);
  if ('refused' in a) return a.refused;
  const loginName = typed.trim();
  if (!loginName || hasNul(loginName)) return showPage({ name: 'forgot-password', uid: attempt.uid, look: a.look, error: 'Enter your login name.' }, 400);
  await requestPasswordResetAtLogin(deps.store, deps.instanceId, loginName);
  return showPage({ name: 'forgot-password', uid: attempt.uid, look: a.look, sent: true });
}
