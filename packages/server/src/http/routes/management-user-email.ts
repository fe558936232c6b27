/**
 * A human user's email: openapi/paths/management/user-email.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { resendEmailVerification, updateHumanEmail, verifyEmailForCaller } from '../../domain/users/email.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { UpdateHumanEmailRequest, VerifyHumanEmailRequest } from '../schemas/notifications.js';
import { UserIdParam } from '../schemas/users.js';

const TAG = ['Users'];

export function registerManagementUserEmailRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const route = <M extends 'post' | 'put'>(method: M, path: string, operationId: string) => ({ method, path, operationId, tags: TAG, security: SECURED, middleware: [auth] as [typeof auth] });
  app.openapi(
    createRoute({ ...route('put', '/management/v1/users/{userId}/email', 'UpdateHumanEmail'), request: { headers: OrgHeader, params: UserIdParam, body: jsonBody(UpdateHumanEmailRequest) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await updateHumanEmail(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/management/v1/users/{userId}/email/_resend_verification', 'ResendHumanEmailVerification'), request: { headers: OrgHeader, params: UserIdParam }, responses: { 200: jsonResponse('Queued.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await resendEmailVerification(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );
  app.openapi(
    createRoute({ ...route('post', '/management/v1/users/{userId}/email/_verify', 'VerifyHumanEmail'), request: { headers: OrgHeader, params: UserIdParam, body: jsonBody(VerifyHumanEmailRequest) }, responses: { 200: jsonResponse('Verified.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await verifyEmailForCaller(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json').verificationCode), 200),
  );
}
