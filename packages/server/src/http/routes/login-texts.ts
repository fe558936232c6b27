/**
 * Custom login texts (ZITADEL's admin and management operations): openapi/paths/admin/text-login.yaml,
 * openapi/paths/management/text-login.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RequestContext } from '../../domain/context.js';
import { getDefaultLoginTexts, getLoginTexts, resetLoginTexts, setLoginTexts } from '../../domain/texts/login-texts.js';
import { instanceTexts, orgTexts } from '../../domain/texts/text-scope.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerLoginTextRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);
  for (const level of ['admin', 'management'] as const) {
    const scope = (ctx: RequestContext) => (level === 'admin' ? instanceTexts(ctx) : orgTexts(ctx));
    const ids =
      level === 'admin'
        ? ({ set: 'SetCustomLoginText', get: 'GetCustomLoginTexts', reset: 'ResetCustomLoginTextToDefault', def: 'GetDefaultLoginTexts' } as const)
        : ({ set: 'SetOrgCustomLoginText', get: 'GetOrgCustomLoginTexts', reset: 'ResetOrgCustomLoginTextToDefault', def: 'GetOrgDefaultLoginTexts' } as const);

    route(ids.set, async (c) => c.json(await setLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language, c.req.valid('json')), 200));
    route(ids.get, async (c) => c.json(await getLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language), 200));
    route(ids.reset, async (c) => c.json(await resetLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language), 200));
    route(ids.def, async (c) => c.json(await getDefaultLoginTexts(store, c.get('ctx'), scope(c.get('ctx')), c.req.valid('param').language), 200));
  }
}
