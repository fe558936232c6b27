/**
 * Client secrets of machine users (management API): openapi/paths/management/user-secrets.yaml.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { generateMachineSecret, removeMachineSecret } from '../../domain/users/machine-secret.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { Details, DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';

const TAG = ['Users'];
const UserIdParam = z.object({ userId: z.string() });
const GenerateMachineSecretResponse = z.object({ clientId: z.string(), clientSecret: z.string(), details: Details });

export function registerManagementUserSecretRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'put',
      path: '/management/v1/users/{userId}/secret',
      operationId: 'GenerateMachineSecret',
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'The new secret, shown once.', content: { 'application/json': { schema: GenerateMachineSecretResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await generateMachineSecret(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'delete',
      path: '/management/v1/users/{userId}/secret',
      operationId: 'RemoveMachineSecret',
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'Removed; the client-credentials grant no longer works for the user.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await removeMachineSecret(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );
}
