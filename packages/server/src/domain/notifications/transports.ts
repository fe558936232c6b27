/**
 * Where mail goes, through nodemailer (no SMTP written here): the active SMTP provider, or, while
 * none is active, the mail-drop folder — one RFC 822 `.eml` file per message (0600 in a 0700
 * folder), which any mail program opens. Every SMTP connection has timeouts, so a dead server is
 * an error after seconds, never a hang.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { SmtpProviderRow } from '../../store/repositories/notifications.js';
import type { Repositories } from '../../store/store.js';

export interface OutgoingMail {
  from: { name: string; address: string };
  replyTo?: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Extra headers (the outbox id, so a delivered mail can be traced back). */
  headers?: Record<string, string>;
}

/** What a transport said about one mail it took. */
export interface Delivery {
  /** Where it went, for the outbox and the log: `smtp:<provider id>` or `mail-drop:<path>`. */
  via: string;
  /** The SMTP server's last response line (`250 …`), or where the mail-drop file was written. */
  response: string;
  /** The mail-drop file's name. */
  file?: string;
  messageId?: string;
}

/** Sends one mail; resolves to what the transport said. */
export type Transport = (mail: OutgoingMail, id: string) => Promise<Delivery>;

/** The purpose SMTP passwords are sealed under (secrets/secret-box.ts). */
export const SMTP_PASSWORD_PURPOSE = 'smtp.password';

export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function mailDropTransport(dir: string): Transport {
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return async (mail, id) => {
    const info = await builder.sendMail({ ...mail, replyTo: mail.replyTo || undefined });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`;
    writeFileSync(join(dir, file), info.message as Buffer, { mode: 0o600 });
    return { via: `mail-drop:${join(dir, file)}`, response: `written to the mail-drop folder as ${file}`, file, messageId: info.messageId };
  };
}

export interface SmtpSettings {
  host: string;
  tls: boolean;
  user: string;
  password?: string;
}

/** `host:port`; the port defaults to 465 with TLS and 25 without (as ZITADEL's setting reads). */
export function parseSmtpHost(hostPort: string, tls: boolean): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(hostPort.trim());
  if (!match) throw new Error(`"${hostPort}" is not host:port`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : tls ? 465 : 25 };
}

export function smtpTransportOptions(s: SmtpSettings) {
  const { host, port } = parseSmtpHost(s.host, s.tls);
  return {
    host,
    port,
    // tls: implicit TLS on 465, STARTTLS required elsewhere; without tls, plain SMTP (no upgrade).
    secure: s.tls && port === 465,
    requireTLS: s.tls && port !== 465,
    ignoreTLS: !s.tls,
    auth: s.user ? { user: s.user, pass: s.password ?? '' } : undefined,
    ...SMTP_TIMEOUTS,
  };
}

/**
 * `pooled`: the worker's transport keeps up to SMTP_POOL_CONNECTIONS connections open and reuses
 * them (a new connection per mail costs a TCP and SMTP handshake each); a one-off test mail opens one.
 */
export const SMTP_POOL_CONNECTIONS = 4;
export function smtpTransport(s: SmtpSettings, label: string, pooled = false): { send: Transport; close: () => void } {
  const transporter = pooled ? nodemailer.createTransport({ ...smtpTransportOptions(s), pool: true, maxConnections: SMTP_POOL_CONNECTIONS }) : nodemailer.createTransport(smtpTransportOptions(s));
  return {
    send: async (mail) => {
      const info = await transporter.sendMail({ ...mail, replyTo: mail.replyTo || undefined });
      return { via: label, response: info.response, messageId: info.messageId };
    },
    close: () => transporter.close(),
  };
}

export const senderOf = (p: SmtpProviderRow) => ({ name: p.senderName, address: p.senderAddress });

/** The sender of mail while no SMTP provider names one (the mail-drop folder). */
export const defaultSender = (externalUrl: string) => ({ name: 'identity-service', address: `no-reply@${new URL(externalUrl).hostname}` });

/**
 * Where mail goes now: the active SMTP provider (its settings with the password opened), else the
 * mail-drop folder; `broken` when the active provider's password cannot be opened (a changed
 * operator key), which must not send to the folder as if no provider were active. The outbox and
 * the test send of texts both ask this.
 */
export type MailRoute =
  | { kind: 'smtp'; provider: SmtpProviderRow; settings: SmtpSettings; from: OutgoingMail['from']; replyTo?: string }
  | { kind: 'drop' }
  | { kind: 'broken'; provider: SmtpProviderRow; problem: string };

export async function currentMailRoute(read: Repositories, secrets: SecretBox): Promise<MailRoute> {
  const provider = await read.notifications.activeProvider();
  if (!provider) return { kind: 'drop' };
  let password: string | undefined;
  try {
    password = provider.passwordSealed ? secrets.openText(provider.passwordSealed, SMTP_PASSWORD_PURPOSE) : undefined;
  } catch (error) {
    return { kind: 'broken', provider, problem: `the SMTP password of provider ${provider.id} cannot be opened: ${(error as Error).message}` };
  }
  return {
    kind: 'smtp',
    provider,
    settings: { host: provider.host, tls: provider.tls, user: provider.user, password },
    from: senderOf(provider),
    replyTo: provider.replyToAddress || undefined,
  };
}
