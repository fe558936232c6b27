/**
 * A migrated PostgreSQL database (a copy of the run's template) and a client to it that counts the queries it sends (the real
 * client, instrumented, not a stand-in): for tests that check how many round trips a path makes.
 */
import pg from 'pg';
import { openStore, type Store } from '../../src/store/store.js';
import { freshMigratedPostgresDatabase } from './instance.js';

export interface CountedPostgres {
  /** The store that migrated the database (close it with the client). */
  store: Store;
  client: pg.Client;
  /** Queries the client has sent so far. */
  queries: () => number;
  close: () => Promise<void>;
}

export async function countedPostgres(): Promise<CountedPostgres> {
  const url = await freshMigratedPostgresDatabase();
  const store = await openStore({ dialect: 'postgres', target: url }); // a copy of the migrated template: nothing left to migrate
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let sent = 0;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    sent++;
    return query(...args);
  };
  return {
    store,
    client,
    queries: () => sent,
    close: async () => {
      await client.end();
      await store.close();
    },
  };
}
