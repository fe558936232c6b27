/**
 * A user's state by hand: openapi/paths/management/user-state.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { changeUserState, type UserStateChange } from '../../domain/users/state.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

const CHANGES = [
  ['DeactivateUser', 'deactivate'],
  ['ReactivateUser', 'reactivate'],
  ['LockUser', 'lock'],
  ['UnlockUser', 'unlock'],
] as const satisfies readonly (readonly [string, UserStateChange])[];

export function registerManagementUserStateRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);
  for (const [operationId, change] of CHANGES) {
    route(operationId, async (c) => c.json(await changeUserState(store, c.get('ctx'), c.req.valid('param').userId, change), 200));
  }
}
