/**
 * Organisations, management side: openapi/paths/management/orgs.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addOrg } from '../../domain/orgs/commands.js';
import { getContextOrg } from '../../domain/orgs/queries.js';
import { removeOrg } from '../../domain/orgs/removal.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementOrgRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps & { onRemovalStarted?: () => void }) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('RemoveOrg', async (c) => {
    const removed = await removeOrg(store, c.get('ctx'));
    // Its users and what is theirs go in the background (domain/orgs/removal.ts).
    deps.onRemovalStarted?.();
    return c.json(removed, 200);
  });

  route('GetMyOrg', async (c) => c.json({ org: await getContextOrg(store, c.get('ctx')) }, 200));

  route('AddOrg', async (c) => c.json(await addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
}
