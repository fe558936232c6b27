/**
 * Instance message texts (description §4.1): openapi/paths/admin/text-verifyemail.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getDefaultMessageText, getInstanceMessageText, getOrgDefaultMessageText, orgTexts, resetInstanceMessageText, setInstanceMessageText } from '../../domain/texts/instance-texts.js';
import { MESSAGE_TYPES } from '../../domain/texts/message-text.js';
import { SUPPORTED_LANGUAGES } from '../../domain/languages.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, OrgHeader, SECURED } from '../schemas/common.js';
import { LanguageParam, LanguagesResponse, MessageTextResponse, SetMessageTextRequest } from '../schemas/texts.js';

const TAG = ['Message texts'];

export function registerAdminTextRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'put',
      path: '/admin/v1/text/message/verifyemail/{language}',
      operationId: 'SetDefaultVerifyEmailMessageText',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: {
        params: LanguageParam,
        body: { required: true, content: { 'application/json': { schema: SetMessageTextRequest } } },
      },
      responses: {
        200: { description: 'Stored.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 413),
      },
    }),
    async (c) => {
      const { language } = c.req.valid('param');
      const result = await setInstanceMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, language, c.req.valid('json'));
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/v1/text/message/verifyemail/{language}',
      operationId: 'GetCustomVerifyEmailMessageText',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { params: LanguageParam },
      responses: {
        200: { description: 'The instance text, or the built-in default.', content: { 'application/json': { schema: MessageTextResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      const customText = await getInstanceMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language);
      return c.json({ customText }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/v1/text/default/message/verifyemail/{language}',
      operationId: 'GetDefaultVerifyEmailMessageText',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { params: LanguageParam },
      responses: {
        200: { description: 'The built-in text.', content: { 'application/json': { schema: MessageTextResponse } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      const customText = getDefaultMessageText(c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language);
      return c.json({ customText }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/admin/v1/text/message/verifyemail/{language}',
      operationId: 'ResetCustomVerifyEmailMessageTextToDefault',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { params: LanguageParam },
      responses: {
        200: { description: 'Removed; the built-in default applies again.', content: { 'application/json': { schema: DetailsResponse } } },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const result = await resetInstanceMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language);
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/v1/languages',
      operationId: 'GetSupportedLanguages',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      responses: {
        200: { description: 'The supported languages.', content: { 'application/json': { schema: LanguagesResponse } } },
        // 403: authentication resolves x-service-orgid on every call, and an unknown organisation is refused.
        ...errorResponses(401, 403),
      },
    }),
    (c) => c.json({ languages: [...SUPPORTED_LANGUAGES] }, 200),
  );
}

/** The organisation's twins (ZITADEL's management API): openapi/paths/management/text-verifyemail.yaml. */
export function registerManagementTextRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const path = '/management/v1/text/message/verifyemail/{language}';
  const base = { tags: TAG, security: SECURED, middleware: [auth] as [typeof auth] };
  app.openapi(
    createRoute({
      ...base, method: 'put', path, operationId: 'SetCustomVerifyEmailMessageText',
      request: { headers: OrgHeader, params: LanguageParam, body: { required: true, content: { 'application/json': { schema: SetMessageTextRequest } } } },
      responses: { 200: { description: 'Stored.', content: { 'application/json': { schema: DetailsResponse } } }, ...errorResponses(400, 401, 403, 413) },
    }),
    async (c) => c.json(await setInstanceMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language, c.req.valid('json'), orgTexts(c.get('ctx'))), 200),
  );
  app.openapi(
    createRoute({
      ...base, method: 'get', path, operationId: 'GetOrgCustomVerifyEmailMessageText',
      request: { headers: OrgHeader, params: LanguageParam },
      responses: { 200: { description: "The organisation's text, or what applies instead.", content: { 'application/json': { schema: MessageTextResponse } } }, ...errorResponses(400, 401, 403) },
    }),
    async (c) => c.json({ customText: await getInstanceMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language, orgTexts(c.get('ctx'))) }, 200),
  );
  app.openapi(
    createRoute({
      ...base, method: 'delete', path, operationId: 'ResetOrgCustomVerifyEmailMessageTextToDefault',
      request: { headers: OrgHeader, params: LanguageParam },
      responses: { 200: { description: 'Removed.', content: { 'application/json': { schema: DetailsResponse } } }, ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await resetInstanceMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language, orgTexts(c.get('ctx'))), 200),
  );
  app.openapi(
    createRoute({
      ...base, method: 'get', path: '/management/v1/text/default/message/verifyemail/{language}', operationId: 'GetOrgDefaultVerifyEmailMessageText',
      request: { headers: OrgHeader, params: LanguageParam },
      responses: { 200: { description: 'The text the organisation falls back to.', content: { 'application/json': { schema: MessageTextResponse } } }, ...errorResponses(400, 401, 403) },
    }),
    async (c) => c.json({ customText: await getOrgDefaultMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language) }, 200),
  );
}
