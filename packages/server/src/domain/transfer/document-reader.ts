/**
 * An import's document read in a worker thread of its own (spooled-document-worker.ts), one per
 * import at a time, kept a while for the next import (ARCHITECTURE.md, "Imports in bounded memory"). Pass 1 and pass 2's
 * reading allocate per user: in the server's heap that garbage piled up to hundreds of MiB before
 * V8 collected it (its old generation's limit grows with the heap); the worker's heap is capped
 * (READER_LIMITS), so V8 collects it there early, and its CPU is off the event loop. The server's
 * thread gets back what the import writes: the request's fields, each organisation's skeleton and
 * parts, its users a batch at a time (the next read while one is imported).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../runtime/worker-threads.js';
import { DomainError, GrpcCode } from '../errors.js';
import type { DataOrg } from './document.js';
import type { ImportPlan } from './import/order.js';
import type { ImportFile, SealedFile } from './sealed-file.js';
import type { Spool } from './spool.js';
import { type DocumentSources, type OrgSource, type ProblemSummary, SPOOLED_DOCUMENT, type SpooledOrg, type UserBatch } from './spooled-document.js';

/**
 * The reader's heap: small, so that its garbage is collected early (the process's RSS grows by
 * about this much while an import reads), and large enough for a batch of users and one
 * organisation's parts other than its users. What it keeps per user (the outline's keys,
 * import/order.ts) is in typed arrays, outside this heap: a few bytes each.
 */
export const READER_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 };

export type ReaderRequest = { id: number } & (
  | { op: 'spool'; file: ImportFile; shape: 'request' | 'document'; spoolDir: string; spoolKey: Uint8Array; refuseV1: boolean }
  | { op: 'parts'; restFile: SealedFile }
  | { op: 'users'; stream: number; usersFile: SealedFile; size: number }
  | { op: 'endUsers'; stream: number }
);

export interface SerializedError {
  message: string;
  domain?: { code: GrpcCode; id: string };
}

export interface ReaderAnswer {
  id: number;
  result?: unknown;
  error?: SerializedError;
}

/** What the worker answers to `spool` (spooled-document.ts SpooledDocument, made to cross threads). */
interface SpoolAnswer {
  envelope: Record<string, unknown>;
  documentKey?: string;
  found: boolean;
  problems: { count: number; error?: SerializedError };
  orgs: SpooledOrg[];
  plan: ImportPlan;
}

/** SpooledDocument with the organisations read back through the reader. */
export interface ReadDocument extends DocumentSources {
  envelope: Record<string, unknown>;
  found: boolean;
  problems: ProblemSummary;
}

type Request = ReaderRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/**
 * Readers whose import ended cleanly, kept for the next one: starting a reader costs ~150 ms of
 * CPU (its thread loads the validation schemas; ~350 ms from the sources, where tsx compiles them
 * again), paid by every import, however small, when each had its own. At most IDLE_READERS_MAX
 * are kept (imports run MAX_CONCURRENT_IMPORTS at a time), each for IDLE_READER_MS.
 */
const idleReaders: DocumentReader[] = [];
const IDLE_READERS_MAX = 2;
const IDLE_READER_MS = 30_000;

/** A reader for one import: an idle one if there is one, else a new one. Give it back with `releaseReader`. */
export function acquireReader(): DocumentReader {
  for (let reader = idleReaders.pop(); reader; reader = idleReaders.pop()) {
    // Its thread may have ended while it waited.
    if (!reader.reusable) {
      void reader.close();
      continue;
    }
    reader.wake();
    return reader;
  }
  return new DocumentReader();
}

/** The import is over: the reader is kept for the next one if it is as new (nothing open, no failure), else ended. */
export async function releaseReader(reader: DocumentReader): Promise<void> {
  if (reader.reusable && idleReaders.length < IDLE_READERS_MAX) {
    idleReaders.push(reader);
    reader.sleep(IDLE_READER_MS, () => {
      const at = idleReaders.indexOf(reader);
      if (at >= 0) idleReaders.splice(at, 1);
    });
    return;
  }
  await reader.close();
}

export class DocumentReader {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private nextStream = 1;
  /** User streams started and not yet ended (the worker holds their files open). */
  private openStreams = 0;
  private stopped?: Error;
  private idleTimer?: NodeJS.Timeout;

  constructor() {
    this.worker = startModuleWorker(import.meta.url, 'spooled-document-worker', { resourceLimits: READER_LIMITS });
    this.worker.on('message', (answer: ReaderAnswer) => {
      const call = this.pending.get(answer.id);
      if (!call) return;
      this.pending.delete(answer.id);
      if (answer.error) call.reject(deserializeError(answer.error));
      else call.resolve(answer.result);
    });
    this.worker.on('error', (error: Error & { code?: string }) => this.stop(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooMuchForReader() : error));
    this.worker.on('exit', (code) => this.stop(new Error(`the import's document reader stopped (exit code ${code})`)));
  }

  /** Pass 1 of `file` into `spool` (spooled-document.ts spoolDocument, in the worker). */
  async spool(input: { file: ImportFile; shape: 'request' | 'document'; spool: Spool; refuseV1?: boolean }): Promise<ReadDocument> {
    const { file, shape, spool } = input;
    const read = (await this.call({ op: 'spool', file, shape, spoolDir: spool.dir, spoolKey: spool.key, refuseV1: input.refuseV1 ?? false })) as SpoolAnswer;
    const envelope = read.documentKey ? { ...read.envelope, [read.documentKey]: SPOOLED_DOCUMENT } : read.envelope;
    const { count, error } = read.problems;
    const problems: ProblemSummary = { count, toError: () => deserializeError(error!) as DomainError };
    return { envelope, found: read.found, problems, orgs: read.orgs.map((org) => this.source(org)), plan: read.plan };
  }

  /** Ends the worker (and with it any reading in progress); safe to call twice. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.stop(new Error("the import's document reader was closed"));
    await this.worker.terminate();
  }

  /** Whether another import may use this reader: its thread is alive and nothing of the last import is open in it. */
  get reusable(): boolean {
    return !this.stopped && this.pending.size === 0 && this.openStreams === 0;
  }

  /** Kept idle: it does not keep the process alive, and it ends after `ms` unless taken again. */
  sleep(ms: number, onEnd: () => void): void {
    this.worker.unref();
    this.idleTimer = setTimeout(() => {
      onEnd();
      void this.close();
    }, ms);
    this.idleTimer.unref();
  }

  /** Taken for an import. */
  wake(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.worker.ref();
  }

  private source(org: SpooledOrg): OrgSource {
    const reader = this;
    return {
      skeleton: org.skeleton,
      users: org.users,
      hasPlainPasswords: org.hasPlainPasswords,
      parts: async () => (await reader.call({ op: 'parts', restFile: org.restFile })) as DataOrg,
      async *userBatches(size: number) {
        const stream = reader.nextStream++;
        const ask = () => {
          const answer = reader.call({ op: 'users', stream, usersFile: org.usersFile, size }) as Promise<UserBatch | null>;
          // Read ahead: a batch nobody waits for any more (the reader closed under an abandoned stream) is no unhandled failure.
          answer.catch(() => undefined);
          return answer;
        };
        reader.openStreams++;
        let next = ask();
        let finished = false;
        try {
          for (;;) {
            const batch = await next;
            if (!batch) return void (finished = true);
            // The worker reads the next batch while this one is imported.
            next = ask();
            // A turn of the event loop before each batch. Its answer reached us inside the worker
            // port's message handler, which goes on delivering whatever else has arrived before it
            // returns to the loop; the next batch is usually there by the time this one is written,
            // so without this the loop stalled for 100-300 ms at a time (10-30 batches) and every
            // request waited that long.
            await yieldToEventLoop();
            yield batch;
          }
        } finally {
          // Left early (an error, the deadline): the worker ends the file it reads.
          if (!finished && !reader.stopped) {
            await next.catch(() => undefined);
            await reader.call({ op: 'endUsers', stream }).then(
              () => reader.openStreams--,
              () => undefined,
            );
          } else if (finished) {
            reader.openStreams--;
          }
        }
      },
    };
  }

  private call(request: Request): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } as ReaderRequest);
    });
  }

  private stop(error: Error): void {
    this.stopped ??= error;
    for (const call of this.pending.values()) call.reject(this.stopped);
    this.pending.clear();
  }
}

function deserializeError(error: SerializedError): Error {
  return error.domain ? new DomainError(error.domain.code, error.domain.id, error.message) : new Error(error.message);
}

/**
 * The reader ran out of its heap. What it holds whole is one organisation's parts other than its
 * users (its users are read a batch at a time, and a few bytes per user are kept outside its heap)
 * and any single value: a document that needs more can never be read as it is, so this is bad
 * input (413 from ImportData, routes/admin-transfer.ts), never "try again later".
 */
const tooMuchForReader = () =>
  new DomainError(
    GrpcCode.InvalidArgument,
    'IMPORT-r34d3r',
    `the document needs more than the ${READER_LIMITS.maxOldGenerationSizeMb} MiB an import's reader may hold: an organisation's parts other than its users ` +
      "(projects, applications, grants, memberships, metadata, texts) are read whole, as is each single value; split the organisation's user grants, " +
      'memberships or metadata over several imports of the same organisation (users are not limited: a million per organisation is fine)',
  );
