/**
 * What a removed user left behind, read through a connection of its own (the store's reader may
 * keep reads): rows naming it in every table with a `user_id` column, its own row, and the
 * authorization server's storage (anywhere in the payload). Used by the removal tests.
 */
import Database from 'better-sqlite3';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import * as tables from '../../src/store/schema.sqlite.js';
import type { StoreLocation } from '../../src/store/store.js';

/** Every table with a `user_id` column (the same names on both dialects). */
const USER_TABLES = Object.values(tables)
  .map((table) => getTableConfig(table as SQLiteTable))
  .filter((config) => config.columns.some((c) => c.name === 'user_id'))
  .map((config) => config.name);

/** Tables still holding rows of the user, with how many; `{}` when nothing is left. */
export async function leftovers(location: StoreLocation, userId: string): Promise<Record<string, number>> {
  const queries = [
    ...USER_TABLES.map((name) => [name, `select count(*) as n from ${name} where user_id = $1`] as const),
    ['users', 'select count(*) as n from users where id = $1'] as const,
    ['oidc_payloads', `select count(*) as n from oidc_payloads where cast(payload as text) like '%' || $1 || '%'`] as const,
  ];
  const counts: Record<string, number> = {};
  if (location.dialect === 'sqlite') {
    const db = new Database(location.target, { readonly: true });
    try {
      for (const [name, query] of queries) counts[name] = Number((db.prepare(query.replaceAll('$1', '@userId')).all({ userId }) as { n: number }[])[0].n);
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: location.target });
    await client.connect();
    try {
      for (const [name, query] of queries) counts[name] = Number((await client.query(query, [userId])).rows[0].n);
    } finally {
      await client.end();
    }
  }
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}
