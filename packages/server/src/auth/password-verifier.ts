/**
 * Password verification off the event loop, a bounded number at a time.
 *
 * A stored hash decides its own cost, and anyone can make the login page verify one. So:
 * - hashes beyond the cost bounds (hash-cost.ts) are refused without being run — they can only
 *   be in the store from before the bounds existed, and the caller logs them;
 * - the others run in a small fixed pool of worker threads (`workers`, default 2), one
 *   verification per worker at a time, so the event loop keeps answering and libuv's thread pool
 *   (files, DNS, other crypto) is not filled by password work;
 * - at most `maxQueued` further verifications wait, none longer than `maxWaitMs`; beyond that
 *   `verify` rejects with `PasswordChecksBusy` and the login answers "try again" (503) instead of
 *   queueing without end;
 * - a verification running longer than `timeoutMs` ends its worker (a new one takes its place).
 *
 * From source (tests, `tsx`) the worker is the .ts file loaded through tsx's loader; once compiled,
 * the .js file beside this one.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { hashCostProblem } from './hash-cost.js';
import { passwordHashFormat, type PasswordCheck } from './password-hashes.js';
import type { VerifyAnswer, VerifyRequest } from './password-verifier-worker.js';

export interface PasswordVerifierOptions {
  /** Verifications running at once, one worker thread each. */
  workers: number;
  /** Verifications waiting for a worker; one more is refused as busy. */
  maxQueued: number;
  /** A waiting verification that has not started after this long is refused as busy. */
  maxWaitMs: number;
  /** A running verification that takes longer ends its worker and fails. */
  timeoutMs: number;
}

export const DEFAULT_PASSWORD_VERIFIER_OPTIONS: PasswordVerifierOptions = { workers: 2, maxQueued: 16, maxWaitMs: 10_000, timeoutMs: 60_000 };

/**
 * Longer passwords are not checked at all: sha-crypt and md5crypt hash the password once per
 * round, so its length multiplies their cost. Passwords set here are at most 200 characters.
 */
export const MAX_PASSWORD_BYTES = 1024;

/** Too many verifications running and waiting: the caller should try again shortly. */
export class PasswordChecksBusy extends Error {
  constructor(message = 'too many password checks at once') {
    super(message);
    this.name = 'PasswordChecksBusy';
  }
}

export interface VerifyOutcome extends PasswordCheck {
  /** Set when the stored hash was not run because its cost is beyond the bounds: why. */
  refused?: string;
}

interface Job {
  plain: string;
  encoded: string;
  resolve: (check: PasswordCheck) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  job?: Job;
}

let nextId = 1;

export class PasswordVerifier {
  private readonly options: PasswordVerifierOptions;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private closed = false;

  constructor(options: Partial<PasswordVerifierOptions> = {}) {
    this.options = { ...DEFAULT_PASSWORD_VERIFIER_OPTIONS, ...options };
  }

  /** How many verifications are running and waiting now. */
  get load(): { running: number; queued: number } {
    return { running: this.slots.filter((s) => s.job).length, queued: this.queue.length };
  }

  /** Runs the check in a worker. Rejects with PasswordChecksBusy when the bounds are reached. */
  verify(plain: string, encoded: string): Promise<PasswordCheck> {
    return new Promise((resolve, reject) => {
      const job: Job = { plain, encoded, resolve, reject };
      if (this.closed) return reject(new PasswordChecksBusy('password checks are shut down'));
      if (this.load.running < this.options.workers) return this.start(job);
      if (this.queue.length >= this.options.maxQueued) return reject(new PasswordChecksBusy());
      job.timer = setTimeout(() => {
        const at = this.queue.indexOf(job);
        if (at < 0) return;
        this.queue.splice(at, 1);
        reject(new PasswordChecksBusy('waited too long for a password check'));
      }, this.options.maxWaitMs);
      this.queue.push(job);
    });
  }

  /** Ends every worker; waiting and running checks are refused as busy. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.timer);
      job.reject(new PasswordChecksBusy('password checks are shut down'));
    }
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.job?.timer);
      slot.job?.reject(new PasswordChecksBusy('password checks are shut down'));
      slot.job = undefined;
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private start(job: Job) {
    const slot = this.slots.find((s) => !s.job) ?? this.spawn();
    slot.job = job;
    slot.worker.ref(); // an answer is awaited: keep the process alive until it comes
    job.timer = setTimeout(() => this.fail(slot, new Error('password check timed out')), this.options.timeoutMs);
    slot.worker.postMessage({ id: nextId++, plain: job.plain, encoded: job.encoded } satisfies VerifyRequest);
  }

  private spawn(): Slot {
    const worker = newWorker();
    const slot: Slot = { worker };
    worker.on('message', ({ id: _id, ...check }: VerifyAnswer) => {
      const job = slot.job;
      if (!job) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      worker.unref(); // idle workers must not keep the process alive
      job.resolve(check);
      this.next();
    });
    worker.on('error', (error) => this.fail(slot, error));
    worker.on('exit', () => this.fail(slot, new Error('password check worker stopped')));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** The worker is gone or stuck: drop it, fail its check, let a new one take the next. */
  private fail(slot: Slot, error: Error) {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    void slot.worker.terminate();
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    this.next();
  }

  private next() {
    while (!this.closed && this.queue.length > 0 && this.load.running < this.options.workers) {
      const job = this.queue.shift()!;
      clearTimeout(job.timer);
      this.start(job);
    }
  }
}

const fromSource = import.meta.url.endsWith('.ts');

/**
 * Compiled: the .js worker beside this file. From source (tests, `tsx`), a worker's own module
 * loader knows no TypeScript (`--import` in a worker's execArgv does not reach its entry point), so a
 * small script registers tsx's loader in the worker first and then imports the .ts worker.
 */
function newWorker(): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: 128 } };
  if (!fromSource) return new Worker(new URL('./password-verifier-worker.js', import.meta.url), options);
  // tsx's ESM API (its package exports map `tsx/esm/api` to this file for `import`).
  const tsxApi = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./password-verifier-worker.ts', import.meta.url).href;
  const script = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(script, { ...options, eval: true });
}

/** The process's verifier: the bound on password checks holds for the whole process. */
export const passwordVerifier = new PasswordVerifier();

/**
 * Does `plain` match the stored `encoded` hash? Unsupported or malformed hashes and overlong
 * passwords never match; a hash beyond the cost bounds is not run (`refused` says why). Rejects
 * with PasswordChecksBusy when too many checks are running and waiting.
 */
export async function verifyPassword(plain: string, encoded: string, verifier: PasswordVerifier = passwordVerifier): Promise<VerifyOutcome> {
  if (!passwordHashFormat(encoded)) return { ok: false };
  const refused = hashCostProblem(encoded);
  if (refused) return { ok: false, refused };
  if (Buffer.byteLength(plain, 'utf8') > MAX_PASSWORD_BYTES) return { ok: false };
  return verifier.verify(plain, encoded);
}
