/**
 * Where mail goes, through nodemailer (no SMTP written here): the active SMTP provider, or, while
 * none is active, the mail-drop folder — one RFC 822 `.eml` file per message (0600 in a 0700
 * folder), which any mail program opens. Every SMTP connection has timeouts, so a dead server is
 * an error after seconds, never a hang.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SmtpProviderRow } from '../../store/repositories/notifications.js';

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

/** Sends one mail; resolves to where it went (for the outbox and the log). */
export type Transport = (mail: OutgoingMail, id: string) => Promise<string>;

export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function mailDropTransport(dir: string): Transport {
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return async (mail, id) => {
    const info = await builder.sendMail({ ...mail, replyTo: mail.replyTo || undefined });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`;
    writeFileSync(join(dir, file), info.message as Buffer, { mode: 0o600 });
    return `mail-drop:${join(dir, file)}`;
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
  const transporter = pooled
    ? nodemailer.createTransport({ ...smtpTransportOptions(s), pool: true, maxConnections: SMTP_POOL_CONNECTIONS })
    : nodemailer.createTransport(smtpTransportOptions(s));
  return {
    send: async (mail) => {
      await transporter.sendMail({ ...mail, replyTo: mail.replyTo || undefined });
      return label;
    },
    close: () => transporter.close(),
  };
}

export const senderOf = (p: SmtpProviderRow) => ({ name: p.senderName, address: p.senderAddress });
