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
 *   most `maxQueuedPerClient` of the queue (more: `PasswordChecksThrottled`, answered once the
 *   address's oldest waiting check is over, paced as above), so one address filling the queue
 *   cannot make everyone else's logins 503;
 * - one address may have at most `maxCostlyRunningPerClient` checks of *costly* hashes running
 *   (costlier than the service's own: hash-cost.ts `costlierThanDefault`; default: all workers but
 *   one). Round-robin alone does not help against hashes that hold a worker for 8–10 s: an address
 *   keeping ten such checks in flight over as many accounts had both workers, and everyone else
 *   waited for one to finish (503 after `maxWaitMs`). With a share, a worker is left for the others
 *   whatever one address sends; its further costly checks wait for its own running ones, and are
 *   refused as throttled when `maxWaitMs` passes first. Checks of cheap hashes (the service's own
 *   argon2id, ~30 ms) are not limited so: they cannot hold a worker long. A check without a client
 *   address (internal callers) has no share;
 * - a verification running longer than `timeoutMs` ends its worker (a new one takes its place).
 *
 * From source (tests, `tsx`) the worker is the .ts file loaded through tsx's loader; once compiled,
 * the .js file beside this one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../runtime/worker-threads.js';
import { costlierThanDefault, hashCostProblem } from './hash-cost.js';
import { type PasswordCheck, passwordHashFormat } from './password-hashes.js';
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
  /**
   * Checks of hashes costlier than the service's own that one client address may have running at
   * once; default `max(1, workers - 1)`, so that one worker stays free for everyone else.
   */
  maxCostlyRunningPerClient?: number;
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
  /** Counts toward its client's share of running checks of costly hashes (`maxCostlyRunningPerClient`). */
  costly: boolean;
  /** Settles (never rejects) once the job is answered, whichever way. */
  settled: Promise<void>;
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
  private readonly options: Required<PasswordVerifierOptions>;
  private readonly slots: Slot[] = [];
  /** Waiting jobs per client address; a Map keeps insertion order, which is the round-robin's turn order. */
  private readonly queues = new Map<string, Job[]>();
  private queued = 0;
  private readonly inFlight = new Map<string, InFlight>();
  /** Running checks of costly hashes per client address (only addresses with at least one). */
  private readonly costlyRunning = new Map<string, number>();
  private closed = false;

  constructor(options: Partial<PasswordVerifierOptions> = {}) {
    const merged = { ...DEFAULT_PASSWORD_VERIFIER_OPTIONS, ...options };
    this.options = { ...merged, maxCostlyRunningPerClient: merged.maxCostlyRunningPerClient ?? Math.max(1, merged.workers - 1) };
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
    // Without an address nobody's share is at stake (internal callers, tests of the pool itself).
    const costly = who.client !== undefined && costlierThanDefault(encoded);
    if (who.account === undefined) return this.enqueue(plain, encoded, who.client ?? '', costly);
    const digest = digestOf(plain);
    const current = this.inFlight.get(who.account);
    if (current) {
      // The same password again (a double submit) cannot have another outcome: wait for it.
      if (timingSafeEqual(current.digest, digest)) return current.outcome;
      return this.refuseWhenSettled(current.outcome);
    }
    const outcome = this.enqueue(plain, encoded, who.client ?? '', costly);
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
  private refuseWhenSettled(running: Promise<unknown>, message = 'a password check for this account is already running'): Promise<never> {
    return new Promise((_resolve, reject) => {
      const refuse = () => {
        clearTimeout(timer);
        reject(new PasswordChecksThrottled(message));
      };
      const timer = setTimeout(refuse, this.options.maxWaitMs);
      running.then(refuse, refuse);
    });
  }

  private enqueue(plain: string, encoded: string, client: string, costly: boolean): Promise<PasswordCheck> {
    const own = this.queues.get(client) ?? [];
    // Before the pool's bound: an address over its share is told so even when the queue is full,
    // paced by its own oldest waiting check, as a refusal for an account in flight is.
    if (!this.closed && own.length >= this.options.maxQueuedPerClient) {
      return this.refuseWhenSettled(own[0]!.settled, 'too many password checks from this address at once');
    }
    return new Promise((resolve, reject) => {
      let done!: () => void;
      const settled = new Promise<void>((r) => (done = r));
      const job: Job = {
        plain,
        encoded,
        client,
        costly,
        settled,
        resolve: (check) => (done(), resolve(check)),
        reject: (error) => (done(), reject(error)),
      };
      if (this.closed) return job.reject(new PasswordChecksBusy('password checks are shut down'));
      // Behind its address's waiting checks (their order is kept), else at once when a worker is free.
      if (own.length === 0 && this.load.running < this.options.workers && this.mayStart(job)) return this.start(job);
      if (this.queued >= this.options.maxQueued) return job.reject(new PasswordChecksBusy());
      job.timer = setTimeout(() => {
        if (!this.dequeue(job)) return;
        // Held back by its own address's running checks, not by the others: the caller asks too much.
        if (!this.mayStart(job)) job.reject(new PasswordChecksThrottled('this address has its share of password checks running'));
        else job.reject(new PasswordChecksBusy('waited too long for a password check'));
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

  /** Whether `job` may run now as far as its address's share goes (`maxCostlyRunningPerClient`). */
  private mayStart(job: Job): boolean {
    return !job.costly || (this.costlyRunning.get(job.client) ?? 0) < this.options.maxCostlyRunningPerClient;
  }

  /**
   * The next job in turn: the oldest of the first address whose oldest may start now, after which
   * that address goes last. An address at its share of costly checks is passed over (it keeps its
   * place); with `all`, every waiting job is taken regardless (closing).
   */
  private takeNext(all = false): Job | undefined {
    for (const [client, own] of this.queues) {
      if (!all && !this.mayStart(own[0]!)) continue;
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
    for (let job = this.takeNext(true); job; job = this.takeNext(true)) {
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
    if (job.costly) this.costlyRunning.set(job.client, (this.costlyRunning.get(job.client) ?? 0) + 1);
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
      this.release(job);
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
      this.release(job);
      job.reject(error);
    }
    this.next();
  }

  /** A running job is over: its address's share of costly checks has room again. */
  private release(job: Job) {
    if (!job.costly) return;
    const left = (this.costlyRunning.get(job.client) ?? 1) - 1;
    if (left > 0) this.costlyRunning.set(job.client, left);
    else this.costlyRunning.delete(job.client);
  }

  private next() {
    while (!this.closed && this.queued > 0 && this.load.running < this.options.workers) {
      const job = this.takeNext();
      if (!job) return; // every waiting address is at its share: the free worker stays for others
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
