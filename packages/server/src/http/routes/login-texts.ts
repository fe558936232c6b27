/**
 * Custom login texts (ZITADEL's admin and management operations): openapi/paths/admin/text-login.yaml,
 * openapi/paths/management/text-login.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { instanceTexts, orgTexts } from '../../domain/texts/instance-texts.js';
import { getDefaultLoginTexts, getLoginTexts, resetLoginTexts, setLoginTexts } from '../../domain/texts/login-texts.js';
import type { RequestContext } from '../../domain/context.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { LanguageParam, LoginCustomTextResponse, SetCustomLoginTextRequest } from '../schemas/texts.js';

export function registerLoginTextRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const base = { tags: ['Login texts'], security: SECURED, middleware: [auth] as [typeof auth] };
  for (const level of ['admin', 'management'] as const) {
    const path = `/${level}/v1/text/login/{language}`;
    const headers = level === 'management' ? { headers: OrgHeader } : {};
    const scope = (ctx: RequestContext) => (level === 'admin' ? instanceTexts(ctx) : orgTexts(ctx));
    const ids = level === 'admin'
      ? { set: 'SetCustomLoginText', get: 'GetCustomLoginTexts', reset: 'ResetCustomLoginTextToDefault', def: 'GetDefaultLoginTexts' }
      : { set: 'SetOrgCustomLoginText', get: 'GetOrgCustomLoginTexts', reset: 'ResetOrgCustomLoginTextToDefault', def: 'GetOrgDefaultLoginTexts' };

    app.openapi(
      createRoute({
        ...base, method: 'put', path, operationId: ids.set,
        request: { ...headers, params: LanguageParam, body: jsonBody(SetCustomLoginTextRequest) },
        responses: { 200: jsonResponse('Stored.', DetailsResponse), ...errorResponses(400, 401, 403, 413) },
      }),
      async (c) => c.json(await setLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language, c.req.valid('json') as Record<string, Record<string, string>>), 200),
    );
    app.openapi(
      createRoute({
        ...base, method: 'get', path, operationId: ids.get,
        request: { ...headers, params: LanguageParam },
        responses: { 200: jsonResponse('The stored texts, or what applies instead.', LoginCustomTextResponse), ...errorResponses(400, 401, 403) },
      }),
      async (c) => c.json((await getLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language)) as never, 200),
    );
    app.openapi(
      createRoute({
        ...base, method: 'delete', path, operationId: ids.reset,
        request: { ...headers, params: LanguageParam },
        responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
      }),
      async (c) => c.json(await resetLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language), 200),
    );
    app.openapi(
      createRoute({
        ...base, method: 'get', path: `/${level}/v1/text/default/login/{language}`, operationId: ids.def,
        request: { ...headers, params: LanguageParam },
        responses: { 200: jsonResponse('The texts to fall back to.', LoginCustomTextResponse), ...errorResponses(400, 401, 403) },
      }),
      async (c) => c.json((await getDefaultLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language)) as never, 200),
    );
  }
}
