/**
 * One table definition, two dialects.
 *
 * drizzle has no dialect-neutral schema, so every table is written once against this small
 * column factory (see schema.ts) and instantiated twice: with `pgColumns` for PostgreSQL and
 * with `sqliteColumns` for SQLite. The TypeScript types are the PostgreSQL ones in both cases;
 * the SQLite factory returns SQLite columns that behave the same at run time (Dates stay Dates,
 * JSON stays JSON, booleans stay booleans). Repositories are therefore written once.
 */
import * as pg from 'drizzle-orm/pg-core';
import * as lite from 'drizzle-orm/sqlite-core';

export const pgColumns = {
  table: pg.pgTable,
  text: (name: string) => pg.text(name),
  int: (name: string) => pg.integer(name),
  bigint: (name: string) => pg.bigint(name, { mode: 'number' }),
  bool: (name: string) => pg.boolean(name),
  time: (name: string) => pg.timestamp(name, { withTimezone: true, precision: 3, mode: 'date' }),
  json: <T>(name: string) => pg.jsonb(name).$type<T>(),
  /** Auto-incrementing 64-bit primary key (the global event position). */
  serialKey: (name: string) => pg.bigserial(name, { mode: 'number' }).primaryKey(),
  primaryKey: pg.primaryKey,
  uniqueIndex: pg.uniqueIndex,
  index: pg.index,
};

export type ColumnFactory = typeof pgColumns;

/** Cast a SQLite builder to the PostgreSQL type its callers are written against. */
const as = <T>(value: unknown): T => value as T;

export const sqliteColumns: ColumnFactory = {
  table: as<ColumnFactory['table']>(lite.sqliteTable),
  text: (name) => as(lite.text(name)),
  int: (name) => as(lite.integer(name, { mode: 'number' })),
  bigint: (name) => as(lite.integer(name, { mode: 'number' })),
  bool: (name) => as(lite.integer(name, { mode: 'boolean' })),
  time: (name) => as(lite.integer(name, { mode: 'timestamp_ms' })),
  json: <T>(name: string) => as<ReturnType<typeof pgColumns.json<T>>>(lite.text(name, { mode: 'json' }).$type<T>()),
  serialKey: (name) => as(lite.integer(name, { mode: 'number' }).primaryKey({ autoIncrement: true })),
  primaryKey: as<ColumnFactory['primaryKey']>(lite.primaryKey),
  uniqueIndex: as<ColumnFactory['uniqueIndex']>(lite.uniqueIndex),
  index: as<ColumnFactory['index']>(lite.index),
};
