/**
 * The instance's SMTP providers (ZITADEL's v1 admin "SMTP configs"): add, read, list, update,
 * change the password, activate (the others are deactivated: one is active at a time),
 * deactivate, remove, and send a test mail. The password is sealed with the operator's key and
 * appears in no read, no event and no log. Events go to the instance aggregate.
 */
import type { SecretBox } from '../../secrets/secret-box.js';
import type { SmtpProviderRow } from '../../store/repositories/notifications.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { parseSmtpHost, SMTP_PASSWORD_PURPOSE, smtpTransport } from './transports.js';

export { SMTP_PASSWORD_PURPOSE };
export const SMTP_STATES = ['SMTP_CONFIG_STATE_UNSPECIFIED', 'SMTP_CONFIG_ACTIVE', 'SMTP_CONFIG_INACTIVE'] as const;

export interface SmtpProviderInput {
  senderAddress: string;
  senderName: string;
  tls?: boolean;
  host: string;
  user?: string;
  password?: string;
  replyToAddress?: string;
  description?: string;
}

export interface SmtpConfigView {
  details: ObjectDetails;
  id: string;
  senderAddress: string;
  senderName: string;
  tls: boolean;
  host: string;
  user: string;
  state: (typeof SMTP_STATES)[number];
  description: string;
  replyToAddress: string;
}

/** The aggregate of the instance, whose events these are. */
const INSTANCE_AGGREGATE = 'instance';
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const notFoundError = () => notFound('SMTP-7nQTp', 'SMTP configuration not found');

function validate(input: SmtpProviderInput): void {
  if (!EMAIL.test(input.senderAddress)) throw invalidArgument('SMTP-senD3', 'invalid senderAddress: not an email address');
  if (input.replyToAddress && !EMAIL.test(input.replyToAddress)) throw invalidArgument('SMTP-r3plY', 'invalid replyToAddress: not an email address');
  try {
    const { port } = parseSmtpHost(input.host, input.tls ?? false);
    if (port < 1 || port > 65535) throw new Error('port out of range');
  } catch {
    throw invalidArgument('SMTP-h0st1', `invalid host: "${input.host}" is not host or host:port`);
  }
}

export function toSmtpConfigView(row: SmtpProviderRow, instanceId: string): SmtpConfigView {
  return {
    details: viewDetails(row, instanceId),
    id: row.id,
    senderAddress: row.senderAddress,
    senderName: row.senderName,
    tls: row.tls,
    host: row.host,
    user: row.user,
    state: row.state as SmtpConfigView['state'],
    description: row.description,
    replyToAddress: row.replyToAddress,
  };
}

async function append(tx: Repositories, ctx: RequestContext, type: string, payload: Record<string, unknown>) {
  return tx.events.append({ aggregateType: INSTANCE_AGGREGATE, aggregateId: ctx.instanceId, type, payload, creator: ctx.caller.userId, resourceOwner: ctx.instanceId });
}

/** A change to provider `id`: the instance's event of `type` (its payload names the provider), then the row changed with the event's position. */
async function changeProvider(tx: Repositories, ctx: RequestContext, id: string, type: string, payload: Record<string, unknown>, change: Partial<SmtpProviderRow>) {
  const event = await append(tx, ctx, type, { id, ...payload });
  await tx.notifications.updateProvider(id, { ...change, sequence: event.sequence, changedAt: event.createdAt });
  return event;
}

/** The provider's settings a request gives, with ZITADEL's defaults for those it leaves out. */
function settingsOf(input: SmtpProviderInput) {
  return {
    senderAddress: input.senderAddress,
    senderName: input.senderName,
    tls: input.tls ?? false,
    host: input.host,
    user: input.user ?? '',
    replyToAddress: input.replyToAddress ?? '',
    description: input.description ?? '',
  };
}

export async function addSmtpProvider(store: Store, secrets: SecretBox, ctx: RequestContext, input: SmtpProviderInput): Promise<{ details: ObjectDetails; id: string }> {
  requirePermission(ctx, 'iam.write');
  validate(input);
  const id = newId();
  const passwordSealed = input.password ? secrets.seal(input.password, SMTP_PASSWORD_PURPOSE) : null;
  return store.transaction(async (tx) => {
    const settings = settingsOf(input);
    const event = await append(tx, ctx, 'instance.smtp.config.added', { id, ...settings, passwordSet: Boolean(passwordSealed) });
    await tx.notifications.insertProvider({ id, ...settings, passwordSealed, state: 'SMTP_CONFIG_INACTIVE', sequence: event.sequence, createdAt: event.createdAt, changedAt: event.createdAt });
    return { details: addedDetails(event), id };
  });
}

export async function updateSmtpProvider(store: Store, secrets: SecretBox, ctx: RequestContext, id: string, input: SmtpProviderInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  validate(input);
  return store.transaction(async (tx) => {
    const row = await tx.notifications.provider(id);
    if (!row) throw notFoundError();
    const next = settingsOf(input);
    const changed = Object.fromEntries(Object.entries(next).filter(([k, v]) => row[k as keyof typeof next] !== v));
    // ZITADEL's UpdateSMTPConfig takes an optional password too.
    const passwordSealed = input.password ? secrets.seal(input.password, SMTP_PASSWORD_PURPOSE) : undefined;
    if (Object.keys(changed).length === 0 && !passwordSealed) throw failedPrecondition('SMTP-nm0Ch', 'SMTP configuration has not been changed');
    const event = await changeProvider(
      tx,
      ctx,
      id,
      'instance.smtp.config.changed',
      { ...changed, ...(passwordSealed ? { passwordChanged: true } : {}) },
      { ...changed, ...(passwordSealed ? { passwordSealed } : {}) },
    );
    return { details: changedDetails(event) };
  });
}

export async function updateSmtpPassword(store: Store, secrets: SecretBox, ctx: RequestContext, id: string, password: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  const passwordSealed = secrets.seal(password, SMTP_PASSWORD_PURPOSE);
  return store.transaction(async (tx) => {
    if (!(await tx.notifications.provider(id))) throw notFoundError();
    const event = await changeProvider(tx, ctx, id, 'instance.smtp.config.password.changed', {}, { passwordSealed });
    return { details: changedDetails(event) };
  });
}

export async function activateSmtpProvider(store: Store, ctx: RequestContext, id: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  return store.transaction(async (tx) => {
    const row = await tx.notifications.provider(id);
    if (!row) throw notFoundError();
    if (row.state === 'SMTP_CONFIG_ACTIVE') throw failedPrecondition('SMTP-Ah1vE', 'SMTP configuration is already active');
    for (const other of await tx.notifications.allProviders()) {
      if (other.state !== 'SMTP_CONFIG_ACTIVE') continue;
      await changeProvider(tx, ctx, other.id, 'instance.smtp.config.deactivated', {}, { state: 'SMTP_CONFIG_INACTIVE' });
    }
    const event = await changeProvider(tx, ctx, id, 'instance.smtp.config.activated', {}, { state: 'SMTP_CONFIG_ACTIVE' });
    return { details: changedDetails(event) };
  });
}

export async function deactivateSmtpProvider(store: Store, ctx: RequestContext, id: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  return store.transaction(async (tx) => {
    const row = await tx.notifications.provider(id);
    if (!row) throw notFoundError();
    if (row.state !== 'SMTP_CONFIG_ACTIVE') throw failedPrecondition('SMTP-km8Ds', 'SMTP configuration is not active');
    const event = await changeProvider(tx, ctx, id, 'instance.smtp.config.deactivated', {}, { state: 'SMTP_CONFIG_INACTIVE' });
    return { details: changedDetails(event) };
  });
}

export async function removeSmtpProvider(store: Store, ctx: RequestContext, id: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  return store.transaction(async (tx) => {
    if (!(await tx.notifications.provider(id))) throw notFoundError();
    const event = await append(tx, ctx, 'instance.smtp.config.removed', { id });
    await tx.notifications.removeProvider(id);
    return { details: changedDetails(event) };
  });
}

export async function getSmtpProvider(store: Store, ctx: RequestContext, id: string): Promise<{ smtpConfig: SmtpConfigView }> {
  requirePermission(ctx, 'iam.read');
  const row = await store.read.notifications.provider(id);
  if (!row) throw notFoundError();
  return { smtpConfig: toSmtpConfigView(row, ctx.instanceId) };
}

/** ZITADEL's GetSMTPConfig: the active provider. */
export async function getActiveSmtpProvider(store: Store, ctx: RequestContext): Promise<{ smtpConfig: SmtpConfigView }> {
  requirePermission(ctx, 'iam.read');
  const row = await store.read.notifications.activeProvider();
  if (!row) throw notFound('SMTP-no4Ct', 'No SMTP configuration is active: mail goes to the mail-drop folder');
  return { smtpConfig: toSmtpConfigView(row, ctx.instanceId) };
}

export async function listSmtpProviders(store: Store, ctx: RequestContext, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: SmtpConfigView[] }> {
  requirePermission(ctx, 'iam.read');
  const at = new Date();
  const { total, rows } = await store.read.notifications.providers(toPage(input.query));
  return { details: listDetails(total, at), result: rows.map((r) => toSmtpConfigView(r, ctx.instanceId)) };
}

/** Sends a test mail with these settings now; a failure is a 400 saying what the server answered. */
async function sendTestMail(settings: { senderAddress: string; senderName: string; tls: boolean; host: string; user: string; password?: string }, receiverAddress: string): Promise<void> {
  if (!EMAIL.test(receiverAddress)) throw invalidArgument('SMTP-rec1v', 'invalid receiverAddress: not an email address');
  const smtp = smtpTransport(settings, 'test');
  try {
    await smtp.send(
      {
        from: { name: settings.senderName, address: settings.senderAddress },
        to: receiverAddress,
        subject: 'identity-service: SMTP test',
        text: 'This is a test mail from identity-service: the SMTP provider works.',
        html: '<p>This is a test mail from identity-service: the SMTP provider works.</p>',
      },
      'test',
    );
  } catch (error) {
    throw failedPrecondition('SMTP-t3st0', `the test mail was not sent: ${(error as Error).message}`);
  } finally {
    smtp.close();
  }
}

export async function testSmtpProviderById(store: Store, secrets: SecretBox, ctx: RequestContext, id: string, receiverAddress: string): Promise<Record<string, never>> {
  requirePermission(ctx, 'iam.write');
  const row = await store.read.notifications.provider(id);
  if (!row) throw notFoundError();
  const password = row.passwordSealed ? secrets.openText(row.passwordSealed, SMTP_PASSWORD_PURPOSE) : undefined;
  await sendTestMail({ ...row, password }, receiverAddress);
  return {};
}

export async function testSmtpSettings(store: Store, secrets: SecretBox, ctx: RequestContext, input: SmtpProviderInput & { receiverAddress: string; id?: string }): Promise<Record<string, never>> {
  requirePermission(ctx, 'iam.write');
  validate(input);
  let password = input.password;
  // As ZITADEL: with an id and no password, the stored password is used.
  if (!password && input.id) {
    const row = await store.read.notifications.provider(input.id);
    if (!row) throw notFoundError();
    password = row.passwordSealed ? secrets.openText(row.passwordSealed, SMTP_PASSWORD_PURPOSE) : undefined;
  }
  await sendTestMail({ senderAddress: input.senderAddress, senderName: input.senderName, tls: input.tls ?? false, host: input.host, user: input.user ?? '', password }, input.receiverAddress);
  return {};
}

/** Re-seals SMTP passwords sealed with an earlier operator key (commands/resealers.ts). */
export async function resealSmtpPasswords(store: Store, secrets: SecretBox): Promise<number> {
  return store.transaction(async (tx) => {
    let count = 0;
    for (const row of await tx.notifications.allProviders()) {
      if (!row.passwordSealed || !secrets.isStale(row.passwordSealed)) continue;
      const plain = secrets.openText(row.passwordSealed, SMTP_PASSWORD_PURPOSE);
      await tx.notifications.updateProvider(row.id, { passwordSealed: secrets.seal(plain, SMTP_PASSWORD_PURPOSE) });
      count++;
    }
    return count;
  });
}
