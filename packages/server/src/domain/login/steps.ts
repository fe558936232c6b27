/**
 * What the login asks after the first factor (a right password, or an identity provider), before
 * the sign-in goes on:
 * 1. the second factor the login policy asks for (second-factor.ts): the authenticator app's code
 *    for a user who has one (totp.ts), or setting one up — forced, or offered with a skip button
 *    (otp-setup-step.ts);
 * 2. a new password, for a user who must change it (`passwordChangeRequired`: set by AddHumanUser's
 *    initial password, SetHumanPassword, or an import).
 * Between the steps the browser holds an HttpOnly cookie sealed with the operator's key: who passed
 * which checks, for which sign-in attempt, for five minutes. Nothing in the forms says who the user
 * is, so it cannot be changed; a link to an identity provider's identity that waits for the checks
 * travels in the same cookie (federation/browser-flow.ts).
 *
 * A browser whose session lacks only the second factor the login policy now requires (set after it
 * signed in: sign-in-standing.ts) is led to just that step (`leadToSecondFactor`): the same steps,
 * starting from the session's user and what it gave, and the session's sign-in time kept
 * (`signedInAt`), so that giving the factor extends no other check's lifetime.
 */

import { DomainError } from '../errors.js';
import type { ExternalIdentity } from '../federation/browser-state.js';
import { identityProvider } from '../federation/providers.js';
import { linkIdentity, SignInRefused } from '../federation/sign-in.js';
import { hasNul } from '../unstorable-text.js';
import { changePasswordAtLogin } from '../users/password.js';
import { codeWaitText } from './code-throttle.js';
import { type CookieChange, type LoginDeps, type LoginOutcome, type SignInAttempt, showPage } from './flow.js';
import { type FirstFactor, secondFactorStep } from './second-factor.js';
import { SECOND_FACTOR_REASON, type SecondFactorDetails, signInStanding } from './sign-in-standing.js';
import { type Step, secondFactorRefusedPage, stepPage } from './step-pages.js';
import { checkTotpLogin } from './totp.js';

export type { Step };

const STEPS_COOKIE = 'login_steps';
const PURPOSE = 'login.steps';
export const LOGIN_STEPS_TTL_MS = 5 * 60_000;

export interface PendingSteps {
  uid: string;
  userId: string;
  /** What is still to be done, in order. */
  steps: Step[];
  /** How the user was authenticated so far (the token's `amr`). */
  amr: string[];
  /** Set when the password was given to link an identity provider's identity (federation/browser-flow.ts). */
  link?: ExternalIdentity;
  /** An existing session's sign-in time (seconds), kept when it is led to a missing step; absent: now. */
  signedInAt?: number;
  exp: number;
}
type Pending = Omit<PendingSteps, 'exp'>;

/** What a right password leads to. */
export interface PasswordPassed {
  userId: string;
  orgId: string;
  otpRequired: boolean;
  passwordChangeRequired: boolean;
}

const cookiePath = (uid: string) => `/ui/login/${uid}`;

function remember(deps: LoginDeps, pending: Pending): CookieChange {
  const value = deps.secrets.seal(JSON.stringify({ ...pending, exp: Date.now() + LOGIN_STEPS_TTL_MS }), PURPOSE);
  return { name: STEPS_COOKIE, path: cookiePath(pending.uid), value, maxAgeSeconds: LOGIN_STEPS_TTL_MS / 1000 };
}
const forget = (uid: string): CookieChange => ({ name: STEPS_COOKIE, path: cookiePath(uid), remove: true });

/** The name of the cookie the routes hand to `currentSteps`. */
export const STEPS_COOKIE_NAME = STEPS_COOKIE;

function openSteps(deps: LoginDeps, uid: string, sealed: string | undefined): PendingSteps | undefined {
  if (!sealed) return undefined;
  try {
    const p = JSON.parse(deps.secrets.openText(sealed, PURPOSE)) as PendingSteps;
    return p.uid === uid && typeof p.userId === 'string' && Array.isArray(p.steps) && p.exp > Date.now() ? p : undefined;
  } catch {
    return undefined; // forged, altered, or sealed by a key this process no longer has
  }
}

/** Finishes the sign-in (after the link that waited for it, if any). */
async function finish(deps: LoginDeps, pending: Omit<Pending, 'steps'>): Promise<LoginOutcome> {
  if (pending.link) {
    const idp = await identityProvider(deps.store, pending.link.idpId);
    try {
      if (!idp || idp.state !== 'IDP_STATE_ACTIVE') throw new SignInRefused('The identity provider is no longer active. Sign in another way.');
      await linkIdentity(deps.store, idp, pending.link, pending.userId);
    } catch (error) {
      if (error instanceof SignInRefused) return showPage({ name: 'sign-in', uid: pending.uid, error: error.message }, 403);
      throw error;
    }
  }
  return { signIn: { userId: pending.userId, amr: pending.amr, signedInAt: pending.signedInAt }, cookies: [forget(pending.uid)] };
}

/** Goes on after a check: the next step's form, or the end of the sign-in. */
export async function next(deps: LoginDeps, attempt: SignInAttempt, pending: Pending): Promise<LoginOutcome> {
  if (pending.steps.length === 0) return finish(deps, pending);
  return { page: await stepPage(deps, attempt, pending.steps[0], pending.userId), status: 200, cookies: [remember(deps, pending)] };
}

/** After a right password at the login form (or the link form, with `link`). */
export function afterPassword(deps: LoginDeps, attempt: SignInAttempt, passed: PasswordPassed, link?: ExternalIdentity): Promise<LoginOutcome> {
  const user = { id: passed.userId, orgId: passed.orgId, hasApp: passed.otpRequired };
  return afterFirstFactor(deps, attempt, user, link ? 'password-link' : 'password', ['pwd'], passed.passwordChangeRequired, link);
}

/**
 * After the first factor (a password, or an identity provider's `fed`): the steps the user still
 * owes, then the end. The user's organisation and whether it has an app, when the caller has just
 * read them (the password check has), are not read again.
 */
export async function afterFirstFactor(
  deps: LoginDeps,
  attempt: SignInAttempt,
  user: { id: string; orgId?: string; hasApp?: boolean },
  first: FirstFactor,
  amr: string[],
  passwordChangeRequired = false,
  link?: ExternalIdentity,
): Promise<LoginOutcome> {
  const orgId = user.orgId ?? (await deps.store.read.users.get(user.id))?.orgId;
  const second = orgId ? await secondFactorStep(deps.store.read, deps.instanceId, { id: user.id, orgId }, first, { hasApp: user.hasApp }) : 'none';
  if (second === 'not-configured') return showPage(await secondFactorRefusedPage(deps, attempt, user.id), 403);
  const steps: Step[] = [
    ...(second === 'otp' ? (['otp'] as const) : second === 'enrol-required' ? (['otp-setup'] as const) : second === 'enrol-offered' ? (['otp-setup-offer'] as const) : []),
    ...(passwordChangeRequired ? (['new-password'] as const) : []),
  ];
  return next(deps, attempt, { uid: attempt.uid, userId: user.id, steps, amr, link });
}

/**
 * The login page of an authorization whose only reason to ask is the second factor the login policy
 * now requires of the browser's session (oidc/interaction-policy.ts): that step alone, as after a
 * password, or the refusal where none can be set up; undefined where the page should ask for the
 * whole sign-in. The rule is asked again here (the policy may have changed since the authorization).
 */
export async function leadToSecondFactor(deps: LoginDeps, attempt: SignInAttempt): Promise<LoginOutcome | undefined> {
  const userId = attempt.session?.accountId;
  if (!userId || attempt.prompt.reasons.length !== 1 || attempt.prompt.reasons[0] !== SECOND_FACTOR_REASON) return undefined;
  const { signedInAt } = attempt.prompt.details as SecondFactorDetails;
  const amr = attempt.session?.amr ?? [];
  const standing = await signInStanding(deps.store.read, deps.instanceId, { userId, at: signedInAt, amr });
  const pending = { uid: attempt.uid, userId, amr, signedInAt };
  if (standing.stands) return finish(deps, pending);
  if (standing.lacks === 'refused') return showPage(await secondFactorRefusedPage(deps, attempt, userId), 403);
  if (standing.lacks === 'sign-in') return undefined;
  return next(deps, attempt, { ...pending, steps: [standing.lacks] });
}

/**
 * This browser's pending steps with `step` (or one of `step`) the current one, from the steps'
 * cookie; else the page that says the checks so far have expired.
 */
export function currentSteps(deps: LoginDeps, attempt: SignInAttempt, sealed: string | undefined, step: Step | Step[]): { pending: PendingSteps } | { outcome: LoginOutcome } {
  const pending = openSteps(deps, attempt.uid, sealed);
  if (!pending || !(Array.isArray(step) ? step : [step]).includes(pending.steps[0])) {
    return { outcome: showPage({ name: 'sign-in', uid: attempt.uid, error: 'Your password check has expired. Sign in again.' }, 400) };
  }
  return { pending };
}

/** The same step's form again, with why the last try was refused. */
export async function stepAgain(deps: LoginDeps, attempt: SignInAttempt, pending: PendingSteps, error: string, status: 400 | 401 | 403 | 429, retryAfterSeconds?: number): Promise<LoginOutcome> {
  return showPage(await stepPage(deps, attempt, pending.steps[0], pending.userId, error), status, retryAfterSeconds);
}

/** The step passed: the rest of the steps (with the factor's `amr` when it was one). */
export function stepPassed(deps: LoginDeps, attempt: SignInAttempt, pending: PendingSteps, factor?: 'otp'): Promise<LoginOutcome> {
  const { exp: _exp, ...rest } = pending;
  return next(deps, attempt, { ...rest, steps: pending.steps.slice(1), amr: factor ? [...pending.amr, 'otp', 'mfa'] : pending.amr });
}

export const OTP_FAILURE_TEXT = {
  invalid_code: 'The code is wrong or was already used. Enter the current code from your authenticator app.',
  locked: 'This user is locked after too many failed attempts. Ask an administrator to unlock it.',
  inactive: 'This user cannot sign in.',
} as const;
const OTP_FAILURE_STATUS = { invalid_code: 401, locked: 403, inactive: 403 } as const;

/** The authenticator app's code (step `otp`). */
export async function submitOtp(deps: LoginDeps, attempt: SignInAttempt, sealed: string | undefined, typed: string): Promise<LoginOutcome> {
  const s = currentSteps(deps, attempt, sealed, 'otp');
  if ('outcome' in s) return s.outcome;
  const code = typed.replace(/\s/g, '');
  if (!/^\d{6}$/.test(code)) return stepAgain(deps, attempt, s.pending, 'Enter the 6-digit code from your authenticator app.', 400);
  const outcome = await checkTotpLogin(deps.store, deps.secrets, deps.instanceId, s.pending.userId, code);
  if (outcome.ok) return stepPassed(deps, attempt, s.pending, 'otp');
  if (outcome.reason === 'invalid_code') return stepAgain(deps, attempt, s.pending, OTP_FAILURE_TEXT.invalid_code, 401);
  if (outcome.reason === 'throttled') {
    // The steps stay: the person waits and enters the then current code on the same page.
    const wait = outcome.throttled.retryAfterSeconds;
    return stepAgain(deps, attempt, s.pending, codeWaitText(wait, 'the current code from your authenticator app'), 429, wait);
  }
  return { page: { name: 'sign-in', uid: attempt.uid, error: OTP_FAILURE_TEXT[outcome.reason] }, status: OTP_FAILURE_STATUS[outcome.reason], cookies: [forget(attempt.uid)] };
}

/** A new password, for a user who must change it (step `new-password`). */
export async function submitNewPassword(deps: LoginDeps, attempt: SignInAttempt, sealed: string | undefined, password: string, confirmation: string): Promise<LoginOutcome> {
  const s = currentSteps(deps, attempt, sealed, 'new-password');
  if ('outcome' in s) return s.outcome;
  if (!password || hasNul(password)) return stepAgain(deps, attempt, s.pending, 'Enter a new password.', 400);
  if (password !== confirmation) return stepAgain(deps, attempt, s.pending, 'The two passwords differ. Enter the same new password twice.', 400);
  try {
    await changePasswordAtLogin(deps.store, deps.instanceId, s.pending.userId, password);
  } catch (error) {
    // The complexity policy's rule, as the API would name it.
    if (error instanceof DomainError) return stepAgain(deps, attempt, s.pending, `The new password does not fit the rules: ${error.message.replace(/^invalid password: /, '')}.`, 400);
    throw error;
  }
  return stepPassed(deps, attempt, s.pending);
}
