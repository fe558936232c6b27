/**
 * What the login page asks after a right password (or an identity provider), before the sign-in goes on:
 * 1. the second factor the login policy asks for (domain/login/second-factor.ts): the authenticator
 *    app's code for a user who has one (domain/login/totp.ts), or setting one up — forced, or offered
 *    with a skip button (login-mfa.ts);
 * 2. a new password, for a user who must change it (`passwordChangeRequired`: set by AddHumanUser's
 *    initial password, SetHumanPassword, or an import).
 * Between the steps the browser holds an HttpOnly cookie sealed with the operator's key: who passed
 * which checks, for which sign-in attempt, for five minutes. Nothing in the forms says who the user
 * is, so it cannot be changed; a link to an identity provider's identity that waits for the checks
 * travels in the same cookie (login-federation.ts).
 *
 * A browser whose session lacks only the second factor the login policy now requires (set after it
 * signed in: domain/login/sign-in-standing.ts) is led to just that step (`leadToSecondFactor`): the
 * same steps, starting from the session's user and what it gave, and the session's sign-in time kept
 * (`signedInAt`), so that giving the factor extends no other check's lifetime.
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { checkTotpLogin } from '../../domain/login/totp.js';
import { codeWaitText } from '../../domain/login/code-throttle.js';
import { linkIdentity, SignInRefused } from '../../domain/federation/sign-in.js';
import { identityProvider } from '../../domain/federation/providers.js';
import type { ExternalIdentity } from '../../domain/federation/browser-state.js';
import { DomainError } from '../../domain/errors.js';
import { changePasswordAtLogin } from '../../domain/users/password.js';
import type { AppEnv } from '../env.js';
import { appOf, expiredPage, interactionOf, node, type Details, type OidcRouteDeps } from './login-flow.js';
import { signInStanding } from '../../domain/login/sign-in-standing.js';
import { SECOND_FACTOR_REASON, type SecondFactorDetails } from '../../oidc/interaction-policy.js';
import { loginPage, newPasswordPage, otpPage } from '../../ui/pages.js';
import { signInLook, signInLookOrg } from '../../domain/login/page-look.js';
import { secondFactorTexts } from '../../domain/texts/mfa-texts.js';
import { loginLanguage } from '../../domain/texts/login-texts.js';
import { secondFactorStep, type FirstFactor } from '../../domain/login/second-factor.js';
import { registerLoginMfaRoutes, secondFactorNotConfiguredPage, setupPage } from './login-mfa.js';

const PENDING_COOKIE = 'login_steps';
const PURPOSE = 'login.steps';
export const LOGIN_STEPS_TTL_MS = 5 * 60_000;

/** `otp-setup`: an authenticator app must be set up; `otp-setup-offer`: the same, with a skip button. */
export type Step = 'otp' | 'otp-setup' | 'otp-setup-offer' | 'new-password';

export interface Pending {
  uid: string;
  userId: string;
  /** What is still to be done, in order. */
  steps: Step[];
  /** How the user was authenticated so far (the token's `amr`). */
  amr: string[];
  /** Set when the password was given to link an identity provider's identity (login-federation.ts). */
  link?: ExternalIdentity;
  /** An existing session's sign-in time (seconds), kept when it is led to a missing step; absent: now. */
  signedInAt?: number;
  exp: number;
}

const cookiePath = (uid: string) => `/ui/login/${uid}`;

/** What a right password leads to. */
export interface PasswordPassed {
  userId: string;
  otpRequired: boolean;
  passwordChangeRequired: boolean;
}

/** A step's form, in the colours the application's project chooses for a known user (page-look.ts). */
export async function pageFor(c: Context, deps: OidcRouteDeps, step: Step, uid: string, userId: string, error?: string) {
  const d = await interactionOf(deps.provider, c, uid);
  if (step === 'otp-setup' || step === 'otp-setup-offer') return setupPage(deps, d, uid, userId, step === 'otp-setup', error);
  const app = d ? await appOf(deps.store, d) : undefined;
  const look = await signInLook(deps.store.read, deps.instanceId, app, userId);
  if (step !== 'otp') return newPasswordPage({ uid, error, look });
  const texts = await secondFactorTexts(deps.store.read, deps.instanceId, await signInLookOrg(deps.store.read, deps.instanceId, app, userId), loginLanguage(d?.params.ui_locales));
  return otpPage({ uid, error, look, texts });
}

function remember(c: Context, deps: OidcRouteDeps, pending: Omit<Pending, 'exp'>) {
  setCookie(c, PENDING_COOKIE, deps.secrets.seal(JSON.stringify({ ...pending, exp: Date.now() + LOGIN_STEPS_TTL_MS }), PURPOSE), {
    path: cookiePath(pending.uid),
    httpOnly: true,
    sameSite: 'Lax',
    secure: deps.issuer.startsWith('https:'),
    maxAge: LOGIN_STEPS_TTL_MS / 1000,
  });
}

function pendingOf(c: Context, deps: OidcRouteDeps, uid: string): Pending | undefined {
  const sealed = getCookie(c, PENDING_COOKIE);
  if (!sealed) return undefined;
  try {
    const p = JSON.parse(deps.secrets.openText(sealed, PURPOSE)) as Pending;
    return p.uid === uid && typeof p.userId === 'string' && Array.isArray(p.steps) && p.exp > Date.now() ? p : undefined;
  } catch {
    return undefined; // forged, altered, or sealed by a key this process no longer has
  }
}

/** Finishes the sign-in (after the link that waited for it, if any). */
async function finish(c: Context, deps: OidcRouteDeps, pending: Omit<Pending, 'exp' | 'steps'>) {
  if (pending.link) {
    const idp = await identityProvider(deps.store, pending.link.idpId);
    try {
      if (!idp || idp.state !== 'IDP_STATE_ACTIVE') throw new SignInRefused('The identity provider is no longer active. Sign in another way.');
      await linkIdentity(deps.store, idp, pending.link, pending.userId);
    } catch (error) {
      if (error instanceof SignInRefused) return c.html(loginPage({ uid: pending.uid, error: error.message }), 403);
      throw error;
    }
  }
  deleteCookie(c, PENDING_COOKIE, { path: cookiePath(pending.uid) });
  const to = await deps.provider.interactionResult(
    node(c).incoming,
    node(c).outgoing,
    { login: { accountId: pending.userId, amr: pending.amr, remember: true, ...(pending.signedInAt !== undefined ? { ts: pending.signedInAt } : {}) } },
    { mergeWithLastSubmission: false },
  );
  return c.redirect(to, 303);
}

/** Goes on after a check: the next step's form, or the end of the sign-in. */
export async function next(c: Context, deps: OidcRouteDeps, pending: Omit<Pending, 'exp'>) {
  if (pending.steps.length === 0) return finish(c, deps, pending);
  remember(c, deps, pending);
  return c.html(await pageFor(c, deps, pending.steps[0], pending.uid, pending.userId), 200);
}

/** After a right password at the login form (or the link form, with `link`). */
export function afterPassword(c: Context, deps: OidcRouteDeps, uid: string, passed: PasswordPassed, link?: ExternalIdentity) {
  return afterFirstFactor(c, deps, uid, passed.userId, link ? 'password-link' : 'password', ['pwd'], passed.passwordChangeRequired, link);
}

/** After the first factor (a password, or an identity provider's `fed`): the steps the user still owes, then the end. */
export async function afterFirstFactor(c: Context, deps: OidcRouteDeps, uid: string, userId: string, first: FirstFactor, amr: string[], passwordChangeRequired = false, link?: ExternalIdentity) {
  const user = await deps.store.read.users.get(userId);
  const second = user ? await secondFactorStep(deps.store.read, deps.instanceId, user, first) : 'none';
  if (second === 'not-configured') return c.html(await secondFactorNotConfiguredPage(deps, await interactionOf(deps.provider, c, uid), userId), 403);
  const steps: Step[] = [
    ...(second === 'otp' ? (['otp'] as const) : second === 'enrol-required' ? (['otp-setup'] as const) : second === 'enrol-offered' ? (['otp-setup-offer'] as const) : []),
    ...(passwordChangeRequired ? (['new-password'] as const) : []),
  ];
  return next(c, deps, { uid, userId, steps, amr, link });
}

/**
 * The login page of an authorization whose only reason to ask is the second factor the login policy
 * now requires of the browser's session (oidc/interaction-policy.ts): that step alone, as after a
 * password, or the refusal where none can be set up; undefined where the page should ask for the
 * whole sign-in. The rule is asked again here (the policy may have changed since the authorization).
 */
export async function leadToSecondFactor(c: Context, deps: OidcRouteDeps, d: Details): Promise<Response | undefined> {
  const userId = d.session?.accountId;
  if (!userId || d.prompt.reasons.length !== 1 || d.prompt.reasons[0] !== SECOND_FACTOR_REASON) return undefined;
  const { signedInAt } = d.prompt.details as SecondFactorDetails;
  const amr = d.session?.amr ?? [];
  const standing = await signInStanding(deps.store.read, deps.instanceId, { userId, at: signedInAt, amr });
  const pending = { uid: d.uid, userId, amr, signedInAt };
  if (standing.stands) return finish(c, deps, pending);
  if (standing.lacks === 'refused') return c.html(await secondFactorNotConfiguredPage(deps, d, userId), 403);
  if (standing.lacks === 'sign-in') return undefined;
  return next(c, deps, { ...pending, steps: [standing.lacks] });
}

export const OTP_FAILURE_TEXT = {
  invalid_code: 'The code is wrong or was already used. Enter the current code from your authenticator app.',
  locked: 'This user is locked after too many failed attempts. Ask an administrator to unlock it.',
  inactive: 'This user cannot sign in.',
} as const;
const OTP_FAILURE_STATUS = { invalid_code: 401, locked: 403, inactive: 403 } as const;

export function registerLoginStepRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  /** The attempt, and this browser's pending steps with `step` (or one of `step`) the current one; else the page that says why not. */
  async function current(c: Context, step: Step | Step[]) {
    const uid = c.req.param('uid') ?? '';
    const d = await interactionOf(provider, c, uid);
    if (!d || d.prompt.name !== 'login') return { refused: expiredPage(c) };
    const pending = pendingOf(c, deps, uid);
    if (!pending || !(Array.isArray(step) ? step : [step]).includes(pending.steps[0])) return { refused: c.html(loginPage({ uid, error: 'Your password check has expired. Sign in again.' }), 400) };
    const form = await c.req.parseBody().catch(() => undefined);
    return { uid, pending, form: form ?? {} };
  }

  app.post('/ui/login/:uid/otp', async (c) => {
    const s = await current(c, 'otp');
    if ('refused' in s) return s.refused;
    const { uid, pending, form } = s;
    const code = typeof form.code === 'string' ? form.code.replace(/\s/g, '') : '';
    if (!/^\d{6}$/.test(code)) return c.html(await pageFor(c, deps, 'otp', uid, pending.userId, 'Enter the 6-digit code from your authenticator app.'), 400);
    const outcome = await checkTotpLogin(store, deps.secrets, deps.instanceId, pending.userId, code);
    if (!outcome.ok) {
      if (outcome.reason === 'invalid_code') return c.html(await pageFor(c, deps, 'otp', uid, pending.userId, OTP_FAILURE_TEXT.invalid_code), 401);
      if (outcome.reason === 'throttled') {
        // The steps stay: the person waits and enters the then current code on the same page.
        c.header('Retry-After', String(outcome.throttled.retryAfterSeconds));
        return c.html(await pageFor(c, deps, 'otp', uid, pending.userId, codeWaitText(outcome.throttled.retryAfterSeconds, 'the current code from your authenticator app')), 429);
      }
      deleteCookie(c, PENDING_COOKIE, { path: cookiePath(uid) });
      return c.html(loginPage({ uid, error: OTP_FAILURE_TEXT[outcome.reason] }), OTP_FAILURE_STATUS[outcome.reason]);
    }
    return next(c, deps, { ...pending, steps: pending.steps.slice(1), amr: [...pending.amr, 'otp', 'mfa'] });
  });

  app.post('/ui/login/:uid/password', async (c) => {
    const s = await current(c, 'new-password');
    if ('refused' in s) return s.refused;
    const { uid, pending, form } = s;
    const password = typeof form.password === 'string' ? form.password : '';
    const confirmation = typeof form.passwordConfirmation === 'string' ? form.passwordConfirmation : '';
    if (!password || password.includes('\u0000')) return c.html(await pageFor(c, deps, 'new-password', uid, pending.userId, 'Enter a new password.'), 400);
    if (password !== confirmation) return c.html(await pageFor(c, deps, 'new-password', uid, pending.userId, 'The two passwords differ. Enter the same new password twice.'), 400);
    try {
      await changePasswordAtLogin(store, deps.instanceId, pending.userId, password);
    } catch (error) {
      // The complexity policy's rule, as the API would name it.
      if (error instanceof DomainError) return c.html(await pageFor(c, deps, 'new-password', uid, pending.userId, `The new password does not fit the rules: ${error.message.replace(/^invalid password: /, '')}.`), 400);
      throw error;
    }
    return next(c, deps, { ...pending, steps: pending.steps.slice(1) });
  });

  registerLoginMfaRoutes(app, deps, { current, next, pageFor });
}
