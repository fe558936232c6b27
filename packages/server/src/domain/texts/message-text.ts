import defaults from './default-message-texts.json' with { type: 'json' };
import type { Language } from '../languages.js';

export const MESSAGE_TEXT_FIELDS = ['title', 'preHeader', 'subject', 'greeting', 'text', 'buttonText', 'footerText'] as const;
export type MessageTextField = (typeof MESSAGE_TEXT_FIELDS)[number];
export type MessageTextFields = Partial<Record<MessageTextField, string>>;

/** Maximum length in characters (description §2.2; footerText is unbounded there, 8,000 here). */
export const MESSAGE_TEXT_LIMITS: Record<MessageTextField, number> = {
  title: 200,
  preHeader: 200,
  subject: 200,
  greeting: 200,
  text: 800,
  buttonText: 200,
  footerText: 8000,
};

export const MESSAGE_TYPES = { verifyEmail: 'VerifyEmail', init: 'InitCode', passwordReset: 'PasswordReset' } as const;
export type MessageType = (typeof MESSAGE_TYPES)[keyof typeof MESSAGE_TYPES];

const builtIn: Record<MessageType, Record<string, MessageTextFields>> = {
  VerifyEmail: defaults.verifyemail,
  // en and de only, for now: other languages fall back to English.
  InitCode: defaults.init,
  PasswordReset: defaults.passwordreset,
};

/** ZITADEL's built-in text for a message type and language (English where none exists). */
export function builtInText(type: MessageType, language: Language): MessageTextFields {
  return withoutEmpty(builtIn[type][language] ?? builtIn[type].en);
}

/** Drops empty strings: an empty field means "not customised" (ZITADEL omits zero values). */
export function withoutEmpty(fields: MessageTextFields): MessageTextFields {
  const out: MessageTextFields = {};
  for (const key of MESSAGE_TEXT_FIELDS) if (fields[key]) out[key] = fields[key];
  return out;
}
