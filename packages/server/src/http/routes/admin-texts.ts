/**
 * Instance message texts (description §4.1): openapi/paths/admin/text-verifyemail.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SUPPORTED_LANGUAGES } from '../../domain/languages.js';
import { getDefaultMessageText, getMessageText, getOrgDefaultMessageText, resetMessageText, setMessageText } from '../../domain/texts/custom-message-texts.js';
import { MESSAGE_TYPES } from '../../domain/texts/message-text.js';
import { orgTexts } from '../../domain/texts/text-scope.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminTextRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('SetDefaultVerifyEmailMessageText', async (c) => {
    const { language } = c.req.valid('param');
    const result = await setMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, language, c.req.valid('json'));
    return c.json(result, 200);
  });

  route('GetCustomVerifyEmailMessageText', async (c) => {
    const customText = await getMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language);
    return c.json({ customText }, 200);
  });

  route('GetDefaultVerifyEmailMessageText', async (c) => {
    const customText = getDefaultMessageText(c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language);
    return c.json({ customText }, 200);
  });

  route('ResetCustomVerifyEmailMessageTextToDefault', async (c) => {
    const result = await resetMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language);
    return c.json(result, 200);
  });

  route('GetSupportedLanguages', (c) => c.json({ languages: [...SUPPORTED_LANGUAGES] }, 200));
}

/** The organisation's twins (ZITADEL's management API): openapi/paths/management/text-verifyemail.yaml. */
export function registerManagementTextRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);
  route('SetCustomVerifyEmailMessageText', async (c) =>
    c.json(await setMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language, c.req.valid('json'), orgTexts(c.get('ctx'))), 200),
  );
  route('GetOrgCustomVerifyEmailMessageText', async (c) =>
    c.json({ customText: await getMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language, orgTexts(c.get('ctx'))) }, 200),
  );
  route('ResetOrgCustomVerifyEmailMessageTextToDefault', async (c) =>
    c.json(await resetMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language, orgTexts(c.get('ctx'))), 200),
  );
  route('GetOrgDefaultVerifyEmailMessageText', async (c) => c.json({ customText: await getOrgDefaultMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.valid('param').language) }, 200));
}
