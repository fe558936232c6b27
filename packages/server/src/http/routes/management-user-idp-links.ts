/**
 * Users' links to identity providers: openapi/paths/management/user-idp-links.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listHumanLinkedIdps, removeHumanLinkedIdp } from '../../domain/federation/links.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserIdpLinkRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('ListHumanLinkedIDPs', async (c) => c.json(await listHumanLinkedIdps(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('RemoveHumanLinkedIDP', async (c) => {
    const { userId, idpId, linkedUserId } = c.req.valid('param');
    return c.json(await removeHumanLinkedIdp(store, c.get('ctx'), userId, idpId, linkedUserId), 200);
  });
}
