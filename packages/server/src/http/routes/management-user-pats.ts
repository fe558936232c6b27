/**
 * Personal access tokens of machine users: openapi/paths/management/user-pats.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addPersonalAccessToken, listPersonalAccessTokens, removePersonalAccessToken } from '../../domain/users/pats.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import {
  AddPersonalAccessTokenRequest,
  AddPersonalAccessTokenResponse,
  ListPersonalAccessTokensRequest,
  ListPersonalAccessTokensResponse,
  TokenIdParams,
  UserIdParam,
} from '../schemas/users.js';

const TAG = ['Users'];

export function registerManagementUserPatRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/{userId}/pats',
      operationId: 'AddPersonalAccessToken',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        headers: OrgHeader,
        params: UserIdParam,
        body: { required: true, content: { 'application/json': { schema: AddPersonalAccessTokenRequest } } },
      },
      responses: {
        200: { description: 'Created.', content: { 'application/json': { schema: AddPersonalAccessTokenResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await addPersonalAccessToken(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/{userId}/pats/_search',
      operationId: 'ListPersonalAccessTokens',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        headers: OrgHeader,
        params: UserIdParam,
        body: { required: true, content: { 'application/json': { schema: ListPersonalAccessTokensRequest } } },
      },
      responses: {
        200: { description: 'One page of tokens and the total count.', content: { 'application/json': { schema: ListPersonalAccessTokensResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await listPersonalAccessTokens(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/users/{userId}/pats/{tokenId}',
      operationId: 'RemovePersonalAccessToken',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: TokenIdParams },
      responses: {
        200: { description: 'Revoked.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { userId, tokenId } = c.req.valid('param');
      return c.json(await removePersonalAccessToken(store, c.get('ctx'), userId, tokenId), 200);
    },
  );
}
