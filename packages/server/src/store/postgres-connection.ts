/**
 * One pooled PostgreSQL connection as the store's transactions use it, and everything that lives
 * as long as one of its transactions: the repositories bound to it, the queue that sends their
 * queries one at a time (postgres-serial-queries.ts), the texts the transaction wrote (read back
 * from memory, held back until the next query or COMMIT: postgres-text-writes.ts), the advisory
 * locks it took, and whether it wrote a table authentication reads. `run` is a transaction's whole
 * life on it: BEGIN, the work, and one finish, COMMIT or (on any failure) ROLLBACK, each only once
 * the queue has drained.
 *
 * The connection object is kept as long as the pooled client lives (a WeakMap on it): the
 * repositories' prepared queries are then built once per connection rather than once per
 * transaction (node-postgres already parses a named statement once per connection).
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { Db } from './db.js';
import { postgresHotPath } from './postgres-hot-path.js';
import { oneQueryAtATime, type SerialQueries } from './postgres-serial-queries.js';
import { flushFirst, TransactionTextWrites } from './postgres-text-writes.js';
import { createRepositories, type Repositories } from './repositories/index.js';
import type { Tables } from './schema.js';

export class TransactionConnection {
  readonly repositories: Repositories;
  /** The repositories' queries, one at a time; closed and drained before COMMIT and ROLLBACK. */
  private readonly queries: SerialQueries<pg.PoolClient>;
  /** The texts this transaction wrote: read back from memory, held back until the next query or COMMIT. */
  private readonly texts: TransactionTextWrites;
  private authWritten = false;
  /** Advisory lock keys this transaction holds (a group's later members need not take them again). */
  private readonly locked = new Set<string>();

  constructor(
    private readonly client: pg.PoolClient,
    tables: Tables,
    /** Told when a transaction has ended (committed or not), before its caller continues. */
    private readonly ended: (wroteAuth: boolean) => void,
  ) {
    ({ repositories: this.repositories, queries: this.queries, texts: this.texts } = connectionParts(client, tables, () => void (this.authWritten = true)));
  }

  /**
   * One transaction: `work` between BEGIN and COMMIT; on any failure (of `work`, of the held
   * writes, of COMMIT) rolled back and the failure rethrown. Either way the client goes back to
   * the pool, discarded when the connection is unusable (BEGIN or ROLLBACK failed). A connection
   * is borrowed for exactly one `run`.
   */
  async run<T>(work: (connection: TransactionConnection) => Promise<T>): Promise<T> {
    this.authWritten = false;
    this.locked.clear();
    this.texts.reset();
    this.queries.open();
    let broken: Error | undefined;
    try {
      await this.client.query('begin').catch((error: Error) => {
        broken = error;
        throw error;
      });
      try {
        const result = await work(this);
        await this.finish('commit');
        return result;
      } catch (error) {
        await this.finish('rollback').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      this.ended(this.authWritten);
      this.client.release(broken);
    }
  }

  /**
   * Transaction-scoped advisory locks on `keys` (sorted: lockKeys, groupKeys), in one round trip,
   * taken in the order given (unnest keeps the array's order) and held until COMMIT/ROLLBACK;
   * keys this transaction already holds are skipped.
   */
  async lock(keys: readonly string[]): Promise<void> {
    const needed = keys.filter((key) => !this.locked.has(key));
    if (needed.length === 0) return;
    await this.client.query({ name: 'lock_aggregates', text: 'select pg_advisory_xact_lock(hashtextextended(key, 0)) from unnest($1::text[]) as key', values: [needed] });
    for (const key of needed) this.locked.add(key);
  }

  /**
   * The one end of a transaction. First its queries: the queue is closed (a query called later is
   * refused, TransactionEnded) and every query called before has settled, so none runs after the
   * end. Then its held writes are sent and COMMIT, or they are dropped and ROLLBACK.
   */
  private async finish(outcome: 'commit' | 'rollback'): Promise<void> {
    await this.queries.closeAndDrain();
    if (outcome === 'commit') await this.texts.flush();
    else this.texts.reset();
    await this.client.query(outcome);
  }
}

/**
 * What a transaction's connection is made of: the repositories on top of the queue that sends their
 * queries one at a time, each after the held text writes (`flushFirst`), and the texts the
 * transaction wrote. Exported for the tests that count a transaction's round trips on a client of
 * their own (test/store/postgres-write-behind.test.ts, test/store/text-memo.test.ts).
 */
export function connectionParts<C extends pg.ClientBase>(client: C, tables: Tables, onAuthWrite?: () => void) {
  const texts = new TransactionTextWrites(client);
  const queries = oneQueryAtATime(flushFirst(client, texts));
  const repositories = createRepositories(drizzle(queries.client as unknown as pg.Client) as unknown as Db, tables, postgresHotPath(queries.client, texts), {
    onAuthWrite,
    // A write of texts not made by the text write (an import's insert, a removal): forget every remembered row.
    onMessageTextsWrite: () => texts.forgetAll(),
  });
  return { repositories, queries, texts };
}

/**
 * Borrows a pooled client as a TransactionConnection (the same object for the same client, see
 * above). `ended` is told at the end of every transaction whether it wrote a table authentication
 * reads (auth-writes.ts).
 */
export function transactionConnections(pool: pg.Pool, tables: Tables, ended: (wroteAuth: boolean) => void): () => Promise<TransactionConnection> {
  const connections = new WeakMap<pg.PoolClient, TransactionConnection>();
  return async () => {
    const client = await pool.connect();
    let connection = connections.get(client);
    if (!connection) connections.set(client, (connection = new TransactionConnection(client, tables, ended)));
    return connection;
  };
}
