/**
 * Changing users after their creation: openapi/paths/management/user-changes.yaml (profile, machine,
 * password).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { requestPasswordReset, setHumanPassword } from '../../domain/users/password.js';
import { removeHumanPhone, updateHumanPhone, updateHumanProfile, updateMachine } from '../../domain/users/profile.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { SendHumanResetPasswordNotificationRequest, SetHumanPasswordRequest, UpdateHumanPhoneRequest, UpdateHumanProfileRequest, UpdateMachineRequest, UserIdParam } from '../schemas/users.js';

const TAG = ['Users'];

export function registerManagementUserChangeRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/users/{userId}/profile',
      operationId: 'UpdateHumanProfile',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam, body: { required: true, content: { 'application/json': { schema: UpdateHumanProfileRequest } } } },
      responses: {
        200: { description: 'Changed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await updateHumanProfile(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/users/{userId}/machine',
      operationId: 'UpdateMachine',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam, body: { required: true, content: { 'application/json': { schema: UpdateMachineRequest } } } },
      responses: {
        200: { description: 'Changed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await updateMachine(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/{userId}/password',
      operationId: 'SetHumanPassword',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam, body: { required: true, content: { 'application/json': { schema: SetHumanPasswordRequest } } } },
      responses: {
        200: { description: 'Set.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await setHumanPassword(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/users/{userId}/password/_reset',
      operationId: 'SendHumanResetPasswordNotification',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam, body: { required: false, content: { 'application/json': { schema: SendHumanResetPasswordNotificationRequest } } } },
      responses: {
        200: { description: 'The reset mail is queued.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await requestPasswordReset(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json') ?? {}), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/users/{userId}/phone',
      operationId: 'UpdateHumanPhone',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam, body: { required: true, content: { 'application/json': { schema: UpdateHumanPhoneRequest } } } },
      responses: {
        200: { description: 'Changed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await updateHumanPhone(store, c.get('ctx'), c.req.valid('param').userId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/users/{userId}/phone',
      operationId: 'RemoveHumanPhone',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { headers: OrgHeader, params: UserIdParam },
      responses: {
        200: { description: 'Removed.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await removeHumanPhone(store, c.get('ctx'), c.req.valid('param').userId), 200),
  );
}
