/**
 * Changing users after their creation: openapi/paths/management/user-changes.yaml (profile, machine,
 * password).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requestPasswordReset, setHumanPassword } from '../../domain/users/password.js';
import { removeHumanPhone, updateHumanPhone, updateHumanProfile, updateMachine } from '../../domain/users/profile.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementUserChangeRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('UpdateHumanProfile', async (c) => c.json(await updateHumanProfile(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('UpdateMachine', async (c) => c.json(await updateMachine(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('SetHumanPassword', async (c) => c.json(await setHumanPassword(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('SendHumanResetPasswordNotification', async (c) => c.json(await requestPasswordReset(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json') ?? {}), 200));

  route('UpdateHumanPhone', async (c) => c.json(await updateHumanPhone(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200));

  route('RemoveHumanPhone', async (c) => c.json(await removeHumanPhone(store, c.get('ctx'), c.req.valid('param').userId), 200));
}
