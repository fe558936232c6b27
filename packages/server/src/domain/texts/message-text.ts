import type { Language } from '../languages.js';
import defaults from './default-message-texts.json' with { type: 'json' };

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
  /** This service's own (no ZITADEL twin, not customisable): someone tried to register with an existing account's address. */
  registrationAttempt: 'RegistrationAttempt',
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

/**
 * The notice to an account's owner when someone registers with its address at the login page
 * (domain/login/registration.ts): the page answered as for a new account, so only the owner learns
 * that the account exists.
 */
const REGISTRATION_ATTEMPT: Record<string, MessageTextFields> = {
  en: {
    title: 'Someone tried to create an account with your email address',
    preHeader: 'You already have an account',
    subject: 'You already have an account',
    greeting: 'Hello {{.DisplayName}},',
    text: 'Someone, maybe you, just tried to create a new account with this email address. You already have one: sign in with {{.PreferredLoginName}}. If you forgot your password, choose “Forgot your password?” on the sign-in page. If it was not you, ignore this mail: no account was created and nothing was changed.',
    buttonText: 'How to sign in',
  },
  de: {
    title: 'Jemand wollte mit Ihrer E-Mail-Adresse ein Konto anlegen',
    preHeader: 'Sie haben bereits ein Konto',
    subject: 'Sie haben bereits ein Konto',
    greeting: 'Hallo {{.DisplayName}},',
    text: 'Jemand, vielleicht Sie selbst, wollte eben mit dieser E-Mail-Adresse ein neues Konto anlegen. Sie haben bereits eines: Melden Sie sich mit {{.PreferredLoginName}} an. Falls Sie Ihr Passwort vergessen haben, wählen Sie auf der Anmeldeseite „Passwort vergessen?“. Falls Sie es nicht waren, ignorieren Sie diese E-Mail: Es wurde kein Konto angelegt und nichts geändert.',
    buttonText: 'So melden Sie sich an',
  },
};

/** The kinds this service sends have built-in texts (en, de); the others have none (empty). */
const builtIn: Partial<Record<MessageType, Record<string, MessageTextFields>>> = {
  VerifyEmail: defaults.verifyemail,
  // en and de only, for now: other languages fall back to English.
  InitCode: defaults.init,
  PasswordReset: defaults.passwordreset,
  RegistrationAttempt: REGISTRATION_ATTEMPT,
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
