/**
 * Client secrets of machine users (management API): openapi/paths/management/user-secrets.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { generateMachineSecret, removeMachineSecret } from '../../domain/users/machine-secret.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserSecretRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('GenerateMachineSecret', async (c) => c.json(await generateMachineSecret(store, c.get('ctx'), c.req.valid('param').userId), 200));

  route('RemoveMachineSecret', async (c) => c.json(await removeMachineSecret(store, c.get('ctx'), c.req.valid('param').userId), 200));
}
