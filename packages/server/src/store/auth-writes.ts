/**
 * Which writes can change the outcome of authentication: any insert, update or delete on the
 * tables it reads (tokens and their users, memberships, organisations, and the OAuth clients:
 * applications, their keys, machine users' secrets). Repositories get a `Db`
 * that reports such writes, so every repository method — present or future — that writes one
 * of these tables is seen without having to remember to say so. The store turns the reports of
 * a transaction into one bump of its `authGeneration()` after the COMMIT (auth/auth-cache.ts
 * serves nothing computed under an older generation).
 *
 * The report happens when the query is built. A prepared statement (prepared.ts) is built once,
 * so writes to these tables must not be prepared.
 */
import type { Tables } from './schema.js';
import type { Db } from './store.js';

export function authTables(t: Tables): ReadonlySet<unknown> {
  return new Set<unknown>([t.personalAccessTokens, t.users, t.members, t.orgs, t.oidcApps, t.appKeys, t.machineSecrets]);
}

/** `db` whose insert/update/delete call `onWrite` first when they target one of `tables`. */
export function watchAuthWrites(db: Db, tables: ReadonlySet<unknown>, onWrite: () => void): Db {
  const watched = Object.create(db) as Db;
  for (const method of ['insert', 'update', 'delete'] as const) {
    const original = db[method].bind(db) as (table: unknown) => unknown;
    Object.defineProperty(watched, method, {
      value: (table: unknown) => {
        if (tables.has(table)) onWrite();
        return original(table);
      },
    });
  }
  return watched;
}

/** For repositories outside transactions: an autocommitted write would be reported before it is visible. */
export function refuseAuthWrite(): never {
  throw new Error('writes to tokens, users, members, orgs, applications, app keys or machine secrets must run in store.transaction (the authentication cache is invalidated at commit)');
}
