/**
 * SQLite (better-sqlite3, WAL). better-sqlite3 is synchronous and drizzle's SQLite transactions
 * cannot span an `await`, so transactions are run by hand (BEGIN IMMEDIATE … COMMIT) on a writer
 * connection, one at a time through a promise queue. Reads outside transactions use a second
 * connection, which in WAL mode sees only committed data.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { sqliteColumns } from './columns.js';
import { defineTables } from './schema.js';
import { createRepositories, UniqueViolation, type Db, type Store } from './store.js';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations', 'sqlite');

function connect(path: string) {
  const conn = new Database(path);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  conn.pragma('busy_timeout = 5000');
  conn.pragma('foreign_keys = ON');
  return conn;
}

export async function openSqliteStore(path: string): Promise<Store> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const writerConn = connect(path);
  const writerDb = drizzle(writerConn);
  migrate(writerDb, { migrationsFolder });
  const readerConn = path === ':memory:' ? writerConn : connect(path);
  const tables = defineTables(sqliteColumns);
  const writer = createRepositories(writerDb as unknown as Db, tables);
  const reader = createRepositories(drizzle(readerConn) as unknown as Db, tables);

  const serialize = promiseQueue();
  const serializeExclusive = promiseQueue();

  return {
    dialect: 'sqlite',
    read: reader,
    transaction: (fn) =>
      serialize(async () => {
        writerConn.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(writer);
          writerConn.exec('COMMIT');
          return result;
        } catch (error) {
          if (writerConn.inTransaction) writerConn.exec('ROLLBACK');
          throw translateError(error);
        }
      }),
    // Across processes BEGIN IMMEDIATE + busy_timeout serialise writers; within this process a
    // second queue (not the transaction queue, which `fn` itself uses) runs one `fn` at a time.
    exclusive: (fn) => serializeExclusive(fn),
    ping: async () => {
      readerConn.prepare('select 1').get();
    },
    close: async () => {
      await serialize(async () => undefined);
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

/** Runs the functions given to it one after another, in call order. */
function promiseQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}
