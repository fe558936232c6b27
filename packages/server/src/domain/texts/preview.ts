/**
 * Preview and test send of message texts (issue 35): the mail a user would receive, rendered by
 * the outbox's own `renderUserMail` (notifications/compose.ts) from the text of a level (the
 * instance's, or an organisation's over it) or from a text in the request that is not stored,
 * filled with a user's values or sample ones. A preview stores and sends nothing; a test send
 * sends that preview to one address through the transport the outbox would use now, and answers
 * what the transport said. Neither makes a code: the mail carries SAMPLE_CODE, so a test mail is
 * never a way to get a usable one.
 */
import type { SecretBox } from '../../secrets/secret-box.js';
import type { UserRow } from '../../store/repositories/users.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { invalidArgument, RateLimited, unavailable } from '../errors.js';
import { newId } from '../ids.js';
import { parseLanguage } from '../languages.js';
import { type ComposedMessage, renderUserMail, SAMPLE_CODE } from '../notifications/compose.js';
import type { MessageKind } from '../notifications/queue.js';
import { TEMPLATE_VARIABLES } from '../notifications/template.js';
import { currentMailRoute, type Delivery, defaultSender, mailDropTransport, type OutgoingMail, smtpTransport } from '../notifications/transports.js';
import type { SlidingWindowLimit } from '../rate-limit.js';
import { userInContextOrg } from '../users/guard.js';
import { checkTemplates } from './custom-message-texts.js';
import { type MessageTextFields, withoutEmpty } from './message-text.js';
import type { TextScope } from './text-scope.js';

/** The kinds of mail the service sends, by the path segment of their text (ZITADEL's). */
export const MAIL_KIND_BY_SEGMENT = { verifyemail: 'verify_email', init: 'init', passwordreset: 'password_reset' } as const satisfies Record<string, MessageKind>;
export type MailKindSegment = keyof typeof MAIL_KIND_BY_SEGMENT;

/** Where mail of this process goes besides SMTP, and the base of links (main.ts's configuration). */
export interface MailSettings {
  externalUrl: string;
  /** The mail-drop folder (MAIL_DROP_DIR); without it, and without an active SMTP provider, there is no transport. */
  mailDropDir?: string;
  /** Test sends per caller (TEST_SENDS_PER_MINUTE a minute): each mails any address it is given. */
  testSends: SlidingWindowLimit;
}

export const TEST_SENDS_PER_MINUTE = 10;
/** Marks a test send, so a recipient (or a mail filter) can tell it from a real mail. */
export const TEST_SEND_HEADER = 'X-Identity-Service-Test';

export interface PreviewInput {
  customText?: MessageTextFields;
  userId?: string;
}

export interface MessageTextPreview {
  subject: string;
  html: string;
  plainText: string;
  language: string;
  sampleVariables: string[];
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Checks the input as PUT checks a text, finds the user, renders. Permissions are the caller's business. */
async function render(
  store: Store,
  ctx: RequestContext,
  scope: TextScope,
  kind: MessageKind,
  languageInput: string,
  input: PreviewInput,
  externalUrl: string,
): Promise<{ message: ComposedMessage; sampleVariables: string[] }> {
  const language = parseLanguage(languageInput);
  const draft = input.customText ? withoutEmpty(input.customText) : undefined;
  if (draft) checkTemplates(draft, 'customText.');
  let user: UserRow | undefined;
  if (input.userId !== undefined) {
    // A preview filled from a user shows that user's names, addresses and login names.
    requirePermission(ctx, 'user.read');
    user = await userInContextOrg(store.read, ctx, input.userId, 'TEXT-pr3vU');
    if (user.type !== 'human') throw invalidArgument('TEXT-pr3vM', 'invalid userId: a machine user receives no mail');
  }
  const message = await renderUserMail(store.read, {
    instanceId: ctx.instanceId,
    externalUrl,
    kind,
    language,
    orgId: scope.aggregate === 'org' ? scope.ownerId : undefined,
    draft,
    user,
    code: SAMPLE_CODE,
  });
  return { message, sampleVariables: user ? ['Code'] : [...TEMPLATE_VARIABLES] };
}

export async function previewMessageText(
  store: Store,
  ctx: RequestContext,
  scope: TextScope,
  kind: MessageKind,
  language: string,
  input: PreviewInput,
  mail: Pick<MailSettings, 'externalUrl'>,
): Promise<MessageTextPreview> {
  requirePermission(ctx, scope.read);
  const { message, sampleVariables } = await render(store, ctx, scope, kind, language, input, mail.externalUrl);
  return { subject: message.subject, html: message.html, plainText: message.text, language: message.language, sampleVariables };
}

export interface TestSendAnswer {
  accepted: boolean;
  transport: 'smtp' | 'mail-drop';
  smtpConfigId?: string;
  response: string;
  file?: string;
  messageId?: string;
}

/**
 * Sends the preview to `receiverAddress`. It mails any address, so it takes the permission to set
 * the text (not merely to read it) and a share of TEST_SENDS_PER_MINUTE, counted only once the
 * request is valid.
 */
export async function testMessageText(
  store: Store,
  secrets: SecretBox,
  ctx: RequestContext,
  scope: TextScope,
  kind: MessageKind,
  language: string,
  input: PreviewInput & { receiverAddress: string },
  mail: MailSettings,
): Promise<TestSendAnswer> {
  requirePermission(ctx, scope.write);
  if (!EMAIL.test(input.receiverAddress)) throw invalidArgument('TEXT-r3cvr', 'invalid receiverAddress: not an email address');
  const { message } = await render(store, ctx, scope, kind, language, input, mail.externalUrl);
  const wait = mail.testSends.take(ctx.caller.userId);
  if (wait !== undefined) throw new RateLimited('TEXT-t3stR', `at most ${mail.testSends.max} test mails a minute; retry in ${wait} s`, wait);

  const route = await currentMailRoute(store.read, secrets);
  if (route.kind === 'broken') throw unavailable('TEXT-n0Trp', `the mail was not sent: ${route.problem}`);
  if (route.kind === 'drop' && !mail.mailDropDir) throw unavailable('TEXT-n0Trp', 'the mail was not sent: no SMTP provider is active and there is no mail-drop folder');
  const outgoing: OutgoingMail = {
    from: route.kind === 'smtp' ? route.from : defaultSender(mail.externalUrl),
    replyTo: route.kind === 'smtp' ? route.replyTo : undefined,
    to: input.receiverAddress,
    subject: message.subject,
    html: message.html,
    text: message.text,
    headers: { [TEST_SEND_HEADER]: 'message-text' },
  };
  if (route.kind === 'drop') {
    let delivery: Delivery;
    try {
      delivery = await mailDropTransport(mail.mailDropDir!)(outgoing, `test-${newId()}`);
    } catch (error) {
      throw unavailable('TEXT-dr0pF', `the mail was not written to the mail-drop folder: ${(error as Error).message}`);
    }
    return { accepted: true, transport: 'mail-drop', response: delivery.response, file: delivery.file, messageId: delivery.messageId };
  }
  // One connection for this mail, with the outbox's timeouts (transports.ts, SMTP_TIMEOUTS).
  const smtp = smtpTransport(route.settings, `smtp:${route.provider.id}`);
  try {
    const delivery = await smtp.send(outgoing, 'test');
    return { accepted: true, transport: 'smtp', smtpConfigId: route.provider.id, response: delivery.response, messageId: delivery.messageId };
  } catch (error) {
    const refusal = smtpRefusal(error);
    if (refusal) return { accepted: false, transport: 'smtp', smtpConfigId: route.provider.id, response: refusal };
    throw unavailable('TEXT-smtpF', `the mail was not sent through SMTP provider ${route.provider.id}: ${(error as Error).message}`);
  } finally {
    smtp.close();
  }
}

/**
 * The server's answer when it refused this mail — its sender, its recipient or its content
 * (nodemailer's EENVELOPE, EMESSAGE with the server's reply) — as opposed to a transport that
 * could not be used (connection, TLS, authentication, timeout), which is an error.
 */
function smtpRefusal(error: unknown): string | undefined {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  if ((e.code === 'EENVELOPE' || e.code === 'EMESSAGE') && e.responseCode) return e.response || e.message;
  return undefined;
}
