/**
 * Users of the organisation the request acts on: openapi/paths/management/users.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addHumanUser, addMachineUser, importHumanUser, removeUser } from '../../domain/users/commands.js';
import { getUserById, listUsers } from '../../domain/users/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import {
  AddHumanUserRequest,
  AddMachineUserRequest,
  ImportHumanUserRequest,
  ListUsersRequest,
  ListUsersResponse,
  UserIdParam,
  UserIdResponse,
  UserResponse,
} from '../schemas/users.js';

const TAG = ['Users'];

export function registerManagementUserRoutes(app: OpenAPIHono<AppEnv>, { store, auth, secrets }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/human',
      operationId: 'AddHumanUser',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, body: { required: true, content: { 'application/json': { schema: AddHumanUserRequest } } } },
      responses: {
        200: { description: 'Created.', content: { 'application/json': { schema: UserIdResponse } } },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => c.json(await addHumanUser(store, c.get('ctx'), c.req.valid('json'), secrets), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/human/_import',
      operationId: 'ImportHumanUser',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, body: { required: true, content: { 'application/json': { schema: ImportHumanUserRequest } } } },
      responses: {
        200: { description: 'Created.', content: { 'application/json': { schema: UserIdResponse } } },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => c.json(await importHumanUser(store, c.get('ctx'), c.req.valid('json'), secrets), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/machine',
      operationId: 'AddMachineUser',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, body: { required: true, content: { 'application/json': { schema: AddMachineUserRequest } } } },
      responses: {
        200: { description: 'Created.', content: { 'application/json': { schema: UserIdResponse } } },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => c.json(await addMachineUser(store, c.get('ctx'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/_search',
      operationId: 'ListUsers',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, body: { required: true, content: { 'application/json': { schema: ListUsersRequest } } } },
      responses: {
        200: { description: 'One page of matching users and the total count.', content: { 'application/json': { schema: ListUsersResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await listUsers(store, c.get('ctx'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/management/v1/users/{userId}',
      operationId: 'GetUserByID',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'The user.', content: { 'application/json': { schema: UserResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json({ user: await getUserById(store, c.get('ctx'), c.req.valid('param').userId) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/users/{userId}',
      operationId: 'RemoveUser',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'Removed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await removeUser(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );
}
