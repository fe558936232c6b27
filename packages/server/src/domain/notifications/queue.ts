/**
 * Queuing a message: a row in the outbox, written in the transaction of the change that causes it,
 * so a change that rolls back queues nothing and a committed one is never lost. The code the
 * message carries is made when it is sent (background/outbox-worker.ts): no usable code waits in
 * the store, and each sent mail's code replaces the previous one.
 */

import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { newId } from '../ids.js';
import { type ListQueryInput, listDetails, toPage } from '../list.js';

/** `registration_attempt`: the notice to an account's owner that someone tried to register with its address (domain/login/registration.ts). */
export const MESSAGE_KINDS = ['verify_email', 'init', 'password_reset', 'registration_attempt'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export async function queueUserMessage(tx: Repositories, messageType: MessageKind, user: { id: string; orgId: string; email: string }, now = new Date()): Promise<string> {
  const id = newId();
  await tx.notifications.enqueue({
    id,
    messageType,
    userId: user.id,
    orgId: user.orgId,
    recipient: user.email,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    lastError: null,
    deliveredVia: null,
    createdAt: now,
    sentAt: null,
  });
  return id;
}

/** The outbox for an `iam.read` caller (ListNotifications): never a message's content. */
export async function listNotifications(store: Store, ctx: RequestContext, input: { query?: ListQueryInput; status?: string; userId?: string; messageType?: string }) {
  requirePermission(ctx, 'iam.read');
  const at = new Date();
  const { total, rows } = await store.read.notifications.search({ status: input.status, userId: input.userId, messageType: input.messageType }, toPage(input.query));
  const counts = await store.read.notifications.countByStatus();
  return {
    details: listDetails(total, at),
    counts: { pending: counts.pending ?? 0, sent: counts.sent ?? 0, failed: counts.failed ?? 0 },
    result: rows.map((r) => ({
      id: r.id,
      messageType: r.messageType as MessageKind,
      userId: r.userId,
      orgId: r.orgId,
      recipient: r.recipient,
      status: r.status as 'pending' | 'sent' | 'failed',
      attempts: r.attempts,
      ...(r.status === 'pending' ? { nextAttemptDate: r.nextAttemptAt.toISOString() } : {}),
      ...(r.lastError ? { lastError: r.lastError } : {}),
      ...(r.deliveredVia ? { deliveredVia: r.deliveredVia } : {}),
      creationDate: r.createdAt.toISOString(),
      ...(r.sentAt ? { sentDate: r.sentAt.toISOString() } : {}),
    })),
  };
}
