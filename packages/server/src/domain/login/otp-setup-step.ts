/**
 * The login's step to set up an authenticator app (TOTP), when the login policy forces a second
 * factor on a user without one or offers it (second-factor.ts): the page (step-pages.ts) shows the
 * `otpauth://` URI as a QR code and the secret as text; the app's code confirms it
 * (users/otp-enrolment.ts), and the sign-in goes on with the factor counted (`amr` otp, mfa). An
 * offer can be skipped (remembered for `mfaInitSkipLifetime`). The steps' cookie and order are
 * steps.ts's.
 */
import { DomainError, GrpcCode } from '../errors.js';
import { confirmOtpEnrolment } from '../users/otp-enrolment.js';
import { CodeChecksThrottled, codeWaitText } from './code-throttle.js';
import type { LoginDeps, LoginOutcome, SignInAttempt } from './flow.js';
import { skipSecondFactorSetup } from './second-factor.js';
import { currentSteps, type Step, stepAgain, stepPassed } from './steps.js';

const SETUP_STEPS: Step[] = ['otp-setup', 'otp-setup-offer'];

/** The app's code confirms the app being set up. */
export async function confirmOtpSetup(deps: LoginDeps, attempt: SignInAttempt, sealed: string | undefined, typed: string): Promise<LoginOutcome> {
  const s = currentSteps(deps, attempt, sealed, SETUP_STEPS);
  if ('outcome' in s) return s.outcome;
  const code = typed.replace(/\s/g, '');
  if (!/^\d{6}$/.test(code)) return stepAgain(deps, attempt, s.pending, 'Enter the 6-digit code your authenticator app shows.', 400);
  try {
    await confirmOtpEnrolment(deps.store, deps.secrets, s.pending.userId, code);
  } catch (error) {
    if (error instanceof CodeChecksThrottled) {
      return stepAgain(deps, attempt, s.pending, codeWaitText(error.retryAfterSeconds, 'the code your authenticator app shows then'), 429, error.retryAfterSeconds);
    }
    // A wrong code (the page shows the same secret again), or the secret gone (the page starts a new one).
    if (error instanceof DomainError && (error.code === GrpcCode.InvalidArgument || error.code === GrpcCode.NotFound)) {
      return stepAgain(deps, attempt, s.pending, 'The code does not match. Check that the app shows this account and enter its current code.', 401);
    }
    throw error;
  }
  return stepPassed(deps, attempt, s.pending, 'otp');
}

/** "Skip" on an offered setup; a forced one cannot be skipped. */
export async function skipOtpSetup(deps: LoginDeps, attempt: SignInAttempt, sealed: string | undefined): Promise<LoginOutcome> {
  const s = currentSteps(deps, attempt, sealed, SETUP_STEPS);
  if ('outcome' in s) return s.outcome;
  if (s.pending.steps[0] === 'otp-setup') return stepAgain(deps, attempt, s.pending, 'Your organisation requires a second factor: this step cannot be skipped.', 403);
  await skipSecondFactorSetup(deps.store, s.pending.userId);
  return stepPassed(deps, attempt, s.pending);
}
