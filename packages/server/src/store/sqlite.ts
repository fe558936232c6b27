/**
 * SQLite (better-sqlite3, WAL). better-sqlite3 is synchronous and drizzle's SQLite transactions
 * cannot span an `await`, so transactions are run by hand (BEGIN IMMEDIATE … COMMIT) on a writer
 * connection, one at a time through a queue that lets queued transactions share a commit (see
 * groupCommitQueue). Reads outside transactions use a second connection, which in WAL mode sees
 * only committed data.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { UniqueViolation } from '../domain/errors.js';
import { refuseAuthWrite } from './auth-writes.js';
import { sqliteColumns } from './columns.js';
import type { Db } from './db.js';
import { createRepositories } from './repositories/index.js';
import { defineTables } from './schema.js';
import { WalCheckpointer } from './sqlite-checkpointer.js';
import { sqliteHotPath } from './sqlite-hot-path.js';
import { openSqlite } from './sqlite-native.js';
import type { Store } from './store-types.js';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations', 'sqlite');

function connect(path: string) {
  const conn = openSqlite(path);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  conn.pragma('busy_timeout = 5000');
  conn.pragma('foreign_keys = ON');
  return conn;
}

/**
 * The database holds password hashes and the authorization server's keys: its folder is created
 * 0700 and its files 0600, whatever the umask. SQLite gives the -wal and -shm files the mode of
 * the database file, so creating that file first (empty: SQLite takes it as a new database) is
 * enough for new stores; files an earlier version left 0644 are narrowed after opening.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
}

function narrowFileModes(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch {
      // Missing (no WAL yet) or owned by another user (an operator's choice): nothing to narrow.
    }
  }
}

export async function openSqliteStore(path: string): Promise<Store> {
  const onDisk = path !== ':memory:' && path !== '';
  if (onDisk) createPrivately(path);
  const writerConn = connect(path);
  if (onDisk) narrowFileModes(path);
  const writerDb = drizzle(writerConn);
  migrateOnce(writerDb);
  const readerConn = path === ':memory:' ? writerConn : connect(path);
  const tables = defineTables(sqliteColumns);
  // Writes to authentication's tables are reported while the transaction runs and counted once
  // it has committed (or rolled back), before any caller of the group is answered.
  let authGeneration = 0;
  let authWritten = false;
  /** Transactions (groups) ended on the writer: the reader's kept rows are not served across one. */
  let commits = 0;
  const writer = createRepositories(writerDb as unknown as Db, tables, sqliteHotPath(writerConn), { onAuthWrite: () => void (authWritten = true) });
  // The reader keeps its text reads until the database changes; an in-memory database has no
  // reader of its own (its one connection writes, and its own writes do not change data_version).
  const reader = createRepositories(drizzle(readerConn) as unknown as Db, tables, sqliteHotPath(readerConn, readerConn !== writerConn ? { cacheReads: { commits: () => commits } } : {}), {
    onAuthWrite: refuseAuthWrite,
  });

  // An in-memory database has no log to copy.
  const checkpointer = onDisk ? new WalCheckpointer(path, writerConn) : undefined;
  const transactions = groupCommitQueue(
    writerConn,
    () => {
      commits++;
      if (!authWritten) return;
      authWritten = false;
      authGeneration++;
    },
    checkpointer,
  );
  const serializeExclusive = promiseQueue();

  return {
    dialect: 'sqlite',
    read: reader,
    // `locks` need nothing here: BEGIN IMMEDIATE already makes every write transaction the only one.
    transaction: (fn) => transactions.run(() => fn(writer)),
    // Statements are in-process calls here: a transaction of the queue costs no round trip.
    statement: (fn) => transactions.run(() => fn(writer)),
    // Across processes BEGIN IMMEDIATE + busy_timeout serialise writers; within this process a
    // second queue (not the transaction queue, which `fn` itself uses) runs one `fn` at a time.
    exclusive: (fn) => serializeExclusive(fn),
    authGeneration: () => authGeneration,
    ping: async () => {
      readerConn.prepare('select 1').get();
    },
    close: async () => {
      await transactions.idle();
      await checkpointer?.close();
      if (readerConn !== writerConn) readerConn.close();
      writerConn.close();
    },
  };
}

function translateError(error: unknown): unknown {
  const code = (error as { code?: string })?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new UniqueViolation((error as Error).message);
  }
  return error;
}

/** Most transactions that share one commit: bounds how long the first of them waits for it. */
const MAX_GROUP = 32;

interface QueuedTransaction {
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit. Transactions run one at a time, in call order, as before; but those that queued
 * up while one ran share its BEGIN IMMEDIATE … COMMIT, each inside a SAVEPOINT of its own. One
 * that fails is rolled back to its savepoint and fails alone, and every caller learns its result
 * only after the COMMIT that made it durable, so callers see what they saw with one commit each.
 * What goes down is the number of commits: a commit writes a WAL frame for every page touched
 * (events, its indexes, the state row), which was the largest single cost of a write under load.
 */
function groupCommitQueue(conn: Database.Database, afterGroup: () => void, checkpointer?: WalCheckpointer) {
  const begin = conn.prepare('BEGIN IMMEDIATE');
  const commit = conn.prepare('COMMIT');
  const rollback = conn.prepare('ROLLBACK');
  const savepoint = conn.prepare('SAVEPOINT tx');
  const release = conn.prepare('RELEASE tx');
  const rollbackToSavepoint = conn.prepare('ROLLBACK TO tx');
  const waiting: QueuedTransaction[] = [];
  let draining: Promise<void> | undefined;

  /** Transactions of the open group that succeeded and wait for its COMMIT. */
  let group: { tx: QueuedTransaction; result: unknown }[] = [];

  /** Fails every transaction of the open group with `error` (its work is rolled back). */
  function failGroup(error: unknown) {
    afterGroup();
    if (conn.inTransaction) rollback.run();
    for (const done of group) done.tx.reject(translateError(error));
    group = [];
  }

  async function runGroup(): Promise<void> {
    const started = performance.now();
    try {
      begin.run();
    } catch (error) {
      // Another process holds the write lock past busy_timeout: the first in line fails, as it did alone.
      waiting.shift()!.reject(translateError(error));
      return;
    }
    while (group.length < MAX_GROUP) {
      if (waiting.length === 0) {
        // better-sqlite3 is synchronous, so a request runs from its socket read to this point
        // without yielding, and transactions of concurrent requests would never be queued
        // together. One turn of the event loop lets the requests already read reach here.
        await yieldToEventLoop();
        if (waiting.length === 0) break;
      }
      const tx = waiting.shift()!;
      savepoint.run();
      try {
        const result = await tx.fn();
        release.run();
        group.push({ tx, result });
      } catch (error) {
        if (conn.inTransaction) {
          rollbackToSavepoint.run();
          release.run();
          tx.reject(translateError(error));
          continue;
        }
        // SQLite rolled the whole transaction back itself (I/O error, disk full): the work of
        // the others in this group is gone too, so they fail with the same error.
        tx.reject(translateError(error));
        failGroup(error);
        return;
      }
    }
    // A long group (an import's organisation) has written much: its checkpoint runs in a worker.
    const offloaded = checkpointer?.beforeCommit(performance.now() - started) ?? false;
    try {
      commit.run();
    } catch (error) {
      failGroup(error);
      return;
    } finally {
      if (offloaded) checkpointer!.afterCommit();
    }
    afterGroup();
    const committed = group;
    group = [];
    for (const done of committed) done.tx.resolve(done.result);
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      try {
        await runGroup();
      } catch (error) {
        // A transaction-control statement itself failed: nothing of the group is durable.
        failGroup(error);
      }
    }
    draining = undefined;
  }

  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
        // Started on a microtask, as the promise queue did: `fn` never runs inside the caller's call.
        draining ??= Promise.resolve().then(drain);
      });
    },
    /** Resolves once every queued transaction has finished. */
    idle: () => draining ?? Promise.resolve(),
  };
}

/** Runs the functions given to it one after another, in call order. */
function promiseQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * Applies pending migrations. Two processes starting at once on a new file can both see a
 * migration as pending; the second then fails on CREATE TABLE once the first has committed.
 * Running migrate again reads the journal the first one wrote and finds nothing left to do.
 */
function migrateOnce(db: ReturnType<typeof drizzle>) {
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}
