/**
 * The login page of a sign-in attempt (http/routes/oidc-ui.ts): the form as the application's
 * organisation has it — its login policy (password form, identity providers, password reset,
 * registration), its login texts, and the colours and links its project's privateLabelingSetting
 * chooses (page-look.ts) — and what a sent password leads to: the form again with why, or the steps
 * the user still owes (steps.ts). Also the consent step's refusals (the project's checks, an org scope).
 */
import { providersFor } from '../federation/sign-in.js';
import { type Login, login } from '../policies/login.js';
import { loginLanguage, loginPageTexts } from '../texts/login-texts.js';
import { hasNul } from '../unstorable-text.js';
import { attemptApp, FAILURE_STATUS, FAILURE_TEXT, failureRetryAfter, type LoginDeps, type LoginOutcome, type PageStatus, type SignInAttempt, showPage, UNCONFIRMED_HINT } from './flow.js';
import { orgScopeRefusal } from './org-scope.js';
import { signInLook } from './page-look.js';
import { checkPasswordLogin } from './password-login.js';
import { projectAccessRefusal } from './project-access.js';
import { registrationTarget } from './registration.js';
import { afterPassword } from './steps.js';

/** The login form, with `loginName` filled in and `error` when a try was refused. */
export async function loginForm(deps: LoginDeps, attempt: SignInAttempt, loginName: string, error?: string, status: PageStatus = 200, retryAfterSeconds?: number): Promise<LoginOutcome> {
  const { read } = deps.store;
  const app = await attemptApp(deps, attempt);
  const orgId = app?.orgId ?? deps.instanceId;
  // One organisation's login policy decides the form, the providers and registration: read once.
  const policies = new Map<string, Promise<Login>>();
  const policyOf = (id: string) => policies.get(id) ?? policies.set(id, login.effective(read, deps.instanceId, id)).get(id)!;
  const providers = app ? await providersFor(deps.store, app.orgId, deps.instanceId, policyOf) : [];
  const [policy, look, texts, registration] = await Promise.all([
    policyOf(orgId),
    signInLook(read, deps.instanceId, app),
    loginPageTexts(read, deps.instanceId, orgId, loginLanguage(attempt.uiLocales)),
    registrationTarget(read, deps.instanceId, app, attempt.requestedOrg, policyOf),
  ]);
  // Where people register here, a wrong-password answer also reminds them that a new account
  // signs in once its address is confirmed (said to everyone alike, so it tells nothing).
  if (error === FAILURE_TEXT.invalid_credentials && registration.allowed) error = `${error} ${UNCONFIRMED_HINT}`;
  const page = {
    name: 'sign-in',
    uid: attempt.uid,
    loginName,
    error,
    appName: app?.name,
    providers,
    passwordForm: policy.allowUsernamePassword,
    passwordReset: policy.allowUsernamePassword && !policy.hidePasswordReset,
    register: registration.allowed,
    look,
    texts,
  } as const;
  return showPage(page, status, retryAfterSeconds);
}

/** The login page of an attempt that asks for a sign-in. */
export function loginPageOf(deps: LoginDeps, attempt: SignInAttempt): Promise<LoginOutcome> {
  return loginForm(deps, attempt, attempt.loginHint);
}

/** The password form as sent; undefined when the body did not parse (the user's mistake, not the server's). */
export interface PasswordForm {
  loginName: string;
  password: string;
}

/** A sent login name and password: the steps the user still owes, or the form again with why not. */
export async function submitPassword(deps: LoginDeps, attempt: SignInAttempt, form: PasswordForm | undefined, clientAddress?: string): Promise<LoginOutcome> {
  if (!form) return loginForm(deps, attempt, '', 'Enter your login name and password.', 400);
  // A posted password where the login policy allows none (the form was not offered).
  const app = await attemptApp(deps, attempt);
  if (!(await login.effective(deps.store.read, deps.instanceId, app?.orgId ?? deps.instanceId)).allowUsernamePassword) {
    return loginForm(deps, attempt, '', 'Signing in with a password is not allowed for this application. Use one of the identity providers.', 403);
  }
  const { loginName, password } = form;
  if (!loginName || !password) return loginForm(deps, attempt, loginName, 'Enter your login name and password.', 400);
  // No login name or password holds U+0000, and PostgreSQL cannot look one up (oidc/nul-guard.ts).
  if (hasNul(loginName) || hasNul(password)) return loginForm(deps, attempt, '', 'Enter your login name and password.', 400);
  const outcome = await checkPasswordLogin(deps.store, deps.instanceId, loginName, password, deps.passwordVerifier, clientAddress);
  if (!outcome.ok) {
    const refused = await loginForm(deps, attempt, loginName, FAILURE_TEXT[outcome.reason], FAILURE_STATUS[outcome.reason], failureRetryAfter(outcome.reason));
    // Stored before the cost bounds existed; an administrator should reset this password.
    if (outcome.refusedHash) return { ...refused, log: { level: 'warn', message: 'stored password hash refused at login', fields: { userId: outcome.userId, reason: outcome.refusedHash } } };
    return refused;
  }
  // The authenticator app's code and a required new password come next, if any (steps.ts).
  return afterPassword(deps, attempt, outcome);
}

/** Why the consent step refuses the session's user for this application, if it does: a page. */
export async function consentRefusal(deps: LoginDeps, attempt: SignInAttempt, userId: string): Promise<LoginOutcome | undefined> {
  const { read } = deps.store;
  const look = async () => signInLook(read, deps.instanceId, await attemptApp(deps, attempt), userId);
  const refused = await projectAccessRefusal(read, attempt.clientId, userId);
  if (refused) return showPage({ name: 'message', title: 'No access to this application', text: refused.message, look: await look() }, 403);
  const otherOrg = await orgScopeRefusal(read, attempt.requestedOrg, userId);
  if (otherOrg) return showPage({ name: 'message', title: 'Not an account of this organisation', text: otherOrg.message, look: await look() }, 403);
  return undefined;
}
