/**
 * Users of the organisation the request acts on: openapi/paths/management/users.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addHumanUser, addMachineUser, importHumanUser } from '../../domain/users/commands.js';
import { getUserById, listUsers } from '../../domain/users/queries.js';
import { removeUser } from '../../domain/users/removal.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets } = deps;
  const route = routesOf(app, deps);

  route('AddHumanUser', async (c) => c.json(await addHumanUser(store, c.get('ctx'), c.req.valid('json'), secrets), 200));

  route('ImportHumanUser', async (c) => c.json(await importHumanUser(store, c.get('ctx'), c.req.valid('json'), secrets), 200));

  route('AddMachineUser', async (c) => c.json(await addMachineUser(store, c.get('ctx'), c.req.valid('json')), 200));

  route('ListUsers', async (c) => c.json(await listUsers(store, c.get('ctx'), c.req.valid('json')), 200));

  route('GetUserByID', async (c) => c.json({ user: await getUserById(store, c.get('ctx'), c.req.valid('param').userId) }, 200));

  route('RemoveUser', async (c) => c.json(await removeUser(store, c.get('ctx'), c.req.valid('param').userId), 200));
}
