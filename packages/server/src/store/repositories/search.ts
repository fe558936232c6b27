/**
 * Shared parts of search queries: paging, and text conditions written so both dialects agree.
 * SQLite's LIKE ignores ASCII case and PostgreSQL's does not, so LIKE is avoided.
 * Case-insensitive matches compare against a lower-cased key column (stored lower-cased by the
 * domain) where the table has one.
 */
import { type AnyColumn, asc, count, desc, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db.js';

/** Paging of a search (the domain's defaults and limits are in domain/list.ts). */
export interface PageQuery {
  offset: number;
  limit: number;
  asc: boolean;
}

/**
 * One page of `table`'s rows matching `where` and the total count of matches. `order` lists the
 * sort columns, each in the page's direction; end it with a unique column so pages are stable.
 */
export async function selectPage<T extends PgTable>(db: Db, table: T, where: SQL | undefined, order: AnyColumn[], page: PageQuery): Promise<{ total: number; rows: T['$inferSelect'][] }> {
  const [{ total }] = await db
    .select({ total: count() })
    .from(table as PgTable)
    .where(where);
  const direction = page.asc ? asc : desc;
  const rows = await db
    .select()
    .from(table as PgTable)
    .where(where)
    .orderBy(...order.map((column) => direction(column)))
    .limit(page.limit)
    .offset(page.offset);
  return { total: Number(total), rows: rows as T['$inferSelect'][] };
}

export interface TextMatch {
  value: string;
  op: 'equals' | 'startsWith' | 'contains' | 'endsWith';
  ignoreCase: boolean;
}

/**
 * `column` holds the text as written; `lowerColumn`, when given, holds it lower-cased (used for
 * case-insensitive matches; without it the column is lower-cased in SQL).
 */
export function textCondition(column: AnyColumn, match: TextMatch, lowerColumn?: AnyColumn): SQL | undefined {
  const target: SQL = match.ignoreCase ? (lowerColumn ? sql`${lowerColumn}` : sql`lower(${column})`) : sql`${column}`;
  const value = match.ignoreCase ? match.value.toLowerCase() : match.value;
  switch (match.op) {
    case 'equals':
      return sql`${target} = ${value}`;
    case 'startsWith':
      return sql`substr(${target}, 1, ${value.length}) = ${value}`;
    case 'endsWith':
      // A start below 1 behaves differently per dialect, but then the slice is shorter than the
      // value and cannot equal it either way.
      return sql`substr(${target}, length(${target}) - ${value.length} + 1) = ${value}`;
    case 'contains':
      if (value === '') return undefined;
      return sql`replace(${target}, ${value}, '') <> ${target}`;
  }
}
