/**
 * Organisations, management side: openapi/paths/management/orgs.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addOrg } from '../../domain/orgs/commands.js';
import { getContextOrg } from '../../domain/orgs/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { AddOrgRequest, AddOrgResponse, OrgResponse } from '../schemas/orgs.js';

const TAG = ['Organizations'];

export function registerManagementOrgRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/management/v1/orgs/me',
      operationId: 'GetMyOrg',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader },
      responses: {
        200: { description: 'The organisation the request acts on.', content: { 'application/json': { schema: OrgResponse } } },
        ...errorResponses(401, 403),
      },
    }),
    async (c) => c.json({ org: await getContextOrg(store, c.get('ctx')) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/orgs',
      operationId: 'AddOrg',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        headers: OrgHeader,
        body: { required: true, content: { 'application/json': { schema: AddOrgRequest } } },
      },
      responses: {
        200: { description: 'Created.', content: { 'application/json': { schema: AddOrgResponse } } },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => c.json(await addOrg(store, c.get('ctx'), c.req.valid('json')), 200),
  );
}
