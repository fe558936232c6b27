/**
 * The audit trail (admin ListEvents): openapi/paths/admin/events.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { searchEvents } from '../../domain/events/search.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminEventRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const route = routesOf(app, deps);
  route('ListEvents', async (c) => c.json(await searchEvents(deps.store, c.get('ctx'), c.req.valid('json')), 200));
}
