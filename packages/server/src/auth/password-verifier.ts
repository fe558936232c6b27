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
 * - one account has at most one verification running or waiting: a second one for the same
 *   account shares the first's outcome when it checks the same password (a double submit), and is
 *   otherwise refused with `PasswordChecksThrottled` (the login answers 429) when the first is
 *   over. So hammering one account whose hash is costly occupies one worker, never the pool, and
 *   each connection doing it gets one answer per check;
 * - waiting verifications are taken round-robin by client address, and one address may hold at
 *   most `maxQueuedPerClient` of the queue (more: `PasswordChecksThrottled`), so one address
 *   filling the queue cannot make everyone else's logins 503;
 * - a verification running longer than `timeoutMs` ends its worker (a new one takes its place).
 *
 * From source (tests, `tsx`) the worker is the .ts file loaded through tsx's loader; once compiled,
 * the .js file beside this one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../worker-threads.js';
import { costlierThanDefault, hashCostProblem } from './hash-cost.js';
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
  /** Verifications one client address may have waiting; one more is refused as throttled. */
  maxQueuedPerClient: number;
}

export const DEFAULT_PASSWORD_VERIFIER_OPTIONS: PasswordVerifierOptions = { workers: 2, maxQueued: 16, maxWaitMs: 10_000, timeoutMs: 60_000, maxQueuedPerClient: 4 };

/** Whose check this is: the account whose hash is run and the client address asking (both optional). */
export interface VerifyFor {
  account?: string;
  client?: string;
}

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

/**
 * This account already has a check in flight, or this client address its share of the queue:
 * the caller (not the service) is asking too much, and should try again shortly.
 */
export class PasswordChecksThrottled extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasswordChecksThrottled';
  }
}

export interface VerifyOutcome extends PasswordCheck {
  /** Set when the stored hash was not run because its cost is beyond the bounds: why. */
  refused?: string;
}

interface Job {
  plain: string;
  encoded: string;
  client: string;
  resolve: (check: PasswordCheck) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** An account's check in flight: its password's digest (to recognise a double submit) and outcome. */
interface InFlight {
  digest: Buffer;
  outcome: Promise<PasswordCheck>;
}

const digestOf = (plain: string) => createHash('sha256').update(plain, 'utf8').digest();

interface Slot {
  worker: Worker;
  job?: Job;
}

let nextId = 1;

export class PasswordVerifier {
  private readonly options: PasswordVerifierOptions;
  private readonly slots: Slot[] = [];
  /** Waiting jobs per client address; a Map keeps insertion order, which is the round-robin's turn order. */
  private readonly queues = new Map<string, Job[]>();
  private queued = 0;
  private readonly inFlight = new Map<string, InFlight>();
  private closed = false;

  constructor(options: Partial<PasswordVerifierOptions> = {}) {
    this.options = { ...DEFAULT_PASSWORD_VERIFIER_OPTIONS, ...options };
  }

  /** How many verifications are running and waiting now. */
  get load(): { running: number; queued: number } {
    return { running: this.slots.filter((s) => s.job).length, queued: this.queued };
  }

  /**
   * Runs the check in a worker. Rejects with PasswordChecksBusy when the pool's bounds are
   * reached, and with PasswordChecksThrottled when `who.account` already has another password
   * in flight or `who.client` its share of the queue.
   */
  verify(plain: string, encoded: string, who: VerifyFor = {}): Promise<PasswordCheck> {
    if (who.account === undefined) return this.enqueue(plain, encoded, who.client ?? '');
    const digest = digestOf(plain);
    const current = this.inFlight.get(who.account);
    if (current) {
      // The same password again (a double submit) cannot have another outcome: wait for it.
      if (timingSafeEqual(current.digest, digest)) return current.outcome;
      return this.refuseWhenSettled(current.outcome);
    }
    const outcome = this.enqueue(plain, encoded, who.client ?? '');
    const entry = { digest, outcome };
    this.inFlight.set(who.account, entry);
    const done = () => {
      if (this.inFlight.get(who.account!) === entry) this.inFlight.delete(who.account!);
    };
    outcome.then(done, done);
    return outcome;
  }

  /**
   * Another password for an account whose check is in flight is refused, but only once that check
   * is over (or after `maxWaitMs`): a refusal at once would let a client loop as fast as the
   * server renders login pages, which costs the event loop far more than waiting (a pending
   * promise) does; paced, one connection gets about one refusal per check of the hash.
   */
  private refuseWhenSettled(running: Promise<PasswordCheck>): Promise<never> {
    return new Promise((_resolve, reject) => {
      const refuse = () => {
        clearTimeout(timer);
        reject(new PasswordChecksThrottled('a password check for this account is already running'));
      };
      const timer = setTimeout(refuse, this.options.maxWaitMs);
      running.then(refuse, refuse);
    });
  }

  private enqueue(plain: string, encoded: string, client: string): Promise<PasswordCheck> {
    return new Promise((resolve, reject) => {
      const job: Job = { plain, encoded, client, resolve, reject };
      if (this.closed) return reject(new PasswordChecksBusy('password checks are shut down'));
      if (this.load.running < this.options.workers) return this.start(job);
      const own = this.queues.get(client) ?? [];
      // Before the pool's bound: an address over its share is told so even when the queue is full.
      if (own.length >= this.options.maxQueuedPerClient) return reject(new PasswordChecksThrottled('too many password checks from this address at once'));
      if (this.queued >= this.options.maxQueued) return reject(new PasswordChecksBusy());
      job.timer = setTimeout(() => {
        if (!this.dequeue(job)) return;
        reject(new PasswordChecksBusy('waited too long for a password check'));
      }, this.options.maxWaitMs);
      own.push(job);
      this.queues.set(client, own);
      this.queued++;
    });
  }

  /** Takes `job` out of its address's queue; false when it is no longer waiting. */
  private dequeue(job: Job): boolean {
    const own = this.queues.get(job.client);
    const at = own ? own.indexOf(job) : -1;
    if (at < 0) return false;
    own!.splice(at, 1);
    if (own!.length === 0) this.queues.delete(job.client);
    this.queued--;
    return true;
  }

  /** The next job in turn: the first address's oldest, after which that address goes last. */
  private takeNext(): Job | undefined {
    for (const [client, own] of this.queues) {
      const job = own.shift()!;
      this.queues.delete(client);
      if (own.length > 0) this.queues.set(client, own);
      this.queued--;
      return job;
    }
    return undefined;
  }

  /** Ends every worker; waiting and running checks are refused as busy. */
  async close(): Promise<void> {
    this.closed = true;
    for (let job = this.takeNext(); job; job = this.takeNext()) {
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
    while (!this.closed && this.queued > 0 && this.load.running < this.options.workers) {
      const job = this.takeNext()!;
      clearTimeout(job.timer);
      this.start(job);
    }
  }
}

/** The worker's old generation is capped: a check holds one hash and one password. */
function newWorker(): Worker {
  return startModuleWorker(import.meta.url, 'password-verifier-worker', { resourceLimits: { maxOldGenerationSizeMb: 128 } });
}

/** The process's verifier: the bound on password checks holds for the whole process. */
export const passwordVerifier = new PasswordVerifier();

/**
 * Does `plain` match the stored `encoded` hash? Unsupported or malformed hashes and overlong
 * passwords never match; a hash beyond the cost bounds is not run (`refused` says why). `rehash`
 * is set on a match when the hash is weak or costlier to verify than the service's own
 * (hash-cost.ts `costlierThanDefault`). Rejects with PasswordChecksBusy when too many checks are
 * running and waiting, with PasswordChecksThrottled when `who` already asks too much.
 */
export async function verifyPassword(plain: string, encoded: string, verifier: PasswordVerifier = passwordVerifier, who: VerifyFor = {}): Promise<VerifyOutcome> {
  if (!passwordHashFormat(encoded)) return { ok: false };
  const refused = hashCostProblem(encoded);
  if (refused) return { ok: false, refused };
  if (Buffer.byteLength(plain, 'utf8') > MAX_PASSWORD_BYTES) return { ok: false };
  const check = await verifier.verify(plain, encoded, who);
  return check.ok && !check.rehash && costlierThanDefault(encoded) ? { ...check, rehash: true } : check;
}
