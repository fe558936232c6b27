/**
 * Instance members: openapi/paths/admin/members.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addMember, instanceScope, listMembers, removeMember } from '../../domain/members/members.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, SECURED } from '../schemas/common.js';
import { AddMemberRequest, ListMembersRequest, ListMembersResponse } from '../schemas/members.js';
import { UserIdParam } from '../schemas/users.js';

const TAG = ['Members'];

export function registerAdminMemberRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/members',
      operationId: 'AddIAMMember',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { body: { required: true, content: { 'application/json': { schema: AddMemberRequest } } } },
      responses: {
        200: { description: 'Added.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => c.json(await addMember(store, c.get('ctx'), instanceScope(c.get('ctx')), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/members/_search',
      operationId: 'ListIAMMembers',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { body: { required: true, content: { 'application/json': { schema: ListMembersRequest } } } },
      responses: {
        200: { description: 'One page of members and the total count.', content: { 'application/json': { schema: ListMembersResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await listMembers(store, c.get('ctx'), instanceScope(c.get('ctx')), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/admin/v1/members/{userId}',
      operationId: 'RemoveIAMMember',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { params: UserIdParam },
      responses: {
        200: { description: 'Removed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await removeMember(store, c.get('ctx'), instanceScope(c.get('ctx')), c.req.valid('param').userId), 200),
  );
}
