/**
 * Users' second factors: openapi/paths/management/user-auth-factors.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { listHumanAuthFactors, removeHumanAuthFactorOtp } from '../../domain/users/auth-factors.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { ListHumanAuthFactorsRequest, ListHumanAuthFactorsResponse, UserIdParam } from '../schemas/users.js';

const TAG = ['Users'];

export function registerManagementUserAuthFactorRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/{userId}/auth_factors/_search',
      operationId: 'ListHumanAuthFactors',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        headers: OrgHeader,
        params: UserIdParam,
        body: { required: false, content: { 'application/json': { schema: ListHumanAuthFactorsRequest } } },
      },
      responses: {
        200: { description: "The user's factors (none, or the authenticator app).", content: { 'application/json': { schema: ListHumanAuthFactorsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await listHumanAuthFactors(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/users/{userId}/auth_factors/otp',
      operationId: 'RemoveHumanAuthFactorOTP',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'Removed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await removeHumanAuthFactorOtp(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );
}
