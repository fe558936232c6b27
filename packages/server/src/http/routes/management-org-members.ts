/**
 * Members of the organisation the request acts on: openapi/paths/management/org-members.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addMember, listMembers, orgScope, removeMember, updateMember } from '../../domain/members/members.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementOrgMemberRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddOrgMember', async (c) => c.json(await addMember(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('json')), 200));

  route('ListOrgMembers', async (c) => c.json(await listMembers(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('json')), 200));

  route('UpdateOrgMember', async (c) => c.json(await updateMember(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('RemoveOrgMember', async (c) => c.json(await removeMember(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('param').userId), 200));
}
