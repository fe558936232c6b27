/**
 * PostgreSQL (node-postgres pool): the wiring. A transaction is BEGIN … COMMIT on one pooled
 * connection (postgres-connection.ts: its repositories, query queue, held writes and one finish),
 * run by a group-commit queue (postgres-group-commit.ts: shared commits, each member alone again
 * after a failed group, retries on the events backstop and on a deadlock). Reads outside
 * transactions go to the pool. Migrations and bootstrap run under an advisory lock so two
 * processes starting at once on one database do the work exactly once.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { refuseAuthWrite } from './auth-writes.js';
import { pgColumns } from './columns.js';
import type { Db } from './db.js';
import { lockKeys } from './lock-keys.js';
import { transactionConnections } from './postgres-connection.js';
import { groupCommitQueue } from './postgres-group-commit.js';
import { postgresHotPath } from './postgres-hot-path.js';
import { postgresSettledPosition } from './postgres-settled-position.js';
import { createRepositories } from './repositories/index.js';
import { defineTables } from './schema.js';
import type { Store } from './store-types.js';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations', 'postgres');
/** Arbitrary but fixed: the key of the advisory lock that serialises start-up work. */
const STARTUP_LOCK_KEY = 727_271_001;

export async function openPostgresStore(url: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
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
  // Counted once a transaction that wrote authentication's tables is over, before its caller continues.
  let authGeneration = 0;
  const transactions = groupCommitQueue(
    transactionConnections(pool, tables, (wroteAuth) => {
      if (wroteAuth) authGeneration++;
    }),
  );

  // On the pool, outside any transaction: reads, and `statement`'s one write (refused for authentication's tables).
  const onPool = createRepositories(drizzle(pool) as unknown as Db, tables, { ...postgresHotPath(pool), settledPosition: postgresSettledPosition(pool) }, { onAuthWrite: refuseAuthWrite });
  return {
    dialect: 'postgres',
    read: onPool,
    transaction: (fn, locks) => transactions.run(fn, lockKeys(locks)),
    statement: (fn) => fn(onPool),
    exclusive,
    authGeneration: () => authGeneration,
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      await transactions.idle();
      await pool.end();
    },
  };
}
