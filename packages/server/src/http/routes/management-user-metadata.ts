/**
 * A user's metadata: openapi/paths/management/user-metadata.yaml. `_search` and `_bulk` are
 * registered before `{key}` so that they are not taken for keys.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { bulkRemoveUserMetadata, bulkSetUserMetadata, getUserMetadata, listUserMetadata, removeUserMetadata, setUserMetadata } from '../../domain/users/metadata.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import {
  BulkRemoveUserMetadataRequest, BulkSetUserMetadataRequest, GetUserMetadataResponse, ListUserMetadataRequest, ListUserMetadataResponse,
  MetadataKeyParams, SetUserMetadataRequest, UserIdParam,
} from '../schemas/users.js';

export function registerManagementUserMetadataRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const route = <M extends 'get' | 'post' | 'delete'>(method: M, path: string, operationId: string) =>
    ({ method, path, operationId, tags: ['Users'], security: SECURED, middleware: [auth] as [typeof auth] });
  const base = '/management/v1/users/{userId}/metadata';
  app.openapi(
    createRoute({ ...route('post', `${base}/_search`, 'ListUserMetadata'), request: { headers: OrgHeader, params: UserIdParam, body: jsonBody(ListUserMetadataRequest) }, responses: { 200: jsonResponse('One page of metadata and the total count.', ListUserMetadataResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await listUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', `${base}/_bulk`, 'BulkSetUserMetadata'), request: { headers: OrgHeader, params: UserIdParam, body: jsonBody(BulkSetUserMetadataRequest) }, responses: { 200: jsonResponse('Set.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await bulkSetUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('delete', `${base}/_bulk`, 'BulkRemoveUserMetadata'), request: { headers: OrgHeader, params: UserIdParam, body: jsonBody(BulkRemoveUserMetadataRequest) }, responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await bulkRemoveUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('get', `${base}/{key}`, 'GetUserMetadata'), request: { headers: OrgHeader, params: MetadataKeyParams }, responses: { 200: jsonResponse('The metadata.', GetUserMetadataResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await getUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('param').key), 200),
  );
  app.openapi(
    createRoute({ ...route('post', `${base}/{key}`, 'SetUserMetadata'), request: { headers: OrgHeader, params: MetadataKeyParams, body: jsonBody(SetUserMetadataRequest) }, responses: { 200: jsonResponse('Set.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await setUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('param').key, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('delete', `${base}/{key}`, 'RemoveUserMetadata'), request: { headers: OrgHeader, params: MetadataKeyParams }, responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await removeUserMetadata(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('param').key), 200),
  );
}
