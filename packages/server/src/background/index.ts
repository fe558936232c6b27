/**
 * Everything the service does besides answering requests, started by main.ts after the store is
 * open and stopped before it closes. Each piece is safe with several processes on one PostgreSQL
 * database (the outbox leases its rows, import jobs lease theirs, an organisation's removal locks it
 * for each of its transactions). The authorization server's own
 * background work (expired rows, key re-reads) lives with it in server.ts, since it rebuilds the provider.
 */
import { ImportJobWorker, type ImportJobWorkerOptions } from './import-job-worker.js';
import { OrgRemovalWorker } from './org-removal-worker.js';
import { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.js';

export interface BackgroundWork {
  outbox: OutboxWorker;
  importJobs: ImportJobWorker;
  orgRemovals: OrgRemovalWorker;
  stop: () => Promise<void>;
}

export function startBackgroundWork(options: OutboxWorkerOptions & { importJobs: Omit<ImportJobWorkerOptions, 'store' | 'secrets' | 'instanceId' | 'logger'> }): BackgroundWork {
  const outbox = new OutboxWorker(options);
  const importJobs = new ImportJobWorker({ ...options.importJobs, store: options.store, secrets: options.secrets, instanceId: options.instanceId, logger: options.logger });
  const orgRemovals = new OrgRemovalWorker({ store: options.store, logger: options.logger });
  outbox.start();
  importJobs.start();
  orgRemovals.start();
  return { outbox, importJobs, orgRemovals, stop: async () => void (await Promise.all([outbox.stop(), importJobs.stop(), orgRemovals.stop()])) };
}
