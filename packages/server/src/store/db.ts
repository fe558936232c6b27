/**
 * The query-builder type every repository is written against. A module of its own, importing
 * nothing of the store, so the repositories can name it without importing back the module that
 * assembles them (store-types.ts, store.ts): store/ reads in one direction.
 */
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';

/** The query-builder type repositories are written against (see columns.ts for why pg). */
export type Db = NodePgDatabase<Record<string, never>>;
