/**
 * Organisations, management side: openapi/paths/management/orgs.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getContextOrg } from '../../domain/orgs/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { OrgResponse } from '../schemas/orgs.js';

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
    async (c) => c.json({ org: await getContextOrg(store, c.var.ctx) }, 200),
  );
}
