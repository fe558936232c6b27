/**
 * WAL checkpoints of long transactions, off the thread that answers requests.
 *
 * SQLite copies the write-ahead log back into the database file (a checkpoint) at the end of the
 * COMMIT that took the log past `wal_autocheckpoint` pages, inside that COMMIT call. For the
 * service's own writes that is a few pages, a few microseconds. A transaction that ran for long has
 * written much: an import's organisation of 190,000 users leaves ~150 MB in the log, and copying it
 * held the event loop for 0.4–0.6 s after the import's COMMIT (every request in that time waited).
 * So a group that kept the writer longer than LONG_TRANSACTION_MS commits with the automatic
 * checkpoint switched off, and a worker thread with its own connection checkpoints (PASSIVE: it
 * never blocks the writer or a reader); the automatic checkpoint comes back once the log is copied.
 * Short transactions are untouched: they checkpoint as SQLite always did.
 */
import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { startModuleWorker } from '../runtime/worker-threads.js';

/** A group of transactions that kept the writer this long hands its checkpoint to the worker. */
export const LONG_TRANSACTION_MS = 250;
/** SQLite's default `wal_autocheckpoint`, restored once the worker has copied the log. */
const AUTOCHECKPOINT_PAGES = 1000;
/** A checkpoint that could not copy every page (a reader held an older snapshot) is tried again this much later, a few times. */
const RETRY_MS = 100;
const RETRIES = 20;

/** What the worker answers for a checkpoint: SQLite's `wal_checkpoint` row (or why it failed). */
export interface CheckpointAnswer {
  busy?: number;
  log?: number;
  checkpointed?: number;
  error?: string;
}

export class WalCheckpointer {
  private worker?: Worker;
  /** The automatic checkpoint is off until the worker has copied the log. */
  private offloaded = false;
  private running = false;
  /** Another long group committed while a checkpoint ran: one more follows it. */
  private again = false;
  private retries = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly path: string,
    private readonly writer: Database.Database,
  ) {}

  /** Before the COMMIT of a group that ran `elapsedMs`: whether its checkpoint goes to the worker. */
  beforeCommit(elapsedMs: number): boolean {
    if (this.closed || elapsedMs < LONG_TRANSACTION_MS) return false;
    if (!this.offloaded) {
      this.writer.pragma('wal_autocheckpoint = 0');
      this.offloaded = true;
    }
    return true;
  }

  /** After that COMMIT (or its failure: the log may hold pages of earlier groups all the same). */
  afterCommit(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.retries = 0;
    this.checkpoint();
  }

  /** Resolves once no checkpoint is running (tests; close). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    this.settle();
  }

  private checkpoint(): void {
    this.running = true;
    this.again = false;
    const worker = (this.worker ??= this.startWorker());
    worker.postMessage('checkpoint');
  }

  private startWorker(): Worker {
    const worker = startModuleWorker(import.meta.url, 'sqlite-checkpoint-worker', { workerData: { path: this.path }, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    // An idle worker must not keep the process alive.
    worker.unref();
    worker.on('message', (answer: CheckpointAnswer) => this.answered(answer));
    worker.on('error', () => this.lost());
    worker.on('exit', () => this.lost());
    return worker;
  }

  private answered(answer: CheckpointAnswer): void {
    if (this.closed) return;
    const complete = !answer.error && answer.busy === 0 && answer.checkpointed === answer.log;
    if (this.again || (!complete && this.retries++ < RETRIES)) {
      if (this.again) this.checkpoint();
      else setTimeout(() => !this.closed && this.checkpoint(), RETRY_MS).unref();
      return;
    }
    // Copied, or not copyable for now: SQLite's own checkpoint takes over from here, as before.
    this.restoreAutocheckpoint();
    this.settle();
  }

  /** The worker is gone (it failed to start, or crashed): SQLite checkpoints on its own again. */
  private lost(): void {
    this.worker = undefined;
    if (this.closed) return;
    this.restoreAutocheckpoint();
    this.settle();
  }

  private restoreAutocheckpoint(): void {
    if (!this.offloaded || !this.writer.open) return;
    this.writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    this.offloaded = false;
  }

  private settle(): void {
    this.running = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
