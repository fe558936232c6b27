/**
 * Users' second factors: openapi/paths/management/user-auth-factors.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listHumanAuthFactors, removeHumanAuthFactorOtp } from '../../domain/users/auth-factors.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserAuthFactorRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('ListHumanAuthFactors', async (c) => c.json(await listHumanAuthFactors(store, c.get('ctx'), c.req.valid('param').userId), 200));

  route('RemoveHumanAuthFactorOTP', async (c) => c.json(await removeHumanAuthFactorOtp(store, c.get('ctx'), c.req.valid('param').userId), 200));
}
