/**
 * Members of the organisation the request acts on: openapi/paths/management/org-members.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addMember, listMembers, orgScope, removeMember, updateMember } from '../../domain/members/members.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { AddMemberRequest, ListMembersRequest, ListMembersResponse, UpdateMemberRequest } from '../schemas/members.js';
import { UserIdParam } from '../schemas/users.js';

const TAG = ['Members'];

export function registerManagementOrgMemberRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/orgs/me/members',
      operationId: 'AddOrgMember',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, body: { required: true, content: { 'application/json': { schema: AddMemberRequest } } } },
      responses: {
        200: { description: 'Added.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => c.json(await addMember(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/orgs/me/members/_search',
      operationId: 'ListOrgMembers',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, body: { required: true, content: { 'application/json': { schema: ListMembersRequest } } } },
      responses: {
        200: { description: 'One page of members and the total count.', content: { 'application/json': { schema: ListMembersResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await listMembers(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/orgs/me/members/{userId}',
      operationId: 'UpdateOrgMember',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        headers: OrgHeader,
        params: UserIdParam,
        body: { required: true, content: { 'application/json': { schema: UpdateMemberRequest } } },
      },
      responses: {
        200: { description: 'Changed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await updateMember(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/orgs/me/members/{userId}',
      operationId: 'RemoveOrgMember',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'Removed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await removeMember(store, c.get('ctx'), orgScope(c.get('ctx')), c.req.valid('param').userId), 200),
  );
}
