/**
 * Delivers the outbox (domain/notifications/queue.ts). Each round leases up to `batchSize` due
 * messages in one transaction (PostgreSQL: `for update skip locked`, so several processes on one
 * database take different messages and none is sent twice while its lease runs), then per message:
 * a fresh code for the user (the previous one stops working; an event records it), the text
 * chosen and filled (compose.ts), and the mail handed to the active SMTP provider or the mail-drop
 * folder. A failure is recorded with its reason and retried with exponential backoff until
 * `maxAttempts`; then the message is `failed`. A process that dies mid-send leaves the lease to
 * expire and another round (here or elsewhere) sends it: delivery is at least once, and exactly
 * once whenever a process survives its send.
 */
import { issueCode } from '../domain/notifications/codes.js';
import { MAIL_KINDS, messageLanguage, renderUserMail } from '../domain/notifications/compose.js';
import type { MessageKind } from '../domain/notifications/queue.js';
import { currentMailRoute, defaultSender, mailDropTransport, type OutgoingMail, smtpTransport, type Transport } from '../domain/notifications/transports.js';
import { USER_AGGREGATE } from '../domain/users/aggregate.js';
import type { HumanData } from '../domain/users/view.js';
import type { Logger } from '../log.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { OutboxRow, SmtpProviderRow } from '../store/repositories/notifications.js';
import type { Store } from '../store/store.js';
import { WakeablePause } from './wakeable-pause.js';

export interface OutboxWorkerOptions {
  store: Store;
  secrets: SecretBox;
  instanceId: string;
  /** Base of the links in mails (EXTERNAL_URL). */
  externalUrl: string;
  mailDropDir: string;
  logger?: Logger;
  pollMs?: number;
  batchSize?: number;
  /** Parallel sends within a batch. */
  concurrency?: number;
  leaseMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  maxAttempts?: number;
}

/** A message that cannot be sent however often it is tried (the user is gone, the mail is moot). */
class Undeliverable extends Error {}
/** The lease ran out before this worker got to the message, and another worker leased it: it is that worker's now. */
class LeaseLost extends Error {}

export class OutboxWorker {
  private running = false;
  private loop?: Promise<void>;
  private readonly pause = new WakeablePause();
  private smtp?: { key: string; send: Transport; close: () => void };
  private readonly drop: Transport;
  private readonly o: Required<Omit<OutboxWorkerOptions, 'logger'>> & { logger?: Logger };

  constructor(options: OutboxWorkerOptions) {
    this.o = {
      pollMs: 1_000,
      batchSize: 20,
      concurrency: 4,
      leaseMs: 60_000,
      baseBackoffMs: 5_000,
      maxBackoffMs: 15 * 60_000,
      maxAttempts: 10,
      ...options,
    };
    this.drop = mailDropTransport(this.o.mailDropDir);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let handled = 0;
        try {
          handled = await this.runOnce();
        } catch (error) {
          this.o.logger?.error('outbox round failed', { error: (error as Error).message });
        }
        if (handled < this.o.batchSize && this.running) {
          await this.pause.sleep(this.o.pollMs);
        }
      }
    })();
  }

  /** Stops after the round in progress (its sends finish and are recorded). */
  async stop(): Promise<void> {
    this.running = false;
    this.pause.wake();
    await this.loop;
    this.smtp?.close();
    this.smtp = undefined;
  }

  /** One round: lease due messages and deliver them; returns how many were handled. */
  async runOnce(): Promise<number> {
    const now = new Date();
    const batch = await this.o.store.transaction((tx) => tx.notifications.claimDue(now, new Date(now.getTime() + this.o.leaseMs), this.o.batchSize));
    if (batch.length === 0) return 0;
    const transport = await this.transport();
    const queue = [...batch];
    const workers = Array.from({ length: Math.min(this.o.concurrency, queue.length) }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) await this.deliver(row, transport);
    });
    await Promise.all(workers);
    return batch.length;
  }

  /** The active provider's transport (pooled, rebuilt when the provider changes), else the mail drop. */
  private async transport(): Promise<{ send: Transport; from?: OutgoingMail['from']; replyTo?: string; provider?: SmtpProviderRow; problem?: string }> {
    const route = await currentMailRoute(this.o.store.read, this.o.secrets);
    if (route.kind === 'drop') return { send: this.drop };
    if (route.kind === 'broken') return { send: this.drop, provider: route.provider, problem: route.problem };
    const key = `${route.provider.id}@${route.provider.changedAt.getTime()}`;
    if (this.smtp?.key !== key) {
      this.smtp?.close();
      this.smtp = { key, ...smtpTransport(route.settings, `smtp:${route.provider.id}`, true) };
    }
    return { send: this.smtp.send, from: route.from, replyTo: route.replyTo, provider: route.provider };
  }

  private async deliver(row: OutboxRow, transport: Awaited<ReturnType<OutboxWorker['transport']>>): Promise<void> {
    const { store, logger } = this.o;
    // The lease this worker holds: renewed just before sending (compose), the condition of every write.
    let lease = row.leaseUntil!;
    try {
      if (transport.problem) throw new Error(transport.problem);
      const composed = await this.compose(row, lease);
      lease = composed.lease;
      const { via } = await transport.send({ ...composed.mail, ...(transport.from ? { from: transport.from } : {}), replyTo: transport.replyTo }, row.id);
      await store.transaction((tx) => tx.notifications.markSent(row.id, lease, via, new Date()));
      logger?.info(via.startsWith('mail-drop:') ? `mail written to ${via.slice('mail-drop:'.length)}` : 'mail sent', { outboxId: row.id, type: row.messageType, userId: row.userId, via });
    } catch (error) {
      if (error instanceof LeaseLost) {
        logger?.debug('outbox message taken over by another worker (its lease here ran out)', { outboxId: row.id });
        return;
      }
      const reason = (error as Error).message || String(error);
      const attempts = row.attempts + 1;
      const final = error instanceof Undeliverable || attempts >= this.o.maxAttempts;
      const next = final ? undefined : new Date(Date.now() + Math.min(this.o.baseBackoffMs * 2 ** (attempts - 1), this.o.maxBackoffMs));
      await store.transaction((tx) => tx.notifications.markAttemptFailed(row.id, lease, attempts, reason, next));
      logger?.warn(final ? 'mail not delivered, given up' : 'mail delivery failed, will retry', {
        outboxId: row.id,
        type: row.messageType,
        userId: row.userId,
        attempt: attempts,
        reason,
        ...(next ? { retryAt: next.toISOString() } : {}),
      });
    }
  }

  /**
   * The mail for this row, with a new code issued for it, in one transaction (locking the user)
   * that first renews the lease: a message whose lease ran out and went to another worker is left
   * to that worker (LeaseLost), so a slow batch cannot make two workers send one message.
   */
  private async compose(row: OutboxRow, lease: Date): Promise<{ mail: OutgoingMail; lease: Date }> {
    const { store } = this.o;
    const kind = MAIL_KINDS[row.messageType as MessageKind];
    if (!kind) throw new Undeliverable(`unknown message type ${row.messageType}`);
    const renewed = new Date(Date.now() + this.o.leaseMs);
    const { user, code } = await store.transaction(
      async (tx) => {
        if (!(await tx.notifications.renewLease(row.id, lease, renewed))) throw new LeaseLost();
        const user = await tx.users.get(row.userId);
        if (!user || user.type !== 'human') throw new Undeliverable('the user no longer exists');
        const email = (user.data as unknown as HumanData).email;
        if (email.email.toLowerCase() !== row.recipient.toLowerCase()) throw new Undeliverable('the user\u2019s email changed since this mail was queued (a newer one is queued)');
        if (row.messageType === 'verify_email' && email.isEmailVerified) throw new Undeliverable('the email is verified already');
        if (row.messageType === 'init' && user.state !== 'USER_STATE_INITIAL') throw new Undeliverable('the user is initialised already');
        // A mail without a code (a notice) changes nothing of the user.
        if (!kind.code) return { user, code: '' };
        const issued = await issueCode(tx, user.id, kind.code.kind, email.email);
        const event = await tx.events.append({
          aggregateType: USER_AGGREGATE,
          aggregateId: user.id,
          type: kind.code.event,
          payload: { expiry: issued.expiresAt.toISOString(), outboxId: row.id },
          creator: user.id,
          resourceOwner: user.orgId,
        });
        await tx.users.touch(user.id, event.sequence, event.createdAt);
        return { user, code: issued.code };
      },
      [[USER_AGGREGATE, row.userId]],
    );
    const message = await renderUserMail(store.read, {
      instanceId: this.o.instanceId,
      externalUrl: this.o.externalUrl,
      kind: row.messageType as MessageKind,
      language: messageLanguage(user),
      orgId: user.orgId,
      user,
      code,
    });
    return {
      lease: renewed,
      mail: {
        from: defaultSender(this.o.externalUrl),
        to: row.recipient,
        subject: message.subject,
        html: message.html,
        text: message.text,
        headers: { 'X-Outbox-Id': row.id },
      },
    };
  }
}
