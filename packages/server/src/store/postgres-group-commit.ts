/**
 * Group commit on PostgreSQL, shaped like SQLite's (sqlite.ts, groupCommitQueue): `run` queues a
 * transaction, `idle` waits for the queue. Transactions that queue up while the runners are busy
 * share one BEGIN … COMMIT, one after the other on one connection, so a write under load costs its
 * own statements and not two more round trips (each a system call: the largest single CPU cost of
 * a write, BENCHMARKS.md round 6), and writers of one aggregate no longer wait for each other's
 * COMMIT one by one.
 *
 * Where it differs from SQLite's: no SAVEPOINT per transaction (two more round trips each). When
 * anything in a group fails, the whole group is rolled back and each of its transactions runs
 * again alone, so every caller gets exactly the result it would have had alone, and only after
 * the COMMIT that made it durable. A transaction alone is retried when the backstop of the
 * (aggregate, sequence) key fired or PostgreSQL rolled it back to break a deadlock. And more than
 * one runner: a group that stalls (an import) lets another start (MAX_RUNNERS, STALLED_MS).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { UniqueViolation } from '../domain/errors.js';
import type { TransactionConnection } from './postgres-connection.js';
import type { Repositories } from './repositories/index.js';

const MAX_ATTEMPTS = 5;
/**
 * One group runs at a time while groups are quick: runners of one process would only queue on
 * each other's locks (BENCHMARKS.md round 6: one runner 1,951 writes/s, two 1,456, four 1,119 on
 * one aggregate). A group running longer than STALLED_MS (an import, say) lets another runner
 * start, up to MAX_RUNNERS, so a long transaction holds up only its own group.
 */
const MAX_RUNNERS = 4;
const STALLED_MS = 250;
/**
 * Most transactions in one group. A group takes in what queued while it ran (as SQLite's does),
 * so under load it is as large as this: every group boundary (COMMIT, answers, BEGIN) is time in
 * which the aggregate's writers wait. 64 rather than SQLite's 32: a PostgreSQL write holds the
 * group longer (a round trip each), and the boundary is costlier (BENCHMARKS.md round 11).
 */
const MAX_GROUP = 64;

interface QueuedTransaction {
  fn: (tx: Repositories) => Promise<unknown>;
  /** Its advisory lock keys, sorted (lockKeys). */
  keys: string[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Runner {
  /** When its current group (or lone transaction) started. */
  since: number;
  done?: Promise<void>;
}

export function groupCommitQueue(borrow: () => Promise<TransactionConnection>) {
  const waiting: QueuedTransaction[] = [];
  const running = new Set<Runner>();
  let stallCheck: NodeJS.Timeout | undefined;

  const allStalled = () => [...running].every((runner) => performance.now() - runner.since >= STALLED_MS);

  /** Starts a runner if transactions wait and none runs, or every running one is stalled. */
  function kick() {
    while (waiting.length > 0 && running.size < MAX_RUNNERS && (running.size === 0 || allStalled())) {
      const runner: Runner = { since: performance.now() };
      running.add(runner);
      runner.done = drain(runner).finally(() => {
        running.delete(runner);
        kick();
      });
    }
    // Waiting behind a group that may yet stall: look again when it would have.
    if (waiting.length > 0 && running.size < MAX_RUNNERS && !stallCheck) {
      stallCheck = setTimeout(() => {
        stallCheck = undefined;
        kick();
      }, STALLED_MS);
      stallCheck.unref();
    }
  }

  /** A runner: groups (or lone transactions) one after the other while transactions wait. */
  async function drain(runner: Runner) {
    while (waiting.length > 0) {
      // One transaction waits: one turn of the event loop first lets the requests already read
      // reach the queue and join it (SQLite's queue waits the same turn). Without it the first
      // writer to arrive after a COMMIT ran alone while the rest queued behind it: under load every
      // other group was a lone transaction, its five round trips paid for one write, and the PUT of
      // one text served 13–22 % fewer requests at 9–19 % more CPU each (BENCHMARKS.md round 28).
      if (waiting.length === 1) await yieldToEventLoop();
      runner.since = performance.now();
      const group = waiting.splice(0, MAX_GROUP);
      if (group.length === 1) {
        await runAlone(group[0]);
        continue;
      }
      let results: unknown[] | undefined;
      try {
        results = await runGroup(group);
      } catch (error) {
        // No connection to be had: every member learns why.
        for (const tx of group) tx.reject(translateError(error));
        continue;
      }
      if (results) group.forEach((tx, i) => tx.resolve(results[i]));
      // Something failed (a command's own refusal, a constraint, a deadlock with another group):
      // nothing of the group is durable; each runs again alone and gets its own answer.
      else await Promise.all(group.map(runAlone));
    }
  }

  /**
   * The group in one transaction: every result once COMMIT succeeded, undefined when it was
   * rolled back; throws only when no connection could be borrowed.
   */
  async function runGroup(group: QueuedTransaction[]): Promise<unknown[] | undefined> {
    const connection = await borrow();
    return connection
      .run(async () => {
        const results: unknown[] = [];
        // Advisory locks of every member are held to the group's COMMIT (the same rules as alone),
        // taken for all members known at once in one round trip (sorted, so in the same order as
        // any other transaction takes them), rather than one round trip per member.
        await connection.lock(groupKeys(group));
        for (let i = 0; i < group.length; i++) {
          results.push(await group[i].fn(connection.repositories));
          // What queued meanwhile joins the group (drain answers every member), its locks again in
          // one round trip; one an earlier member took is held already.
          if (i === group.length - 1 && group.length < MAX_GROUP) {
            const joined = waiting.splice(0, MAX_GROUP - group.length);
            group.push(...joined);
            await connection.lock(groupKeys(joined));
          }
        }
        return results;
      })
      .catch(() => undefined);
  }

  /**
   * One transaction alone, answered; retried when the backstop of the (aggregate, sequence) key
   * fired or PostgreSQL rolled it back to break a deadlock.
   */
  async function runAlone(tx: QueuedTransaction): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const connection = await borrow();
        // Transaction-scoped advisory locks, taken before anything is read and held until
        // COMMIT/ROLLBACK; keys are sorted (lockKeys) and taken before any row lock, so no cycle.
        return tx.resolve(
          await connection.run(async () => {
            await connection.lock(tx.keys);
            return tx.fn(connection.repositories);
          }),
        );
      } catch (error) {
        const translated = translateError(error);
        // The backstop of the (aggregate, sequence) key (see schema.ts) fired: run it again.
        const lostSequenceRace = translated instanceof UniqueViolation && translated.detail === 'events_aggregate_sequence';
        // Alone, advisory locks come before row locks, but another process's group takes a later
        // member's advisory locks after an earlier member's row locks: such a cycle is broken by
        // rolling one transaction back whole, and this one can simply run again.
        const deadlockVictim = sqlState(error) === DEADLOCK_DETECTED;
        if ((lostSequenceRace || deadlockVictim) && attempt < MAX_ATTEMPTS) continue;
        return tx.reject(translated);
      }
    }
  }

  return {
    run<T>(fn: (tx: Repositories) => Promise<T>, keys: string[]): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ fn, keys, resolve: resolve as (value: unknown) => void, reject });
        kick();
      });
    },
    /** Resolves once every queued transaction has finished. */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.all([...running].map((runner) => runner.done));
    },
  };
}

/** The lock keys of several transactions, each once, sorted as lockKeys sorts one transaction's. */
const groupKeys = (members: readonly { keys: readonly string[] }[]): string[] => (members.length === 1 ? [...members[0].keys] : [...new Set(members.flatMap((m) => m.keys))].sort());

/** drizzle wraps driver errors; the pg error (with its SQLSTATE) is the cause. */
const pgErrorOf = (error: unknown) => ((error as { cause?: unknown })?.cause ?? error) as { code?: string; constraint?: string };
const sqlState = (error: unknown) => pgErrorOf(error).code;
const DEADLOCK_DETECTED = '40P01';

function translateError(error: unknown): unknown {
  const { code, constraint } = pgErrorOf(error);
  if (code === '23505') return new UniqueViolation(constraint ?? 'unique');
  return error;
}
