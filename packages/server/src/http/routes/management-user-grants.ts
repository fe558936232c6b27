/**
 * User grants (management API, reference §2): openapi/paths/management/user-grants.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addUserGrant, bulkRemoveUserGrants, deactivateUserGrant, reactivateUserGrant, removeUserGrant, updateUserGrant } from '../../domain/user-grants/commands.js';
import { getUserGrant, searchUserGrants } from '../../domain/user-grants/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserGrantRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddUserGrant', async (c) => c.json(await addUserGrant(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('ListUserGrants', async (c) => c.json(await searchUserGrants(store, c.get('ctx'), c.req.valid('json')), 200));

  route('GetUserGrantByID', async (c) => {
    const { userId, grantId } = c.req.valid('param');
    return c.json({ userGrant: await getUserGrant(store, c.get('ctx'), userId, grantId) }, 200);
  });

  route('UpdateUserGrant', async (c) => {
    const { userId, grantId } = c.req.valid('param');
    return c.json(await updateUserGrant(store, c.get('ctx'), userId, grantId, c.req.valid('json')), 200);
  });

  route('RemoveUserGrant', async (c) => {
    const { userId, grantId } = c.req.valid('param');
    return c.json(await removeUserGrant(store, c.get('ctx'), userId, grantId), 200);
  });

  route('DeactivateUserGrant', async (c) => {
    const { userId, grantId } = c.req.valid('param');
    return c.json(await deactivateUserGrant(store, c.get('ctx'), userId, grantId), 200);
  });

  route('ReactivateUserGrant', async (c) => {
    const { userId, grantId } = c.req.valid('param');
    return c.json(await reactivateUserGrant(store, c.get('ctx'), userId, grantId), 200);
  });

  route('BulkRemoveUserGrant', async (c) => c.json(await bulkRemoveUserGrants(store, c.get('ctx'), c.req.valid('json').grantId), 200));
}
