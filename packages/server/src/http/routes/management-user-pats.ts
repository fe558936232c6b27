/**
 * Personal access tokens of machine users: openapi/paths/management/user-pats.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addPersonalAccessToken, listPersonalAccessTokens, removePersonalAccessToken } from '../../domain/users/pats.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserPatRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddPersonalAccessToken', async (c) => c.json(await addPersonalAccessToken(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('ListPersonalAccessTokens', async (c) => c.json(await listPersonalAccessTokens(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('RemovePersonalAccessToken', async (c) => {
    const { userId, tokenId } = c.req.valid('param');
    return c.json(await removePersonalAccessToken(store, c.get('ctx'), userId, tokenId), 200);
  });
}
