/**
 * Self-registration during a sign-in (ZITADEL's register page): `/ui/login/{uid}/register`, the
 * form and what a sent form leads to (domain/login/register-form.ts; the rules registration.ts).
 */
import type { Hono } from 'hono';
import { registrationForm, submitRegistration } from '../../domain/login/register-form.js';
import { clientAddress } from '../client-address.js';
import type { AppEnv } from '../env.js';
import { forAttempt, formOf, type OidcRouteDeps } from './login-flow.js';

export function registerRegistrationRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  app.get(
    '/ui/login/:uid/register',
    forAttempt(deps, (attempt) => registrationForm(deps, attempt)),
  );
  app.post(
    '/ui/login/:uid/register',
    forAttempt(deps, async (attempt, c) => {
      const form = (await formOf(c)) ?? {};
      const [firstName, lastName, email, password, passwordConfirmation] = ['firstName', 'lastName', 'email', 'password', 'passwordConfirmation'].map((name) => form[name] ?? '');
      return submitRegistration(deps, attempt, { firstName, lastName, email, password, passwordConfirmation }, clientAddress(c, deps.trustProxy));
    }),
  );
}
