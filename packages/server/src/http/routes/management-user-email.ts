/**
 * A human user's email: openapi/paths/management/user-email.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { resendEmailVerification, updateHumanEmail, verifyEmailForCaller } from '../../domain/users/email.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserEmailRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('UpdateHumanEmail', async (c) => c.json(await updateHumanEmail(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('ResendHumanEmailVerification', async (c) => c.json(await resendEmailVerification(store, c.get('ctx'), c.req.valid('param').userId), 200));

  route('VerifyHumanEmail', async (c) => c.json(await verifyEmailForCaller(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json').verificationCode), 200));
}
