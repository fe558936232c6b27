/**
 * Everything the service does besides answering requests, started by main.ts after the store is
 * open and stopped before it closes. Each piece is safe with several processes on one PostgreSQL
 * database (the outbox leases its rows). The authorization server's own background work (expired
 * rows, key re-reads) lives with it in server.ts, since it rebuilds the provider.
 */
import { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.js';

export interface BackgroundWork {
  outbox: OutboxWorker;
  stop: () => Promise<void>;
}

export function startBackgroundWork(options: OutboxWorkerOptions): BackgroundWork {
  const outbox = new OutboxWorker(options);
  outbox.start();
  return { outbox, stop: () => outbox.stop() };
}
