/**
 * Organisations, admin side: openapi/paths/admin/orgs.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getOrgById, listOrgs } from '../../domain/orgs/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { errorResponses, SECURED } from '../schemas/common.js';
import { ListOrgsRequest, ListOrgsResponse, OrgIdParam, OrgResponse } from '../schemas/orgs.js';

const TAG = ['Organizations'];

export function registerAdminOrgRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/orgs/_search',
      operationId: 'ListOrgs',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { body: { required: true, content: { 'application/json': { schema: ListOrgsRequest } } } },
      responses: {
        200: { description: 'One page of matching organisations and the total count.', content: { 'application/json': { schema: ListOrgsResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await listOrgs(store, c.get('ctx'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/v1/orgs/{orgId}',
      operationId: 'GetOrgByID',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { params: OrgIdParam },
      responses: {
        200: { description: 'The organisation.', content: { 'application/json': { schema: OrgResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json({ org: await getOrgById(store, c.get('ctx'), c.req.valid('param').orgId) }, 200),
  );
}
