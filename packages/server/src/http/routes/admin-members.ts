/**
 * Instance members: openapi/paths/admin/members.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addMember, instanceScope, listMembers, removeMember } from '../../domain/members/members.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminMemberRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddIAMMember', async (c) => c.json(await addMember(store, c.get('ctx'), instanceScope(c.get('ctx')), c.req.valid('json')), 200));

  route('ListIAMMembers', async (c) => c.json(await listMembers(store, c.get('ctx'), instanceScope(c.get('ctx')), c.req.valid('json')), 200));

  route('RemoveIAMMember', async (c) => c.json(await removeMember(store, c.get('ctx'), instanceScope(c.get('ctx')), c.req.valid('param').userId), 200));
}
