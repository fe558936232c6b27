/**
 * The audit trail (admin ListEvents): openapi/paths/admin/events.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { searchEvents } from '../../domain/events/search.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { errorResponses, SECURED } from '../schemas/common.js';
import { ListEventsRequest, ListEventsResponse } from '../schemas/events.js';

export function registerAdminEventRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/events/_search',
      operationId: 'ListEvents',
      tags: ['Events'],
      security: SECURED,
      middleware: [auth] as const,
      request: { body: { required: true, content: { 'application/json': { schema: ListEventsRequest } } } },
      responses: {
        200: { description: 'The matching events, newest first unless `asc`.', content: { 'application/json': { schema: ListEventsResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await searchEvents(store, c.get('ctx'), c.req.valid('json')), 200),
  );
}
