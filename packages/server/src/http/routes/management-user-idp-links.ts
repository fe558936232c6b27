/**
 * Users' links to identity providers: openapi/paths/management/user-idp-links.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { listHumanLinkedIdps, removeHumanLinkedIdp } from '../../domain/federation/links.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { LinkedIdpParams, ListHumanLinkedIDPsRequest, ListHumanLinkedIDPsResponse, UserIdParam } from '../schemas/users.js';

const TAG = ['Users'];

export function registerManagementUserIdpLinkRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/{userId}/idps/_search',
      operationId: 'ListHumanLinkedIDPs',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        headers: OrgHeader,
        params: UserIdParam,
        body: { required: true, content: { 'application/json': { schema: ListHumanLinkedIDPsRequest } } },
      },
      responses: {
        200: { description: 'One page of links and the total count.', content: { 'application/json': { schema: ListHumanLinkedIDPsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await listHumanLinkedIdps(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/users/{userId}/idps/{idpId}/{linkedUserId}',
      operationId: 'RemoveHumanLinkedIDP',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: LinkedIdpParams },
      responses: {
        200: { description: 'Unlinked.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { userId, idpId, linkedUserId } = c.req.valid('param');
      return c.json(await removeHumanLinkedIdp(store, c.get('ctx'), userId, idpId, linkedUserId), 200);
    },
  );
}
