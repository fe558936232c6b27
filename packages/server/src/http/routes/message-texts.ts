/**
 * Message texts of every other kind (ZITADEL's init, password reset, verify phone, SMS and email
 * OTP, domain claimed, passwordless registration): the same four operations per level as the
 * verify-email text (admin-texts.ts), with the kind as a path parameter.
 * openapi/paths/admin/text-messages.yaml, openapi/paths/management/text-messages.yaml.
 * Registered after the verify-email routes, whose literal paths therefore win.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { getDefaultMessageText, getMessageText, getOrgDefaultMessageText, resetMessageText, setMessageText } from '../../domain/texts/custom-message-texts.js';
import { MESSAGE_TYPE_BY_SEGMENT, type MessageTypeSegment } from '../../domain/texts/message-text.js';
import { orgTexts } from '../../domain/texts/text-scope.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerMessageTextRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);
  const typed = (segment: MessageTypeSegment) => MESSAGE_TYPE_BY_SEGMENT[segment];

  for (const level of ['admin', 'management'] as const) {
    const scope = (ctx: Parameters<typeof orgTexts>[0]) => (level === 'management' ? orgTexts(ctx) : undefined);
    const ids =
      level === 'admin'
        ? ({ set: 'SetDefaultMessageText', get: 'GetCustomMessageText', reset: 'ResetCustomMessageTextToDefault', def: 'GetDefaultMessageText' } as const)
        : ({ set: 'SetCustomMessageText', get: 'GetOrgCustomMessageText', reset: 'ResetOrgCustomMessageTextToDefault', def: 'GetOrgDefaultMessageText' } as const);

    route(ids.set, async (c) => {
      const { messageType, language } = c.req.valid('param');
      return c.json(await setMessageText(store, c.get('ctx'), typed(messageType), language, c.req.valid('json'), scope(c.get('ctx'))), 200);
    });
    route(ids.get, async (c) => {
      const { messageType, language } = c.req.valid('param');
      return c.json({ customText: await getMessageText(store, c.get('ctx'), typed(messageType), language, scope(c.get('ctx'))) }, 200);
    });
    route(ids.reset, async (c) => {
      const { messageType, language } = c.req.valid('param');
      return c.json(await resetMessageText(store, c.get('ctx'), typed(messageType), language, scope(c.get('ctx'))), 200);
    });
    route(ids.def, async (c) => {
      const { messageType, language } = c.req.valid('param');
      const customText = level === 'admin' ? getDefaultMessageText(c.get('ctx'), typed(messageType), language) : await getOrgDefaultMessageText(store, c.get('ctx'), typed(messageType), language);
      return c.json({ customText }, 200);
    });
  }
}
