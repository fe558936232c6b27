/**
 * Applications of a project (management API): OIDC and API applications and application keys,
 * openapi/paths/management/apps.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { regenerateOidcClientSecret, updateApp } from '../../domain/apps/app-changes.js';
import { addOidcApp, getApp, listApps, removeApp, updateOidcAppConfig } from '../../domain/apps/oidc-apps.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import {
  AddOIDCAppRequest,
  AddOIDCAppResponse,
  AppParam,
  AppResponse,
  ListAppsRequest,
  ListAppsResponse,
  RegenerateOIDCClientSecretResponse,
  UpdateAppRequest,
  UpdateOIDCAppConfigRequest,
  UpdateOIDCAppConfigResponse,
  AddAPIAppRequest,
  AddAPIAppResponse,
  UpdateAPIAppConfigRequest,
  UpdateAPIAppConfigResponse,
  AddAppKeyRequest,
  AddAppKeyResponse,
  AppKeyParam,
  AppKeyResponse,
  ListAppKeysRequest,
  ListAppKeysResponse,
} from '../schemas/apps.js';
import { addApiApp, regenerateApiClientSecret, updateApiAppConfig } from '../../domain/apps/api-apps.js';
import { addAppKey, getAppKey, listAppKeys, removeAppKey } from '../../domain/apps/app-keys.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { ProjectIdParam } from '../schemas/projects.js';

const TAG = ['Applications'];

export function registerManagementAppRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/oidc',
      operationId: 'AddOIDCApp',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(AddOIDCAppRequest) },
      responses: { 200: jsonResponse('Created; a confidential client’s secret is shown this once.', AddOIDCAppResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await addOidcApp(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'get',
      path: '/management/v1/projects/{projectId}/apps/{appId}',
      operationId: 'GetAppByID',
      request: { headers: OrgHeader, params: AppParam },
      responses: { 200: jsonResponse('The application.', AppResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await getApp(store, c.get('ctx'), projectId, appId), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/_search',
      operationId: 'ListApps',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(ListAppsRequest) },
      responses: { 200: jsonResponse('The project’s applications, oldest first.', ListAppsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await listApps(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'put',
      path: '/management/v1/projects/{projectId}/apps/{appId}/oidc_config',
      operationId: 'UpdateOIDCAppConfig',
      request: { headers: OrgHeader, params: AppParam, body: jsonBody(UpdateOIDCAppConfigRequest) },
      responses: { 200: jsonResponse('Changed.', UpdateOIDCAppConfigResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await updateOidcAppConfig(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'delete',
      path: '/management/v1/projects/{projectId}/apps/{appId}',
      operationId: 'RemoveApp',
      request: { headers: OrgHeader, params: AppParam },
      responses: { 200: jsonResponse('Removed; its client can no longer get tokens.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await removeApp(store, c.get('ctx'), projectId, appId), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'put',
      path: '/management/v1/projects/{projectId}/apps/{appId}',
      operationId: 'UpdateApp',
      request: { headers: OrgHeader, params: AppParam, body: jsonBody(UpdateAppRequest) },
      responses: { 200: jsonResponse('Renamed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await updateApp(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/{appId}/oidc_config/_generate_client_secret',
      operationId: 'RegenerateOIDCClientSecret',
      request: { headers: OrgHeader, params: AppParam },
      responses: { 200: jsonResponse('The new secret, shown this once; the old one no longer works.', RegenerateOIDCClientSecretResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await regenerateOidcClientSecret(store, c.get('ctx'), projectId, appId), 200);
    },
  );

  // API applications (domain/apps/api-apps.ts).
  const secured = { tags: TAG, security: SECURED, middleware: [auth] as [typeof auth] };
  app.openapi(
    createRoute({
      ...secured,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/api',
      operationId: 'AddAPIApp',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(AddAPIAppRequest) },
      responses: { 200: jsonResponse('Created; a BASIC application’s secret is shown this once.', AddAPIAppResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await addApiApp(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({
      ...secured,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/{appId}/api_config/_generate_client_secret',
      operationId: 'RegenerateAPIClientSecret',
      request: { headers: OrgHeader, params: AppParam },
      responses: { 200: jsonResponse('The new secret, shown this once; the old one no longer works.', RegenerateOIDCClientSecretResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await regenerateApiClientSecret(store, c.get('ctx'), projectId, appId), 200);
    },
  );
  app.openapi(
    createRoute({
      ...secured,
      method: 'put',
      path: '/management/v1/projects/{projectId}/apps/{appId}/api_config',
      operationId: 'UpdateAPIAppConfig',
      request: { headers: OrgHeader, params: AppParam, body: jsonBody(UpdateAPIAppConfigRequest) },
      responses: { 200: jsonResponse('Changed; a new secret (switching to BASIC) is shown this once.', UpdateAPIAppConfigResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await updateApiAppConfig(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
    },
  );

  // Application keys (domain/apps/app-keys.ts).
  app.openapi(
    createRoute({
      ...secured,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/{appId}/keys',
      operationId: 'AddAppKey',
      request: { headers: OrgHeader, params: AppParam, body: jsonBody(AddAppKeyRequest) },
      responses: { 200: jsonResponse('Created; keyDetails (with the private key) is shown this once.', AddAppKeyResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await addAppKey(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
    },
  );
  app.openapi(
    createRoute({
      ...secured,
      method: 'post',
      path: '/management/v1/projects/{projectId}/apps/{appId}/keys/_search',
      operationId: 'ListAppKeys',
      request: { headers: OrgHeader, params: AppParam, body: jsonBody(ListAppKeysRequest) },
      responses: { 200: jsonResponse('The application’s keys, oldest first.', ListAppKeysResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId } = c.req.valid('param');
      return c.json(await listAppKeys(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
    },
  );
  app.openapi(
    createRoute({
      ...secured,
      method: 'get',
      path: '/management/v1/projects/{projectId}/apps/{appId}/keys/{keyId}',
      operationId: 'GetAppKey',
      request: { headers: OrgHeader, params: AppKeyParam },
      responses: { 200: jsonResponse('The key (without its private part, which is never stored).', AppKeyResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId, keyId } = c.req.valid('param');
      return c.json(await getAppKey(store, c.get('ctx'), projectId, appId, keyId), 200);
    },
  );
  app.openapi(
    createRoute({
      ...secured,
      method: 'delete',
      path: '/management/v1/projects/{projectId}/apps/{appId}/keys/{keyId}',
      operationId: 'RemoveAppKey',
      request: { headers: OrgHeader, params: AppKeyParam },
      responses: { 200: jsonResponse('Removed; assertions signed with it are refused from now on.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, appId, keyId } = c.req.valid('param');
      return c.json(await removeAppKey(store, c.get('ctx'), projectId, appId, keyId), 200);
    },
  );
}
