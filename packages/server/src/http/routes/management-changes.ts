/**
 * The history tabs (management ListUserChanges, ListOrgChanges, ListProjectChanges,
 * ListAppChanges): openapi/paths/management/changes.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { changeQueryOf, listChanges } from '../../domain/events/changes.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementChangeRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('ListUserChanges', async (c) => c.json(await listChanges(store, c.get('ctx'), { kind: 'user', userId: c.req.valid('param').userId }, c.req.valid('json').query), 200));

  route('ListOrgChanges', async (c) => c.json(await listChanges(store, c.get('ctx'), { kind: 'org' }, c.req.valid('json').query), 200));

  // ZITADEL's gateway reads these two calls' query from the URL (their rule has no body).
  route('ListProjectChanges', async (c) => {
    const query = changeQueryOf(c.req.valid('json').query, c.req.valid('query'));
    return c.json(await listChanges(store, c.get('ctx'), { kind: 'project', projectId: c.req.valid('param').projectId }, query), 200);
  });

  route('ListAppChanges', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    const query = changeQueryOf(c.req.valid('json').query, c.req.valid('query'));
    return c.json(await listChanges(store, c.get('ctx'), { kind: 'app', projectId, appId }, query), 200);
  });
}
