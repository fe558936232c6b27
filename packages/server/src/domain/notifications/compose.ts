/**
 * A message as it is sent: the text chosen as description §2.2 says — the organisation's custom
 * text of the user's language, else the instance's (4.1), else the built-in one, field by field
 * (a custom text may set only some fields) — with the variables filled from the user, as a
 * subject, an HTML part and a plain-text part.
 */
import { SUPPORTED_LANGUAGES, type Language } from '../languages.js';
import { builtInText, withoutEmpty, type MessageTextFields, type MessageType } from '../texts/message-text.js';
import type { HumanData } from '../users/view.js';
import type { LoginNames } from '../users/login-names.js';
import type { Repositories } from '../../store/store.js';
import type { UserRow } from '../../store/repositories/users.js';
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

export async function chooseText(read: Repositories, instanceId: string, orgId: string, type: MessageType, language: Language): Promise<MessageTextFields> {
  const org = await read.messageTexts.get(orgId, type, language);
  const instance = await read.messageTexts.get(instanceId, type, language);
  return { ...builtInText(type, language), ...withoutEmpty(instance?.fields ?? {}), ...withoutEmpty(org?.fields ?? {}) };
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
