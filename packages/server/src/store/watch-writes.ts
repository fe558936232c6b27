/**
 * A `Db` that names the table of every insert, update and delete to `onWrite` when the query is
 * built, before it runs. Repositories are given such a `Db` (repositories/index.ts), so every
 * repository method, present or future, that writes a watched table is seen without having to
 * remember to say so: authentication's tables (auth-writes.ts) and the message texts a
 * transaction remembers (postgres-text-writes.ts).
 *
 * A prepared statement (prepared.ts) is built once: writes that must be seen are not prepared.
 */
import type { Db } from './db.js';

export function watchWrites(db: Db, onWrite: (table: unknown) => void): Db {
  const watched = Object.create(db) as Db;
  for (const method of ['insert', 'update', 'delete'] as const) {
    const original = db[method].bind(db) as (table: unknown) => unknown;
    Object.defineProperty(watched, method, {
      value: (table: unknown) => {
        onWrite(table);
        return original(table);
      },
    });
  }
  return watched;
}
