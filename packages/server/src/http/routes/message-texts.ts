/**
 * Message texts of every other kind (ZITADEL's init, password reset, verify phone, SMS and email
 * OTP, domain claimed, passwordless registration): the same four operations per level as the
 * verify-email text (admin-texts.ts), with the kind as a path parameter.
 * openapi/paths/admin/text-messages.yaml, openapi/paths/management/text-messages.yaml.
 * Registered after the verify-email routes, whose literal paths therefore win.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { getDefaultMessageText, getInstanceMessageText, getOrgDefaultMessageText, orgTexts, resetInstanceMessageText, setInstanceMessageText } from '../../domain/texts/instance-texts.js';
import { MESSAGE_TYPE_BY_SEGMENT, type MessageTypeSegment } from '../../domain/texts/message-text.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { MessageTextResponse, SetMessageTextRequest } from '../schemas/texts.js';

const TypeAndLanguage = z.object({
  messageType: z.enum(Object.keys(MESSAGE_TYPE_BY_SEGMENT) as [MessageTypeSegment, ...MessageTypeSegment[]]),
  language: z.string().min(1).max(200),
});

export function registerMessageTextRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const base = { tags: ['Message texts'], security: SECURED, middleware: [auth] as [typeof auth] };
  const typed = (segment: MessageTypeSegment) => MESSAGE_TYPE_BY_SEGMENT[segment];

  for (const level of ['admin', 'management'] as const) {
    const custom = `/${level}/v1/text/message/{messageType}/{language}`;
    const defaults = `/${level}/v1/text/default/message/{messageType}/{language}`;
    const headers = level === 'management' ? { headers: OrgHeader } : {};
    const scope = (ctx: Parameters<typeof orgTexts>[0]) => (level === 'management' ? orgTexts(ctx) : undefined);
    const ids = level === 'admin'
      ? { set: 'SetDefaultMessageText', get: 'GetCustomMessageText', reset: 'ResetCustomMessageTextToDefault', def: 'GetDefaultMessageText' }
      : { set: 'SetCustomMessageText', get: 'GetOrgCustomMessageText', reset: 'ResetOrgCustomMessageTextToDefault', def: 'GetOrgDefaultMessageText' };

    app.openapi(
      createRoute({
        ...base, method: 'put', path: custom, operationId: ids.set,
        request: { ...headers, params: TypeAndLanguage, body: { required: true, content: { 'application/json': { schema: SetMessageTextRequest } } } },
        responses: { 200: jsonResponse('Stored.', DetailsResponse), ...errorResponses(400, 401, 403, 413) },
      }),
      async (c) => {
        const { messageType, language } = c.req.valid('param');
        return c.json(await setInstanceMessageText(store, c.get('ctx'), typed(messageType), language, c.req.valid('json'), scope(c.get('ctx'))), 200);
      },
    );
    app.openapi(
      createRoute({
        ...base, method: 'get', path: custom, operationId: ids.get,
        request: { ...headers, params: TypeAndLanguage },
        responses: { 200: jsonResponse('The stored text, or what applies instead.', MessageTextResponse), ...errorResponses(400, 401, 403) },
      }),
      async (c) => {
        const { messageType, language } = c.req.valid('param');
        return c.json({ customText: await getInstanceMessageText(store, c.get('ctx'), typed(messageType), language, scope(c.get('ctx'))) }, 200);
      },
    );
    app.openapi(
      createRoute({
        ...base, method: 'delete', path: custom, operationId: ids.reset,
        request: { ...headers, params: TypeAndLanguage },
        responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
      }),
      async (c) => {
        const { messageType, language } = c.req.valid('param');
        return c.json(await resetInstanceMessageText(store, c.get('ctx'), typed(messageType), language, scope(c.get('ctx'))), 200);
      },
    );
    app.openapi(
      createRoute({
        ...base, method: 'get', path: defaults, operationId: ids.def,
        request: { ...headers, params: TypeAndLanguage },
        responses: { 200: jsonResponse('The text to fall back to.', MessageTextResponse), ...errorResponses(400, 401, 403) },
      }),
      async (c) => {
        const { messageType, language } = c.req.valid('param');
        const customText = level === 'admin'
          ? getDefaultMessageText(c.get('ctx'), typed(messageType), language)
          : await getOrgDefaultMessageText(store, c.get('ctx'), typed(messageType), language);
        return c.json({ customText }, 200);
      },
    );
  }
}
