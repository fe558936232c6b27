/**
 * A message as it is sent: the text chosen as description §2.2 says — the organisation's custom
 * text of the user's language, else the instance's (4.1), else the built-in one, field by field
 * (a custom text may set only some fields) — with the variables filled from the user, as a
 * subject, an HTML part and a plain-text part.
 *
 * `renderUserMail` is the one rendering of a user's mail: the outbox (background/outbox-worker.ts)
 * and the preview and test send of texts (domain/texts/preview.ts) both call it, so a preview is
 * what the outbox delivers.
 */

import type { UserRow } from '../../store/repositories/users.js';
import type { Repositories } from '../../store/store.js';
import { type Language, SUPPORTED_LANGUAGES } from '../languages.js';
import { label } from '../policies/label.js';
import { builtInText, MESSAGE_TYPES, type MessageTextFields, type MessageType, withoutEmpty } from '../texts/message-text.js';
import { type LoginNames, loginNameReader } from '../users/login-names.js';
import type { HumanData } from '../users/view.js';
import type { CodeKind } from './codes.js';
import type { MessageKind } from './queue.js';
import { escapeHtml, renderTemplate, type TemplateValues } from './template.js';

export interface ComposedMessage {
  subject: string;
  html: string;
  text: string;
  language: Language;
}

/** The user's preferred language when the service has texts for it; else English (there is no instance default language setting yet). */
export function messageLanguage(user: UserRow): Language {
  const preferred = (user.data as unknown as HumanData).profile?.preferredLanguage?.toLowerCase().split(/[-_]/)[0];
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(preferred ?? '') ? (preferred as Language) : 'en';
}

/** A kind of mail that carries a code: which code, and the event its issue appends. */
interface CodeOfMail {
  kind: CodeKind;
  event: string;
}

/** What each kind of mail the outbox sends is: its code (if any), its text, the page its button opens. */
export const MAIL_KINDS: Record<MessageKind, { code?: CodeOfMail; text: MessageType; path: string }> = {
  verify_email: { code: { kind: 'email_verification', event: 'user.human.email.code.added' }, text: MESSAGE_TYPES.verifyEmail, path: '/ui/login/mail/verification' },
  init: { code: { kind: 'init', event: 'user.human.initialization.code.added' }, text: MESSAGE_TYPES.init, path: '/ui/login/user/init' },
  password_reset: { code: { kind: 'password_reset', event: 'user.human.password.code.added' }, text: MESSAGE_TYPES.passwordReset, path: '/ui/login/password/init' },
  // No code: it tells the owner how to sign in; its button opens the sign-in start page.
  registration_attempt: { text: MESSAGE_TYPES.registrationAttempt, path: '/ui/login' },
};

/**
 * The text a user of `orgId` receives, field by field: the organisation's, else the instance's,
 * else the built-in one. Without `orgId`: what users of an organisation without a text of its own
 * receive. A `draft` stands in for the stored text of its level, as PUT would store it (empty
 * fields fall back), so a text can be seen before it is stored.
 */
export async function chooseText(
  read: Repositories,
  instanceId: string,
  orgId: string | undefined,
  type: MessageType,
  language: Language,
  draft?: { level: 'instance' | 'org'; fields: MessageTextFields },
): Promise<MessageTextFields> {
  const stored = async (ownerId: string) => (await read.messageTexts.get(ownerId, type, language))?.fields ?? {};
  const instance = draft?.level === 'instance' ? draft.fields : await stored(instanceId);
  const org = draft?.level === 'org' ? draft.fields : orgId ? await stored(orgId) : {};
  return { ...builtInText(type, language), ...withoutEmpty(instance), ...withoutEmpty(org) };
}

export function templateValues(user: UserRow, names: LoginNames, code: string): TemplateValues {
  const human = user.data as unknown as HumanData;
  return {
    Code: code,
    UserName: user.userName,
    FirstName: human.profile?.firstName ?? '',
    LastName: human.profile?.lastName ?? '',
    NickName: human.profile?.nickName ?? '',
    DisplayName: human.profile?.displayName ?? user.userName,
    LastEmail: human.email?.email ?? '',
    VerifiedEmail: human.email?.isEmailVerified ? human.email.email : '',
    LastPhone: human.phone?.phone ?? '',
    VerifiedPhone: human.phone?.isPhoneVerified ? human.phone.phone : '',
    PreferredLoginName: names.preferredLoginName,
    LoginNames: names.loginNames.join(', '),
    ChangeDate: user.changedAt.toISOString(),
    CreationDate: user.createdAt.toISOString(),
  };
}

/**
 * The values a preview fills in where it has no user (or no code: a code is made only when a mail
 * is sent, so a preview or test mail never carries a usable one). Each reads as a sample.
 */
export const SAMPLE_CODE = 'SAMPLE-CODE';
export const SAMPLE_USER_ID = 'SAMPLE-USER-ID';
export const SAMPLE_ORG_ID = 'SAMPLE-ORG-ID';
export const SAMPLE_VALUES: Required<TemplateValues> = {
  Code: SAMPLE_CODE,
  UserName: 'sample.user',
  FirstName: 'Sample',
  LastName: 'User',
  NickName: 'Sample',
  DisplayName: 'Sample User',
  LastEmail: 'sample.user@example.com',
  VerifiedEmail: 'sample.user@example.com',
  LastPhone: '+10000000000',
  VerifiedPhone: '+10000000000',
  PreferredLoginName: 'sample.user@example.com',
  LoginNames: 'sample.user@example.com',
  ChangeDate: '2000-01-01T00:00:00.000Z',
  CreationDate: '2000-01-01T00:00:00.000Z',
};

const paragraphs = (s: string) => escapeHtml(s).replace(/\r?\n/g, '<br>');

/** The colours of a mail: the organisation's label policy (light mode: mail clients rarely honour dark styles). */
export interface MailLook {
  primaryColor: string;
  backgroundColor: string;
  fontColor: string;
}

const DEFAULT_LOOK: MailLook = { primaryColor: '#5469d4', backgroundColor: '#f4f4f7', fontColor: '#222222' };

/** Subject, HTML part (preHeader as the hidden preview line) and plain-text part. */
export function composeMessage(fields: MessageTextFields, values: TemplateValues, link: string, language: Language, look: Partial<MailLook> = {}): ComposedMessage {
  // Empty colours in the policy mean "the default" (label.ts checks that the others are hex colours).
  const colour = (key: keyof MailLook) => look[key] || DEFAULT_LOOK[key];
  const accent = colour('primaryColor');
  const plain = (key: keyof MessageTextFields) => renderTemplate(fields[key] ?? '', values);
  const html = (key: keyof MessageTextFields) => paragraphs(plain(key));
  const subject = plain('subject') || plain('title');
  const htmlBody = `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${html('title')}</title></head>
<body style="margin:0;padding:0;background:${colour('backgroundColor')};font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:${colour('fontColor')}">
<div style="display:none;max-height:0;overflow:hidden">${html('preHeader')}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table role="presentation" width="100%" style="max-width:560px;background:#fff;border-radius:8px;padding:32px">
<tr><td><h1 style="font-size:22px;margin:0 0 16px">${html('title')}</h1>
<p style="margin:0 0 12px">${html('greeting')}</p>
<p style="margin:0 0 24px;line-height:1.5">${html('text')}</p>
<p style="margin:0 0 24px"><a href="${escapeHtml(link)}" style="display:inline-block;background:${accent};color:#fff;text-decoration:none;padding:12px 20px;border-radius:6px">${html('buttonText')}</a></p>
<p style="margin:0;color:#666;font-size:13px">${html('footerText')}</p></td></tr></table></td></tr></table></body></html>`;
  const text = [plain('title'), '', plain('greeting'), '', plain('text'), '', `${plain('buttonText')}: ${link}`, ...(fields.footerText ? ['', plain('footerText')] : [])].join('\n');
  return { subject, html: htmlBody, text, language };
}

/**
 * A user's mail of one kind, read and rendered: the text (`chooseText`), the label policy's colours,
 * the variables filled from the user with its code (or sample values), and the link of its button
 * (the kind's page with the user, the code and the organisation). The outbox renders every mail it
 * sends with this, and the preview and test send of texts theirs, so a preview is what is delivered.
 */
export async function renderUserMail(
  read: Repositories,
  input: {
    instanceId: string;
    /** Base of the link (EXTERNAL_URL). */
    externalUrl: string;
    kind: MessageKind;
    language: Language;
    /** Whose text and label policy: an organisation's (the outbox: the user's), else the instance's (what users of organisations without their own receive). */
    orgId?: string;
    /** A text not stored, standing in for the stored one of that level (the preview). */
    draft?: MessageTextFields;
    /** The recipient and its code; without a user, SAMPLE_VALUES. */
    user?: UserRow;
    code: string;
  },
): Promise<ComposedMessage> {
  const { instanceId, kind, language, orgId, user } = input;
  const [fields, look, names] = await Promise.all([
    chooseText(read, instanceId, orgId, MAIL_KINDS[kind].text, language, input.draft && { level: orgId ? 'org' : 'instance', fields: input.draft }),
    label.effective(read, instanceId, orgId ?? instanceId),
    user && loginNameReader(read, instanceId).of(user),
  ]);
  const values = user && names ? templateValues(user, names, input.code) : { ...SAMPLE_VALUES, Code: input.code };
  const link = new URL(input.externalUrl + MAIL_KINDS[kind].path);
  if (MAIL_KINDS[kind].code) {
    link.searchParams.set('userID', user?.id ?? SAMPLE_USER_ID);
    link.searchParams.set('code', input.code);
    link.searchParams.set('orgID', user?.orgId ?? orgId ?? SAMPLE_ORG_ID);
  }
  return composeMessage(fields, values, link.href, language, look);
}
