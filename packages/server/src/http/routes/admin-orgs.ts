/**
 * Organisations, admin side: openapi/paths/admin/orgs.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { getDefaultOrg, getOrgById, listOrgs } from '../../domain/orgs/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminOrgRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('ListOrgs', async (c) => c.json(await listOrgs(store, c.get('ctx'), c.req.valid('json')), 200));

  // Before GetOrgByID: the literal `/orgs/default` must win over `/orgs/{orgId}` (ZITADEL's GetDefaultOrg).
  route('GetDefaultOrg', async (c) => c.json({ org: await getDefaultOrg(store, c.get('ctx')) }, 200));

  route('GetOrgByID', async (c) => c.json({ org: await getOrgById(store, c.get('ctx'), c.req.valid('param').orgId) }, 200));
}
