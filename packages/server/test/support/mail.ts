/**
 * Mail in tests: a real SMTP server on loopback (smtp-server) that parses what it receives with
 * mailparser, and readers for the mail-drop folder's .eml files.
 */
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { OutboxWorker, type OutboxWorkerOptions } from '../../src/background/outbox-worker.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import type { OidcTestServer } from './oidc-server.js';
import { tempDir } from './temp-dir.js';

export interface SmtpSink {
  host: string;
  port: number;
  messages: ParsedMail[];
  /** Envelope recipients of each message, in order. */
  envelopes: { from: string; to: string[] }[];
  close: () => Promise<void>;
}

export async function startSmtpSink(options: { port?: number; user?: string; password?: string /** Answer each message this late (a slow server). */; delayMs?: number } = {}): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const envelopes: SmtpSink['envelopes'] = [];
  const server = new SMTPServer({
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !options.user,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
          messages.push(mail);
          envelopes.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address) });
          callback();
        })
        .catch(callback);
    },
  });
  // A client that resets its connection (a worker's transport ended as its test ends: read
  // ECONNRESET) is an 'error' of the server; without a listener node throws it, and vitest failed a
  // whole run on it though every test passed. What arrived is in `messages`; the client side's
  // failures have tests of their own (notifications-delivery.test.ts).
  server.on('error', () => undefined);
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return { host: '127.0.0.1', port, messages, envelopes, close: () => new Promise((r) => server.close(() => r())) };
}

export async function readDroppedMail(dir: string): Promise<{ file: string; mail: ParsedMail }[]> {
  let files: string[] = [];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .sort();
  } catch {
    return [];
  }
  return Promise.all(files.map(async (file) => ({ file, mail: await simpleParser(readFileSync(join(dir, file))) })));
}

/** A worker for the server's store, delivering to a fresh mail-drop folder unless told otherwise. */
export function outboxWorkerFor(s: OidcTestServer, options: Partial<OutboxWorkerOptions> = {}) {
  const mailDropDir = options.mailDropDir ?? tempDir('mail-drop-');
  const worker = new OutboxWorker({
    store: s.t.store,
    secrets: processSecretBox(),
    instanceId: s.t.instanceId,
    externalUrl: s.issuer,
    mailDropDir,
    pollMs: 50,
    baseBackoffMs: 50,
    ...options,
  });
  return { worker, mailDropDir };
}

/** The link of a composed mail's button (the text part ends with "<buttonText>: <link>"). */
export function linkIn(mail: ParsedMail): URL {
  const match = /(https?:\/\/\S+\/ui\/login\/\S+)/.exec(mail.text ?? '');
  if (!match) throw new Error(`no link in: ${mail.text}`);
  return new URL(match[1]!);
}
