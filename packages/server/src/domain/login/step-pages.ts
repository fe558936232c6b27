/**
 * The pages of the steps after the first factor (steps.ts): the authenticator app's code, setting
 * one up, a new password, and the refusal where a forced second factor cannot be set up. Each wears
 * the look, and speaks the words, of the organisation the sign-in's application chooses for a known
 * user (page-look.ts), found once per page.
 */
import { DomainError, GrpcCode } from '../errors.js';
import { loginLanguage } from '../texts/login-texts.js';
import { secondFactorTexts } from '../texts/mfa-texts.js';
import { type EnrolmentCaller, pendingOtpEnrolment, startOtpEnrolment } from '../users/otp-enrolment.js';
import { attemptApp, type LoginDeps, type SignInAttempt } from './flow.js';
import { pageLook, signInLook, signInLookOrg } from './page-look.js';
import type { LoginPage } from './pages.js';

/** `otp-setup`: an authenticator app must be set up; `otp-setup-offer`: the same, with a skip button. */
export type Step = 'otp' | 'otp-setup' | 'otp-setup-offer' | 'new-password';

const enrolmentCaller = (deps: LoginDeps, userId: string): EnrolmentCaller => ({ instanceId: deps.instanceId, userId, issuerName: new URL(deps.issuer).host });

/** The organisation whose look and words a step's page for this user takes. */
async function stepOrg(deps: LoginDeps, attempt: SignInAttempt, userId: string): Promise<string> {
  return signInLookOrg(deps.store.read, deps.instanceId, await attemptApp(deps, attempt), userId);
}

/** A step's form, with `error` when the last try was refused. */
export async function stepPage(deps: LoginDeps, attempt: SignInAttempt, step: Step, userId: string, error?: string): Promise<LoginPage> {
  if (step === 'otp-setup' || step === 'otp-setup-offer') return setupPage(deps, attempt, userId, step === 'otp-setup', error);
  const { read } = deps.store;
  const orgId = await stepOrg(deps, attempt, userId);
  if (step === 'new-password') return { name: 'new-password', uid: attempt.uid, error, look: await pageLook(read, deps.instanceId, orgId) };
  const [look, texts] = await Promise.all([pageLook(read, deps.instanceId, orgId), secondFactorTexts(read, deps.instanceId, orgId, loginLanguage(attempt.uiLocales))]);
  return { name: 'otp', uid: attempt.uid, error, look, texts };
}

/**
 * The setup page: the app being set up for this user (a new one when none waits), in the look and
 * words of the organisation whose colours the sign-in wears.
 */
async function setupPage(deps: LoginDeps, attempt: SignInAttempt, userId: string, required: boolean, error?: string): Promise<LoginPage> {
  const { store } = deps;
  const orgId = await stepOrg(deps, attempt, userId);
  const look = await pageLook(store.read, deps.instanceId, orgId);
  const caller = enrolmentCaller(deps, userId);
  let enrolment = await pendingOtpEnrolment(store.read, deps.secrets, caller);
  if (!enrolment) {
    try {
      enrolment = await startOtpEnrolment(store, deps.secrets, caller);
    } catch (err) {
      // Set up meanwhile (through the API, in another tab): the code is asked at the next sign-in.
      if (err instanceof DomainError && err.code === GrpcCode.AlreadyExists) {
        return { name: 'message', title: 'Authenticator app already set up', text: 'An authenticator app is already set up for your account. Sign in again and enter its code.', look };
      }
      throw err;
    }
  }
  const texts = await secondFactorTexts(store.read, deps.instanceId, orgId, loginLanguage(attempt.uiLocales));
  return { name: 'otp-setup', uid: attempt.uid, url: enrolment.url, secret: enrolment.secret, required, error, texts, look };
}

/** The refusal when a second factor is forced and none can be set up. */
export async function secondFactorRefusedPage(deps: LoginDeps, attempt: SignInAttempt, userId: string): Promise<LoginPage> {
  return { name: 'second-factor-refused', uid: attempt.uid, look: await signInLook(deps.store.read, deps.instanceId, await attemptApp(deps, attempt), userId) };
}
