/**
 * The instance's SMTP providers and the outbox: openapi/paths/admin/smtp.yaml and notifications.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { listNotifications } from '../../domain/notifications/queue.js';
import {
  activateSmtpProvider, addSmtpProvider, deactivateSmtpProvider, getActiveSmtpProvider, getSmtpProvider, listSmtpProviders,
  removeSmtpProvider, testSmtpProviderById, testSmtpSettings, updateSmtpPassword, updateSmtpProvider,
} from '../../domain/notifications/smtp-providers.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, SECURED } from '../schemas/common.js';
import {
  AddSMTPConfigRequest, AddSMTPConfigResponse, Empty, GetSMTPConfigResponse, IdParam, ListNotificationsRequest, ListNotificationsResponse,
  ListSMTPConfigsRequest, ListSMTPConfigsResponse, TestSMTPConfigByIdRequest, TestSMTPConfigRequest, UpdateSMTPConfigPasswordRequest, UpdateSMTPConfigRequest,
} from '../schemas/notifications.js';

const TAG = ['SMTP providers'];

export function registerAdminSmtpRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps, secrets: SecretBox) {
  const route = <M extends 'get' | 'post' | 'put' | 'delete'>(method: M, path: string, operationId: string, tags = TAG) =>
    ({ method, path, operationId, tags, security: SECURED, middleware: [auth] as [typeof auth] });

  app.openapi(
    createRoute({ ...route('get', '/admin/v1/smtp', 'GetSMTPConfig'), responses: { 200: jsonResponse('The active provider.', GetSMTPConfigResponse), ...errorResponses(401, 403, 404) } }),
    async (c) => c.json(await getActiveSmtpProvider(store, c.get('ctx')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/smtp', 'AddSMTPConfig'), request: { body: jsonBody(AddSMTPConfigRequest) }, responses: { 200: jsonResponse('Added.', AddSMTPConfigResponse), ...errorResponses(400, 401, 403) } }),
    async (c) => c.json(await addSmtpProvider(store, secrets, c.get('ctx'), c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/smtp/_search', 'ListSMTPConfigs'), request: { body: jsonBody(ListSMTPConfigsRequest) }, responses: { 200: jsonResponse('One page of providers.', ListSMTPConfigsResponse), ...errorResponses(400, 401, 403) } }),
    async (c) => c.json(await listSmtpProviders(store, c.get('ctx'), c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/smtp/_test', 'TestSMTPConfig'), request: { body: jsonBody(TestSMTPConfigRequest) }, responses: { 200: jsonResponse('Sent.', Empty), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await testSmtpSettings(store, secrets, c.get('ctx'), c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('get', '/admin/v1/smtp/{id}', 'GetSMTPConfigById'), request: { params: IdParam }, responses: { 200: jsonResponse('The provider.', GetSMTPConfigResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await getSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200),
  );
  app.openapi(
    createRoute({ ...route('put', '/admin/v1/smtp/{id}', 'UpdateSMTPConfig'), request: { params: IdParam, body: jsonBody(UpdateSMTPConfigRequest) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await updateSmtpProvider(store, secrets, c.get('ctx'), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('delete', '/admin/v1/smtp/{id}', 'RemoveSMTPConfig'), request: { params: IdParam }, responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await removeSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200),
  );
  app.openapi(
    createRoute({ ...route('put', '/admin/v1/smtp/{id}/password', 'UpdateSMTPConfigPassword'), request: { params: IdParam, body: jsonBody(UpdateSMTPConfigPasswordRequest) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await updateSmtpPassword(store, secrets, c.get('ctx'), c.req.valid('param').id, c.req.valid('json').password), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/smtp/{id}/_activate', 'ActivateSMTPConfig'), request: { params: IdParam }, responses: { 200: jsonResponse('Activated.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await activateSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/smtp/{id}/_deactivate', 'DeactivateSMTPConfig'), request: { params: IdParam }, responses: { 200: jsonResponse('Deactivated.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await deactivateSmtpProvider(store, c.get('ctx'), c.req.valid('param').id), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/smtp/{id}/_test', 'TestSMTPConfigById'), request: { params: IdParam, body: jsonBody(TestSMTPConfigByIdRequest) }, responses: { 200: jsonResponse('Sent.', Empty), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await testSmtpProviderById(store, secrets, c.get('ctx'), c.req.valid('param').id, c.req.valid('json').receiverAddress), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/admin/v1/notifications/_search', 'ListNotifications', ['Notifications']), request: { body: jsonBody(ListNotificationsRequest) }, responses: { 200: jsonResponse('One page of messages and counts by state.', ListNotificationsResponse), ...errorResponses(400, 401, 403) } }),
    async (c) => c.json(await listNotifications(store, c.get('ctx'), c.req.valid('json')), 200),
  );
}
