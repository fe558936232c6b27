/**
 * The instance's SMTP providers and the outbox: openapi/paths/admin/smtp.yaml and notifications.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listNotifications } from '../../domain/notifications/queue.js';
import {
  activateSmtpProvider,
  addSmtpProvider,
  deactivateSmtpProvider,
  getActiveSmtpProvider,
  getSmtpProvider,
  listSmtpProviders,
  removeSmtpProvider,
  testSmtpProviderById,
  testSmtpSettings,
  updateSmtpPassword,
  updateSmtpProvider,
} from '../../domain/notifications/smtp-providers.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminSmtpRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps, secrets: SecretBox) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('GetSMTPConfig', async (c) => c.json(await getActiveSmtpProvider(store, c.get('ctx')), 200));
  route('AddSMTPConfig', async (c) => c.json(await addSmtpProvider(store, secrets, c.get('ctx'), c.req.valid('json')), 200));
  route('ListSMTPConfigs', async (c) => c.json(await listSmtpProviders(store, c.get('ctx'), c.req.valid('json')), 200));
  route('TestSMTPConfig', async (c) => c.json(await testSmtpSettings(store, secrets, c.get('ctx'), c.req.valid('json')), 200));
  route('GetSMTPConfigById', async (c) => c.json(await getSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200));
  route('UpdateSMTPConfig', async (c) => c.json(await updateSmtpProvider(store, secrets, c.get('ctx'), c.req.valid('param').id, c.req.valid('json')), 200));
  route('RemoveSMTPConfig', async (c) => c.json(await removeSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200));
  route('UpdateSMTPConfigPassword', async (c) => c.json(await updateSmtpPassword(store, secrets, c.get('ctx'), c.req.valid('param').id, c.req.valid('json').password), 200));
  route('ActivateSMTPConfig', async (c) => c.json(await activateSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200));
  route('DeactivateSMTPConfig', async (c) => c.json(await deactivateSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200));
  route('TestSMTPConfigById', async (c) => c.json(await testSmtpProviderById(store, secrets, c.get('ctx'), c.req.valid('param').id, c.req.valid('json').receiverAddress), 200));
  route('ListNotifications', async (c) => c.json(await listNotifications(store, c.get('ctx'), c.req.valid('json')), 200));
}
