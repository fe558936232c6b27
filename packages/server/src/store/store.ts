/**
 * The storage boundary. The domain sees only `Store` and `Repositories` (defined in store-types.ts,
 * re-exported here for the layers above); which dialect runs underneath (SQLite file or PostgreSQL
 * server) is decided once, in `openStore`.
 */
import { withKeptPolicyReads } from './policy-reads.js';
import type { Dialect, Store } from './store-types.js';

export type { Db } from './db.js';
export type { Repositories } from './repositories/index.js';
export type { AggregateLock, Dialect, Store } from './store-types.js';

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
    return withKeptPolicyReads(await openPostgresStore(location.target));
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return withKeptPolicyReads(await openSqliteStore(location.target));
}
