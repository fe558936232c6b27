/**
 * The steps after a right password (or an identity provider) before the sign-in goes on — the
 * authenticator app's code, setting one up (or skipping an offer), a required new password — as
 * form posts of the login; the steps, their order and their sealed cookie are domain/login/steps.ts
 * and otp-setup-step.ts.
 */
import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { confirmOtpSetup, skipOtpSetup } from '../../domain/login/otp-setup-step.js';
import { STEPS_COOKIE_NAME, submitNewPassword, submitOtp } from '../../domain/login/steps.js';
import type { AppEnv } from '../env.js';
import { forAttempt, formOf, type OidcRouteDeps } from './login-flow.js';

/** This browser's steps so far (sealed), as the flows open them. */
const steps = (c: Context) => getCookie(c, STEPS_COOKIE_NAME);

export function registerLoginStepRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  app.post(
    '/ui/login/:uid/otp',
    forAttempt(deps, async (attempt, c) => submitOtp(deps, attempt, steps(c), (await formOf(c))?.code ?? '')),
  );
  app.post(
    '/ui/login/:uid/password',
    forAttempt(deps, async (attempt, c) => {
      const form = (await formOf(c)) ?? {};
      return submitNewPassword(deps, attempt, steps(c), form.password ?? '', form.passwordConfirmation ?? '');
    }),
  );
  app.post(
    '/ui/login/:uid/otp/setup',
    forAttempt(deps, async (attempt, c) => confirmOtpSetup(deps, attempt, steps(c), (await formOf(c))?.code ?? '')),
  );
  app.post(
    '/ui/login/:uid/otp/setup/skip',
    forAttempt(deps, (attempt, c) => skipOtpSetup(deps, attempt, steps(c))),
  );
}
