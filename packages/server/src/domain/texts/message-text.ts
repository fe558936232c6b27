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

export const MESSAGE_TYPES = {
  verifyEmail: 'VerifyEmail',
  init: 'InitCode',
  passwordReset: 'PasswordReset',
  verifyPhone: 'VerifyPhone',
  domainClaimed: 'DomainClaimed',
  passwordlessRegistration: 'PasswordlessRegistration',
  verifySmsOtp: 'VerifySMSOTP',
  verifyEmailOtp: 'VerifyEmailOTP',
  inviteUser: 'InviteUser',
} as const;
export type MessageType = (typeof MESSAGE_TYPES)[keyof typeof MESSAGE_TYPES];

/**
 * The kinds with paths of their own beside the verify-email text's (http/routes/message-texts.ts),
 * by ZITADEL's path segment. Invite-user texts (newer ZITADEL) travel in the document only.
 */
export const MESSAGE_TYPE_BY_SEGMENT = {
  init: 'InitCode',
  passwordreset: 'PasswordReset',
  verifyphone: 'VerifyPhone',
  verifysmsotp: 'VerifySMSOTP',
  verifyemailotp: 'VerifyEmailOTP',
  domainclaimed: 'DomainClaimed',
  passwordless_registration: 'PasswordlessRegistration',
} as const satisfies Record<string, MessageType>;
export type MessageTypeSegment = keyof typeof MESSAGE_TYPE_BY_SEGMENT;

/** The kinds this service sends have built-in texts (en, de); the others have none (empty). */
const builtIn: Partial<Record<MessageType, Record<string, MessageTextFields>>> = {
  VerifyEmail: defaults.verifyemail,
  // en and de only, for now: other languages fall back to English.
  InitCode: defaults.init,
  PasswordReset: defaults.passwordreset,
};

/** ZITADEL's built-in text for a message type and language (English where none exists). */
export function builtInText(type: MessageType, language: Language): MessageTextFields {
  const texts = builtIn[type];
  return withoutEmpty(texts?.[language] ?? texts?.en ?? {});
}

/** Drops empty strings: an empty field means "not customised" (ZITADEL omits zero values). */
export function withoutEmpty(fields: MessageTextFields): MessageTextFields {
  const out: MessageTextFields = {};
  for (const key of MESSAGE_TEXT_FIELDS) if (fields[key]) out[key] = fields[key];
  return out;
}
