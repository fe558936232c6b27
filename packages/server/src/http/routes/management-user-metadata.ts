/**
 * A user's metadata: openapi/paths/management/user-metadata.yaml. `_search` and `_bulk` are
 * registered before `{key}` so that they are not taken for keys.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { bulkRemoveUserMetadata, bulkSetUserMetadata, getUserMetadata, listUserMetadata, removeUserMetadata, setUserMetadata } from '../../domain/users/metadata.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserMetadataRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('ListUserMetadata', async (c) => c.json(await listUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('BulkSetUserMetadata', async (c) => c.json(await bulkSetUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('BulkRemoveUserMetadata', async (c) => c.json(await bulkRemoveUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('GetUserMetadata', async (c) => {
    const { userId, key } = c.req.valid('param');
    return c.json(await getUserMetadata(store, c.get('ctx'), userId, key), 200);
  });

  route('SetUserMetadata', async (c) => {
    const { userId, key } = c.req.valid('param');
    return c.json(await setUserMetadata(store, c.get('ctx'), userId, key, c.req.valid('json')), 200);
  });

  route('RemoveUserMetadata', async (c) => {
    const { userId, key } = c.req.valid('param');
    return c.json(await removeUserMetadata(store, c.get('ctx'), userId, key), 200);
  });
}
