/**
 * The login's step to set up an authenticator app (TOTP), when the login policy forces a second
 * factor on a user without one or offers it (domain/login/second-factor.ts): the page shows the
 * `otpauth://` URI as a QR code and the secret as text; the app's code confirms it
 * (domain/users/otp-enrolment.ts), and the sign-in goes on with the factor counted (`amr` otp, mfa).
 * An offer can be skipped (remembered for `mfaInitSkipLifetime`). The steps' cookie and order are
 * login-steps.ts's, which hands its helpers in (`StepFlow`) so that this file does not import it.
 */
import type { Context, Hono } from 'hono';
import QRCode from 'qrcode';
import { DomainError, GrpcCode } from '../../domain/errors.js';
import { CodeChecksThrottled, codeWaitText } from '../../domain/login/code-throttle.js';
import { signInLook, signInLookOrg } from '../../domain/login/page-look.js';
import { skipSecondFactorSetup } from '../../domain/login/second-factor.js';
import { secondFactorTexts } from '../../domain/texts/mfa-texts.js';
import { loginLanguage } from '../../domain/texts/login-texts.js';
import { confirmOtpEnrolment, pendingOtpEnrolment, startOtpEnrolment, type EnrolmentCaller } from '../../domain/users/otp-enrolment.js';
import { otpSetupPage, secondFactorRefusedPage } from '../../ui/mfa-pages.js';
import { messagePage } from '../../ui/pages.js';
import type { AppEnv } from '../env.js';
import { appOf, type Details, type OidcRouteDeps } from './login-flow.js';

type SetupStep = 'otp-setup' | 'otp-setup-offer';

/** What this file needs of a browser's pending steps (login-steps.ts's `Pending`). */
interface PendingSteps {
  uid: string;
  userId: string;
  steps: string[];
  amr: string[];
}

/** login-steps.ts's helpers: the current step of this browser, going on after a step, a step's page. */
export interface StepFlow<P extends PendingSteps> {
  current(c: Context, step: SetupStep[]): Promise<{ refused: Response } | { uid: string; pending: P; form: Record<string, unknown> }>;
  next(c: Context, deps: OidcRouteDeps, pending: Omit<P, 'exp'>): Promise<Response>;
  pageFor(c: Context, deps: OidcRouteDeps, step: SetupStep, uid: string, userId: string, error?: string): Promise<string>;
}

const enrolmentCaller = (deps: OidcRouteDeps, userId: string): EnrolmentCaller => ({ instanceId: deps.instanceId, userId, issuerName: new URL(deps.issuer).host });

/**
 * The setup page: the app being set up for this user (a new one when none waits), as a QR code and
 * as text, in the look and words of the organisation whose colours the sign-in wears.
 */
export async function setupPage(deps: OidcRouteDeps, d: Details | undefined, uid: string, userId: string, required: boolean, error?: string): Promise<string> {
  const { store } = deps;
  const app = d ? await appOf(store, d) : undefined;
  const [look, orgId] = await Promise.all([signInLook(store.read, deps.instanceId, app, userId), signInLookOrg(store.read, deps.instanceId, app, userId)]);
  const caller = enrolmentCaller(deps, userId);
  let enrolment = await pendingOtpEnrolment(store.read, deps.secrets, caller);
  if (!enrolment) {
    try {
      enrolment = await startOtpEnrolment(store, deps.secrets, caller);
    } catch (err) {
      // Set up meanwhile (through the API, in another tab): the code is asked at the next sign-in.
      if (err instanceof DomainError && err.code === GrpcCode.AlreadyExists) return messagePage('Authenticator app already set up', 'An authenticator app is already set up for your account. Sign in again and enter its code.', look);
      throw err;
    }
  }
  const [texts, qrSvg] = await Promise.all([
    secondFactorTexts(store.read, deps.instanceId, orgId, loginLanguage(d?.params.ui_locales)),
    QRCode.toString(enrolment.url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 192 }),
  ]);
  return otpSetupPage({ uid, qrSvg, secret: enrolment.secret, required, error, texts, look });
}

/** The refusal when a second factor is forced and none can be set up. */
export async function secondFactorNotConfiguredPage(deps: OidcRouteDeps, d: Details | undefined, userId: string): Promise<string> {
  const look = await signInLook(deps.store.read, deps.instanceId, d ? await appOf(deps.store, d) : undefined, userId);
  return secondFactorRefusedPage(d?.uid ?? '', look);
}

export function registerLoginMfaRoutes<P extends PendingSteps>(app: Hono<AppEnv>, deps: OidcRouteDeps, flow: StepFlow<P>) {
  const SETUP_STEPS: SetupStep[] = ['otp-setup', 'otp-setup-offer'];

  app.post('/ui/login/:uid/otp/setup', async (c) => {
    const s = await flow.current(c, SETUP_STEPS);
    if ('refused' in s) return s.refused;
    const { uid, pending, form } = s;
    const step = pending.steps[0] as SetupStep;
    const code = typeof form.code === 'string' ? form.code.replace(/\s/g, '') : '';
    const again = async (error: string, status: 400 | 401 | 429) => c.html(await flow.pageFor(c, deps, step, uid, pending.userId, error), status);
    if (!/^\d{6}$/.test(code)) return again('Enter the 6-digit code your authenticator app shows.', 400);
    try {
      await confirmOtpEnrolment(deps.store, deps.secrets, pending.userId, code);
    } catch (error) {
      if (error instanceof CodeChecksThrottled) {
        c.header('Retry-After', String(error.retryAfterSeconds));
        return again(codeWaitText(error.retryAfterSeconds, 'the code your authenticator app shows then'), 429);
      }
      // A wrong code (the page shows the same secret again), or the secret gone (the page starts a new one).
      if (error instanceof DomainError && (error.code === GrpcCode.InvalidArgument || error.code === GrpcCode.NotFound)) {
        return again('The code does not match. Check that the app shows this account and enter its current code.', 401);
      }
      throw error;
    }
    return flow.next(c, deps, { ...pending, steps: pending.steps.slice(1), amr: [...pending.amr, 'otp', 'mfa'] });
  });

  app.post('/ui/login/:uid/otp/setup/skip', async (c) => {
    const s = await flow.current(c, SETUP_STEPS);
    if ('refused' in s) return s.refused;
    const { uid, pending } = s;
    if (pending.steps[0] === 'otp-setup') {
      return c.html(await flow.pageFor(c, deps, 'otp-setup', uid, pending.userId, 'Your organisation requires a second factor: this step cannot be skipped.'), 403);
    }
    await skipSecondFactorSetup(deps.store, pending.userId);
    return flow.next(c, deps, { ...pending, steps: pending.steps.slice(1) });
  });
}
