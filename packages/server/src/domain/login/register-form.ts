/**
 * Self-registration during a sign-in (ZITADEL's register page; the rules are registration.ts's):
 * the form where the login policies allow it, else a page that says what to do (the login page
 * then offers no link either). An accepted form is answered "check your inbox" whether the address
 * was new or not (the mail says which; the log tells the operator); the person signs in once the
 * address is confirmed. Too many accepted forms from one client address: a page that says when to
 * try again.
 */
import { loginLanguage, loginPageTexts } from '../texts/login-texts.js';
import { attemptApp, type LoginDeps, type LoginOutcome, type SignInAttempt, showPage } from './flow.js';
import { signInLook } from './page-look.js';
import type { RegisterPageView } from './pages.js';
import { passwordRulesInWords, type RegistrationInput, RegistrationRefused, registerHuman, registrationTarget } from './registration.js';

/** Where registering would put the person, and how its pages look and read; the refusal where it is not allowed. */
async function registration(deps: LoginDeps, attempt: SignInAttempt) {
  const { read } = deps.store;
  const app = await attemptApp(deps, attempt);
  const place = { app, requested: attempt.requestedOrg };
  const target = await registrationTarget(read, deps.instanceId, place.app, place.requested);
  const [look, texts, passwordRules] = await Promise.all([
    signInLook(read, deps.instanceId, app),
    loginPageTexts(read, deps.instanceId, target.orgId ?? app?.orgId ?? deps.instanceId, loginLanguage(attempt.uiLocales)),
    target.orgId ? passwordRulesInWords(read, deps.instanceId, target.orgId) : undefined,
  ]);
  const closed = showPage({ name: 'registration-closed', uid: attempt.uid, look }, 403);
  const form = (view: Omit<RegisterPageView, 'uid' | 'look' | 'texts' | 'appName' | 'passwordRules'>, status?: 400) =>
    showPage({ name: 'register', ...view, uid: attempt.uid, look, texts, appName: app?.name, passwordRules }, status);
  return { place, target, look, closed, form, open: target.allowed && !!target.orgId };
}

/** The register page. */
export async function registrationForm(deps: LoginDeps, attempt: SignInAttempt): Promise<LoginOutcome> {
  const r = await registration(deps, attempt);
  return r.open ? r.form({}) : r.closed;
}

/** A sent registration form: "check your inbox", or the form again with why not. */
export async function submitRegistration(deps: LoginDeps, attempt: SignInAttempt, form: RegistrationInput & { passwordConfirmation: string }, clientAddress: string): Promise<LoginOutcome> {
  const r = await registration(deps, attempt);
  if (!r.open) return r.closed;
  const entered = { firstName: form.firstName, lastName: form.lastName, email: form.email };
  if (form.password !== form.passwordConfirmation) return r.form({ ...entered, error: 'The two passwords differ. Enter the same password twice.', errorField: 'password' }, 400);
  let outcome;
  try {
    const admit = () => deps.registrations.take(clientAddress);
    outcome = await registerHuman(deps.store, deps.secrets, deps.instanceId, r.place, { ...entered, password: form.password }, admit);
  } catch (error) {
    if (!(error instanceof RegistrationRefused)) throw error;
    switch (error.reason) {
      case 'not_allowed':
        return r.closed;
      case 'rate_limited':
        return showPage({ name: 'registration-limited', uid: attempt.uid, retryAfterSeconds: error.retryAfterSeconds!, look: r.look }, 429, error.retryAfterSeconds);
      case 'weak_password':
        return r.form({ ...entered, error: `The password does not fit the rules: ${error.message}`, errorField: 'password' }, 400);
      default:
        return r.form({ ...entered, error: error.message, errorField: error.field }, 400);
    }
  }
  // The log tells the operator which it was; the person is answered the same.
  const logged = outcome.existing ? { existingUserId: outcome.userId, mailed: outcome.mailed ?? 'nothing' } : { userId: outcome.userId };
  const message = outcome.existing ? 'registration for an existing account' : 'user registered at sign-in';
  return { ...showPage({ name: 'registration-sent', uid: attempt.uid, email: entered.email.trim(), look: r.look }), log: { level: 'info', message, fields: { orgId: r.target.orgId, ...logged } } };
}
