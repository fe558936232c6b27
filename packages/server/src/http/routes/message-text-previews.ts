/**
 * Preview and test send of message texts (issue 35), for the instance (admin API) and the context
 * organisation (management API): openapi/paths/admin/text-previews.yaml,
 * openapi/paths/management/text-previews.yaml. The rules are in domain/texts/preview.ts.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { MAIL_KIND_BY_SEGMENT, previewMessageText, testMessageText } from '../../domain/texts/preview.js';
import { instanceTexts, orgTexts } from '../../domain/texts/text-scope.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerMessageTextPreviewRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets, mail } = deps;
  const route = routesOf(app, deps);

  for (const level of ['admin', 'management'] as const) {
    const scope = level === 'admin' ? instanceTexts : orgTexts;
    const ids =
      level === 'admin' ? ({ preview: 'PreviewDefaultMessageText', test: 'TestDefaultMessageText' } as const) : ({ preview: 'PreviewCustomMessageText', test: 'TestCustomMessageText' } as const);

    route(ids.preview, async (c) => {
      const { messageType, language } = c.req.valid('param');
      const ctx = c.get('ctx');
      return c.json(await previewMessageText(store, ctx, scope(ctx), MAIL_KIND_BY_SEGMENT[messageType], language, c.req.valid('json'), mail), 200);
    });
    route(ids.test, async (c) => {
      const { messageType, language } = c.req.valid('param');
      const ctx = c.get('ctx');
      return c.json(await testMessageText(store, secrets, ctx, scope(ctx), MAIL_KIND_BY_SEGMENT[messageType], language, c.req.valid('json'), mail), 200);
    });
  }
}
