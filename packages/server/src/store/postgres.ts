/**
 * PostgreSQL (node-postgres pool). Transactions are drizzle's; a transaction that loses a race
 * on the event log's (aggregate, sequence) key is retried, so concurrent writers on one
 * aggregate serialise instead of failing. Migrations and bootstrap run under an advisory lock
 * so two processes starting at once on one database do the work exactly once.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { pgColumns } from './columns.js';
import { defineTables } from './schema.js';
import { createRepositories, UniqueViolation, type Db, type Store } from './store.js';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations', 'postgres');
/** Arbitrary but fixed: the key of the advisory lock that serialises start-up work. */
const STARTUP_LOCK_KEY = 727_271_001;
const MAX_ATTEMPTS = 5;

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

  return {
    dialect: 'postgres',
    read: createRepositories(db, tables),
    transaction: async (fn) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction((tx) =>
            fn(
              createRepositories(tx as unknown as Db, tables, {
                lockAggregate: async (type, id) => {
                  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${type}/${id}`}, 0))`);
                },
              }),
            ),
          );
        } catch (error) {
          const translated = translateError(error);
          const lostSequenceRace =
            translated instanceof UniqueViolation && translated.detail === 'events_aggregate_sequence';
          if (lostSequenceRace && attempt < MAX_ATTEMPTS) continue;
          throw translated;
        }
      }
    },
    exclusive,
    ping: async () => {
      await pool.query('select 1');
    },
    close: () => pool.end(),
  };
}

function translateError(error: unknown): unknown {
  // drizzle wraps driver errors; the pg error (with its SQLSTATE) is the cause.
  const pgError = (error as { cause?: unknown })?.cause ?? error;
  const { code, constraint } = pgError as { code?: string; constraint?: string };
  if (code === '23505') return new UniqueViolation(constraint ?? 'unique');
  return error;
}
