/**
 * User grants (management API, reference §2): openapi/paths/management/user-grants.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  addUserGrant,
  bulkRemoveUserGrants,
  deactivateUserGrant,
  reactivateUserGrant,
  removeUserGrant,
  updateUserGrant,
} from '../../domain/user-grants/commands.js';
import { getUserGrant, searchUserGrants } from '../../domain/user-grants/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import {
  AddUserGrantRequest,
  AddUserGrantResponse,
  BulkRemoveUserGrantRequest,
  EmptyResponse,
  ListUserGrantsRequest,
  ListUserGrantsResponse,
  UpdateUserGrantRequest,
  UserGrantParam,
  UserGrantResponse,
  UserIdParam,
} from '../schemas/user-grants.js';

const TAG = ['User grants'];

export function registerManagementUserGrantRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/users/{userId}/grants',
      operationId: 'AddUserGrant',
      request: { headers: OrgHeader, params: UserIdParam, body: jsonBody(AddUserGrantRequest) },
      responses: { 200: jsonResponse('Granted.', AddUserGrantResponse), ...errorResponses(400, 401, 403, 409) },
    }),
    async (c) => c.json(await addUserGrant(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/users/grants/_search',
      operationId: 'ListUserGrants',
      request: { headers: OrgHeader, body: jsonBody(ListUserGrantsRequest) },
      responses: { 200: jsonResponse('The matching grants of the organisation.', ListUserGrantsResponse), ...errorResponses(400, 401, 403) },
    }),
    async (c) => c.json(await searchUserGrants(store, c.get('ctx'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'get',
      path: '/management/v1/users/{userId}/grants/{grantId}',
      operationId: 'GetUserGrantByID',
      request: { headers: OrgHeader, params: UserGrantParam },
      responses: { 200: jsonResponse('The grant.', UserGrantResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { userId, grantId } = c.req.valid('param');
      return c.json({ userGrant: await getUserGrant(store, c.get('ctx'), userId, grantId) }, 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'put',
      path: '/management/v1/users/{userId}/grants/{grantId}',
      operationId: 'UpdateUserGrant',
      request: { headers: OrgHeader, params: UserGrantParam, body: jsonBody(UpdateUserGrantRequest) },
      responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { userId, grantId } = c.req.valid('param');
      return c.json(await updateUserGrant(store, c.get('ctx'), userId, grantId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'delete',
      path: '/management/v1/users/{userId}/grants/{grantId}',
      operationId: 'RemoveUserGrant',
      request: { headers: OrgHeader, params: UserGrantParam },
      responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { userId, grantId } = c.req.valid('param');
      return c.json(await removeUserGrant(store, c.get('ctx'), userId, grantId), 200);
    },
  );

  for (const [suffix, operationId, run] of [
    ['_deactivate', 'DeactivateUserGrant', deactivateUserGrant],
    ['_reactivate', 'ReactivateUserGrant', reactivateUserGrant],
  ] as const) {
    app.openapi(
      createRoute({
        tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
        method: 'post',
        path: `/management/v1/users/{userId}/grants/{grantId}/${suffix}`,
        operationId,
        request: { headers: OrgHeader, params: UserGrantParam },
        responses: { 200: jsonResponse('State changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
      }),
      async (c) => {
        const { userId, grantId } = c.req.valid('param');
        return c.json(await run(store, c.get('ctx'), userId, grantId), 200);
      },
    );
  }

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'delete',
      path: '/management/v1/user_grants/_bulk',
      operationId: 'BulkRemoveUserGrant',
      request: { headers: OrgHeader, body: jsonBody(BulkRemoveUserGrantRequest) },
      responses: { 200: jsonResponse('All removed.', EmptyResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await bulkRemoveUserGrants(store, c.get('ctx'), c.req.valid('json').grantId), 200),
  );
}
