/**
 * Applications of a project (management API): OIDC and API applications and application keys,
 * openapi/paths/management/apps.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addApiApp, regenerateApiClientSecret, updateApiAppConfig } from '../../domain/apps/api-apps.js';
import { regenerateOidcClientSecret, updateApp } from '../../domain/apps/app-changes.js';
import { addAppKey, getAppKey, listAppKeys, removeAppKey } from '../../domain/apps/app-keys.js';
import { addOidcApp, getApp, listApps, removeApp, updateOidcAppConfig } from '../../domain/apps/oidc-apps.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementAppRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddOIDCApp', async (c) => c.json(await addOidcApp(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('GetAppByID', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await getApp(store, c.get('ctx'), projectId, appId), 200);
  });

  route('ListApps', async (c) => c.json(await listApps(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('UpdateOIDCAppConfig', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await updateOidcAppConfig(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
  });

  route('RemoveApp', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await removeApp(store, c.get('ctx'), projectId, appId), 200);
  });

  route('UpdateApp', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await updateApp(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
  });

  route('RegenerateOIDCClientSecret', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await regenerateOidcClientSecret(store, c.get('ctx'), projectId, appId), 200);
  });

  // API applications (domain/apps/api-apps.ts).
  route('AddAPIApp', async (c) => c.json(await addApiApp(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('RegenerateAPIClientSecret', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await regenerateApiClientSecret(store, c.get('ctx'), projectId, appId), 200);
  });

  route('UpdateAPIAppConfig', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await updateApiAppConfig(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
  });

  // Application keys (domain/apps/app-keys.ts).
  route('AddAppKey', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await addAppKey(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
  });

  route('ListAppKeys', async (c) => {
    const { projectId, appId } = c.req.valid('param');
    return c.json(await listAppKeys(store, c.get('ctx'), projectId, appId, c.req.valid('json')), 200);
  });

  route('GetAppKey', async (c) => {
    const { projectId, appId, keyId } = c.req.valid('param');
    return c.json(await getAppKey(store, c.get('ctx'), projectId, appId, keyId), 200);
  });

  route('RemoveAppKey', async (c) => {
    const { projectId, appId, keyId } = c.req.valid('param');
    return c.json(await removeAppKey(store, c.get('ctx'), projectId, appId, keyId), 200);
  });
}
