/**
 * The storage boundary. The domain sees only `Store` and `Repositories`; which dialect runs
 * underneath (SQLite file or PostgreSQL server) is decided once, in `openStore`.
 */
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { createRepositories, type Repositories } from './repositories/index.js';

/** The query-builder type repositories are written against (see columns.ts for why pg). */
export type Db = NodePgDatabase<Record<string, never>>;

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly dialect: Dialect;
  /** Reads outside a transaction (on SQLite: a separate connection that sees only committed data). */
  readonly read: Repositories;
  /**
   * Runs `fn` in one transaction: every state change and its events commit together or not at all.
   * `locks` names the aggregates whose state `fn` reads to decide what it writes: they are locked
   * before `fn` runs, until the transaction ends, so two commands on one aggregate run one after
   * the other and each checks what the other committed (PostgreSQL's READ COMMITTED would
   * otherwise let both check the same old state). A lock need not name an aggregate: a check
   * across aggregates locks a key they share (a domain name, the instance's login names). `fn` may
   * run more than once (a failed group, a deadlock's victim): only its last run's result counts.
   * See ARCHITECTURE.md, "The event log".
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>, locks?: readonly AggregateLock[]): Promise<T>;
  /** Runs `fn` while no other process on this store runs it (first-start bootstrap). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Grows after every committed transaction of this process that wrote a table authentication
   * reads (see auth-writes.ts); what was derived from those tables under an older value may be stale.
   */
  authGeneration(): number;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** An aggregate a command locks: its type and id (`['user', userId]`). */
export type AggregateLock = readonly [aggregateType: string, aggregateId: string];

export { createRepositories, type Repositories };

export interface StoreLocation {
  dialect: Dialect;
  /** A file path for SQLite, a connection URL for PostgreSQL. */
  target: string;
}

/** A `DATABASE_URL` naming a store this service cannot open (config.ts turns it into a ConfigError). */
export class UnsupportedDatabaseUrl extends Error {}

/**
 * `DATABASE_URL` → which store. Unset: SQLite in `defaultSqliteFile` (config.ts: DATA_DIR/identity.db). Any other URL scheme
 * (`mysql://…`) is refused rather than taken for a file name. A scheme is two characters or more,
 * so a Windows drive letter (`C:\data\identity.db`) still reads as a path.
 */
export function parseDatabaseUrl(url: string | undefined, defaultSqliteFile: string): StoreLocation {
  if (!url) return { dialect: 'sqlite', target: defaultSqliteFile };
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', target: url };
  if (url.startsWith('file:')) return { dialect: 'sqlite', target: url.slice('file:'.length) };
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url);
  if (scheme) {
    throw new UnsupportedDatabaseUrl(
      `unsupported scheme '${scheme[1]}:' in '${url.replace(/\/\/[^@/]*@/, '//…@')}'; use file:<path> (or a plain path) for SQLite, postgres:// or postgresql:// for PostgreSQL`,
    );
  }
  return { dialect: 'sqlite', target: url };
}

export async function openStore(location: StoreLocation): Promise<Store> {
  if (location.dialect === 'postgres') {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(location.target);
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(location.target);
}
