/**
 * PostgreSQL (node-postgres pool). A transaction is BEGIN … COMMIT on one pooled connection,
 * with repositories kept per connection. Writers of one aggregate queue on its
 * aggregate_sequences row (events.append); should the (aggregate, sequence) key of events ever
 * fire anyway, the transaction is retried, as is one PostgreSQL rolled back to break a deadlock
 * (runAlone). Migrations and bootstrap run under an advisory lock
 * so two processes starting at once on one database do the work exactly once.
 *
 * Group commit (groupCommit below): transactions that queue up while the runners are busy share
 * one BEGIN … COMMIT, one after the other on one connection, so a write under load costs its own
 * statements and not two more round trips (each a system call: the largest single CPU cost of a
 * write, BENCHMARKS.md round 6), and writers of one aggregate no longer wait for each other's
 * COMMIT one by one. No SAVEPOINT per transaction (two more round trips): when anything in a group
 * fails, the whole group is rolled back and each of its transactions runs again alone, so every
 * caller gets exactly the result it would have had alone, and only after the COMMIT that made it
 * durable. A group takes in what queued while it ran, up to MAX_GROUP.
 *
 * Writes of one text in a group (concurrent PUTs of it) cost no round trip each after the first: a
 * text the transaction wrote is read back from memory (repositories/text-memo.ts), and its further
 * writes are held back and sent as one statement before COMMIT (postgres-write-behind.ts).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { refuseAuthWrite } from './auth-writes.js';
import { pgColumns } from './columns.js';
import { postgresHotPath } from './postgres-hot-path.js';
import { oneQueryAtATime, type SerialQueries } from './postgres-serial-queries.js';
import { flushFirst, TextWriteBehind } from './postgres-write-behind.js';
import { defineTables } from './schema.js';
import { createRepositories, lockKeys, UniqueViolation, type Db, type Repositories, type Store } from './store.js';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations', 'postgres');
/** Arbitrary but fixed: the key of the advisory lock that serialises start-up work. */
const STARTUP_LOCK_KEY = 727_271_001;
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

export async function openPostgresStore(url: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const db = drizzle(pool) as unknown as Db;
  const tables = defineTables(pgColumns);

  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
      try {
        return await fn();
      } finally {
        await client.query('select pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  };

  await exclusive(() => migrate(drizzle(pool), { migrationsFolder }));
  let authGeneration = 0;

  /**
   * Repositories bound to one pooled connection, built on its first transaction and kept as
   * long as it lives: their prepared queries are then built once per connection instead of once
   * per transaction (node-postgres already parses a named statement once per connection).
   * A connection runs one transaction at a time, so `authWritten` belongs to the one running;
   * `transaction` counts its BEGINs (texts a transaction wrote are remembered for its own reads:
   * repositories/text-memo.ts).
   */
  interface Connection {
    repositories: Repositories;
    authWritten: boolean;
    transaction: number;
    /** Text writes held back until the next query or COMMIT (postgres-write-behind.ts). */
    behind: TextWriteBehind;
    /** The repositories' queries, one at a time (postgres-serial-queries.ts); closed and drained before COMMIT and ROLLBACK. */
    queries: SerialQueries<pg.PoolClient>;
  }
  const connections = new WeakMap<pg.PoolClient, Connection>();
  const connectionOf = (client: pg.PoolClient): Connection => {
    let connection = connections.get(client);
    if (!connection) {
      const conn: Connection = { authWritten: false, transaction: 0, repositories: undefined!, behind: undefined!, queries: undefined! };
      conn.behind = new TextWriteBehind(client, () => conn.transaction);
      // Every query of the repositories sends the held writes first, and waits for the one before it.
      conn.queries = oneQueryAtATime(flushFirst(client, conn.behind));
      const repositoryClient = conn.queries.client;
      conn.repositories = createRepositories(drizzle(repositoryClient) as unknown as Db, tables, postgresHotPath(repositoryClient, conn.behind), {
        onAuthWrite: () => void (conn.authWritten = true),
        transaction: () => conn.transaction,
      });
      connections.set(client, (connection = conn));
    }
    return connection;
  };

  async function runOnce<T>(fn: (tx: Repositories) => Promise<T>, locks: string[]): Promise<T> {
    const client = await pool.connect();
    const connection = connectionOf(client);
    connection.authWritten = false;
    connection.transaction++;
    connection.queries.open();
    let broken: Error | undefined;
    try {
      await client.query('begin').catch((error: Error) => {
        broken = error;
        throw error;
      });
      try {
        // Transaction-scoped advisory locks, taken before anything is read and held until
        // COMMIT/ROLLBACK; keys are sorted (lockKeys) and taken before any row lock, so no cycle.
        await lockAggregates(client, locks);
        const result = await fn(connection.repositories);
        await connection.queries.closeAndDrain();
        await connection.behind.flush();
        await client.query('commit');
        return result;
      } catch (error) {
        await connection.queries.closeAndDrain();
        connection.behind.discard();
        await client.query('rollback').catch((rollbackError: Error) => {
          // The connection is unusable: the pool discards it instead of handing it out again.
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      // Counted once the transaction is over (committed or not), before its caller continues.
      if (connection.authWritten) authGeneration++;
      client.release(broken);
    }
  }

  /**
   * One transaction alone, retried when the backstop of the (aggregate, sequence) key fired or
   * PostgreSQL rolled it back to break a deadlock.
   */
  async function runAlone<T>(fn: (tx: Repositories) => Promise<T>, keys: string[]): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await runOnce(fn, keys);
      } catch (error) {
        const translated = translateError(error);
        // The backstop of the (aggregate, sequence) key (see schema.ts) fired: run it again.
        const lostSequenceRace =
          translated instanceof UniqueViolation && translated.detail === 'events_aggregate_sequence';
        // Alone, advisory locks come before row locks, but another process's group takes a later
        // member's advisory locks after an earlier member's row locks: such a cycle is broken by
        // rolling one transaction back whole, and this one can simply run again.
        const deadlockVictim = sqlState(error) === DEADLOCK_DETECTED;
        if ((lostSequenceRace || deadlockVictim) && attempt < MAX_ATTEMPTS) continue;
        throw translated;
      }
    }
  }

  interface Queued {
    fn: (tx: Repositories) => Promise<unknown>;
    keys: string[];
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }
  const queue: Queued[] = [];
  /** When each running runner's current group (or lone transaction) started. */
  const running = new Set<{ since: number }>();
  let stallCheck: NodeJS.Timeout | undefined;

  const allStalled = () => [...running].every((runner) => performance.now() - runner.since >= STALLED_MS);

  /** Starts a runner if transactions wait and none runs, or every running one is stalled. */
  function kick() {
    while (queue.length > 0 && running.size < MAX_RUNNERS && (running.size === 0 || allStalled())) {
      const runner = { since: performance.now() };
      running.add(runner);
      void runGroups(runner).finally(() => {
        running.delete(runner);
        kick();
      });
    }
    // Waiting behind a group that may yet stall: look again when it would have.
    if (queue.length > 0 && running.size < MAX_RUNNERS && !stallCheck) {
      stallCheck = setTimeout(() => {
        stallCheck = undefined;
        kick();
      }, STALLED_MS);
      stallCheck.unref();
    }
  }

  async function runGroups(runner: { since: number }) {
    while (queue.length > 0) {
      runner.since = performance.now();
      const group = queue.splice(0, MAX_GROUP);
      if (group.length === 1) {
        const [item] = group;
        await runAlone(item.fn, item.keys).then(item.resolve, item.reject);
        continue;
      }
      let results: unknown[] | undefined;
      try {
        results = await runGroup(group);
      } catch (error) {
        // No connection to be had: every member learns why.
        for (const item of group) item.reject(translateError(error));
        continue;
      }
      if (results) group.forEach((item, i) => item.resolve(results[i]));
      // Something failed (a command's own refusal, a constraint, a deadlock with another group):
      // nothing of the group is durable; each runs again alone and gets its own answer.
      else await Promise.all(group.map((item) => runAlone(item.fn, item.keys).then(item.resolve, item.reject)));
    }
  }

  /** The group in one transaction: every result once COMMIT succeeded, else undefined (rolled back). */
  async function runGroup(group: Queued[]): Promise<unknown[] | undefined> {
    const client = await pool.connect();
    const connection = connectionOf(client);
    connection.authWritten = false;
    connection.transaction++;
    connection.queries.open();
    let broken: Error | undefined;
    try {
      await client.query('begin');
      const results: unknown[] = [];
      const held = new Set<string>();
      // Advisory locks of every member are held to the group's COMMIT (same rules as runOnce),
      // taken for all members known at once in one round trip (sorted, so in the same order as
      // any other transaction takes them), rather than one round trip per member.
      await lockAggregates(client, groupKeys(group), held);
      for (let i = 0; i < group.length; i++) {
        results.push(await group[i].fn(connection.repositories));
        // What queued meanwhile joins the group (the caller of runGroup answers every member),
        // its locks again in one round trip; one an earlier member took is held already.
        if (i === group.length - 1 && group.length < MAX_GROUP) {
          const joined = queue.splice(0, MAX_GROUP - group.length);
          group.push(...joined);
          await lockAggregates(client, groupKeys(joined), held);
        }
      }
      await connection.queries.closeAndDrain();
      await connection.behind.flush();
      await client.query('commit');
      return results;
    } catch {
      await connection.queries.closeAndDrain();
      connection.behind.discard();
      await client.query('rollback').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      return undefined;
    } finally {
      if (connection.authWritten) authGeneration++;
      client.release(broken);
    }
  }

  return {
    dialect: 'postgres',
    read: createRepositories(db, tables, postgresHotPath(pool), { onAuthWrite: refuseAuthWrite }),
    transaction: (fn, locks) =>
      new Promise((resolve, reject) => {
        queue.push({ fn, keys: lockKeys(locks), resolve: resolve as (value: unknown) => void, reject });
        kick();
      }),
    exclusive,
    authGeneration: () => authGeneration,
    ping: async () => {
      await pool.query('select 1');
    },
    close: () => pool.end(),
  };
}

/** The lock keys of several transactions, each once, sorted as lockKeys sorts one transaction's. */
const groupKeys = (members: readonly { keys: readonly string[] }[]): string[] =>
  members.length === 1 ? [...members[0].keys] : [...new Set(members.flatMap((m) => m.keys))].sort();

/**
 * Takes the aggregates' advisory locks in one round trip, in the order given (unnest returns the
 * array's elements in order). Keys in `held` (taken earlier in the same transaction) are skipped:
 * the lock is already this transaction's.
 */
async function lockAggregates(client: pg.PoolClient, keys: readonly string[], held?: Set<string>): Promise<void> {
  const needed = held ? keys.filter((key) => !held.has(key)) : keys;
  if (needed.length === 0) return;
  await client.query({ name: 'lock_aggregates', text: 'select pg_advisory_xact_lock(hashtextextended(key, 0)) from unnest($1::text[]) as key', values: [needed] });
  for (const key of needed) held?.add(key);
}

/** drizzle wraps driver errors; the pg error (with its SQLSTATE) is the cause. */
const pgErrorOf = (error: unknown) => ((error as { cause?: unknown })?.cause ?? error) as { code?: string; constraint?: string };
const sqlState = (error: unknown) => pgErrorOf(error).code;
const DEADLOCK_DETECTED = '40P01';

function translateError(error: unknown): unknown {
  const { code, constraint } = pgErrorOf(error);
  if (code === '23505') return new UniqueViolation(constraint ?? 'unique');
  return error;
}
