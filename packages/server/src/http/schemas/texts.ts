import { z } from '@hono/zod-openapi';
import { MESSAGE_TEXT_LIMITS } from '../../domain/texts/message-text.js';
import { Details } from './common.js';

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
