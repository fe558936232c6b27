/**
 * Keys of machine users: openapi/paths/management/user-keys.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addMachineKey, getMachineKey, listMachineKeys, removeMachineKey } from '../../domain/users/machine-keys.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserKeyRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddMachineKey', async (c) => c.json(await addMachineKey(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('ListMachineKeys', async (c) => c.json(await listMachineKeys(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('GetMachineKeyByIDs', async (c) => {
    const { userId, keyId } = c.req.valid('param');
    return c.json(await getMachineKey(store, c.get('ctx'), userId, keyId), 200);
  });

  route('RemoveMachineKey', async (c) => {
    const { userId, keyId } = c.req.valid('param');
    return c.json(await removeMachineKey(store, c.get('ctx'), userId, keyId), 200);
  });
}
