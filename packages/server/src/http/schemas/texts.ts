import { z } from '@hono/zod-openapi';
import { MESSAGE_TEXT_LIMITS } from '../../domain/texts/message-text.js';
import { Details } from './common.js';
import { LOGIN_TEXT_SCREENS } from '../../domain/transfer/document.js';

const field = (name: keyof typeof MESSAGE_TEXT_LIMITS) => z.string().max(MESSAGE_TEXT_LIMITS[name]).optional();

export const SetMessageTextRequest = z
  .object({
    title: field('title'),
    preHeader: field('preHeader'),
    subject: field('subject'),
    greeting: field('greeting'),
    text: field('text'),
    buttonText: field('buttonText'),
    footerText: field('footerText'),
  })
  .openapi('SetMessageTextRequest');

export const MessageCustomText = z
  .object({
    details: Details,
    title: z.string().optional(),
    preHeader: z.string().optional(),
    subject: z.string().optional(),
    greeting: z.string().optional(),
    text: z.string().optional(),
    buttonText: z.string().optional(),
    footerText: z.string().optional(),
    isDefault: z.boolean(),
  })
  .openapi('MessageCustomText');

export const MessageTextResponse = z.object({ customText: MessageCustomText });

export const LanguageParam = z.object({ language: z.string().min(1).max(200) });

export const LanguagesResponse = z.object({ languages: z.array(z.string()) });

// Login texts (domain/texts/login-texts.ts): ZITADEL's screens, each a set of short strings.
const LoginScreen = z.record(z.string().min(1).max(200), z.string().max(500));
const screens = Object.fromEntries(LOGIN_TEXT_SCREENS.map((screen) => [screen, LoginScreen.optional()])) as Record<(typeof LOGIN_TEXT_SCREENS)[number], z.ZodOptional<typeof LoginScreen>>;

export const SetCustomLoginTextRequest = z.object(screens).openapi('SetCustomLoginTextRequest');

export const LoginCustomText = z.object({ details: Details, isDefault: z.boolean(), ...screens }).openapi('LoginCustomText');

export const LoginCustomTextResponse = z.object({ customText: LoginCustomText });
