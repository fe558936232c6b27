/**
 * A user's state by hand: openapi/paths/management/user-state.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { changeUserState, type UserStateChange } from '../../domain/users/state.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { UserIdParam } from '../schemas/users.js';

const OPERATIONS: [UserStateChange, string][] = [
  ['deactivate', 'DeactivateUser'],
  ['reactivate', 'ReactivateUser'],
  ['lock', 'LockUser'],
  ['unlock', 'UnlockUser'],
];

export function registerManagementUserStateRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  for (const [change, operationId] of OPERATIONS) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/management/v1/users/{userId}/_${change}`,
        operationId,
        tags: ['Users'],
        security: SECURED,
        middleware: [auth] as const,
        request: { headers: OrgHeader, params: UserIdParam },
        responses: { 200: jsonResponse('Done.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
      }),
      async (c) => c.json(await changeUserState(store, c.get('ctx'), c.req.valid('param').userId, change), 200),
    );
  }
}
