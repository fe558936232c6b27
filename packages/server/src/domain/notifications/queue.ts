/**
 * Queuing a message: a row in the outbox, written in the transaction of the change that causes it,
 * so a change that rolls back queues nothing and a committed one is never lost. The code the
 * message carries is made when it is sent (background/outbox-worker.ts): no usable code waits in
 * the store, and each sent mail's code replaces the previous one.
 */
import { newId } from '../ids.js';
import type { Repositories } from '../../store/store.js';

export const MESSAGE_KINDS = ['verify_email', 'init'] as const;
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
