/**
 * "Forgot your password?" at the login page (domain/login/password-reset-form.ts): the form for the
 * login name, and the mail queued for it. The mail's link leads to `/ui/login/password/init`.
 */
import type { Hono } from 'hono';
import { passwordResetForm, requestPasswordReset } from '../../domain/login/password-reset-form.js';
import type { AppEnv } from '../env.js';
import { forAttempt, formOf, type OidcRouteDeps } from './login-flow.js';

export function registerPasswordResetRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  app.get(
    '/ui/login/:uid/password/reset',
    forAttempt(deps, (attempt) => passwordResetForm(deps, attempt)),
  );
  app.post(
    '/ui/login/:uid/password/reset',
    forAttempt(deps, async (attempt, c) => requestPasswordReset(deps, attempt, (await formOf(c))?.loginName ?? '')),
  );
}
