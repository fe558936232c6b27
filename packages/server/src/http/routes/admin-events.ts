/**
 * The audit trail (admin ListEvents, ListEventTypes, ListAggregateTypes): openapi/paths/admin/events.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { searchEvents } from '../../domain/events/search.js';
import { listAggregateTypes, listEventTypes } from '../../domain/events/vocabulary.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminEventRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const route = routesOf(app, deps);
  route('ListEvents', async (c) => c.json(await searchEvents(deps.store, c.get('ctx'), c.req.valid('json')), 200));
  route('ListEventTypes', async (c) => c.json(listEventTypes(c.get('ctx')), 200));
  route('ListAggregateTypes', async (c) => c.json(listAggregateTypes(c.get('ctx')), 200));
}
