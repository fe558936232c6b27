/**
 * A transaction's connection sends one query at a time, in call order, and none once its
 * transaction has ended.
 *
 * Why: domain code reads in parallel (`Promise.all` of a policy, an organisation and its domains,
 * say), which on the pool spreads over connections, and inside a transaction lands on one client.
 * node-postgres 8 queues such calls itself but warns ("Calling client.query() when the client is
 * already executing a query is deprecated and will be removed in pg@9.0"), once per process, in the
 * service's log; pg 9 drops that queue. The queue is kept here instead, where the store owns it.
 *
 * The store closes the queue and waits for it (`closeAndDrain`) before its COMMIT or ROLLBACK. So a
 * query called in a transaction runs in it even when its caller no longer waits for it (a
 * `Promise.all` that rejected early leaves its siblings behind), and one called after the
 * transaction ended is refused: with pg's own queue it would have run after the ROLLBACK, on its
 * own, or inside the connection's next borrower's transaction.
 */
import type pg from 'pg';

export interface SerialQueries<C> {
  /** The client whose `query` waits for the one before it. */
  client: C;
  /** A transaction starts on the connection: queries are sent again. */
  open(): void;
  /** The transaction ends: later queries are refused; settles once every query called before has. */
  closeAndDrain(): Promise<void>;
}

export class TransactionEnded extends Error {
  constructor() {
    super('a query was called after its transaction had ended (its caller did not wait for it); it was not sent');
  }
}

export function oneQueryAtATime<C extends pg.ClientBase>(client: C): SerialQueries<C> {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  /** The last query called, settled either way; undefined once it has settled and none followed. */
  let tail: Promise<void> | undefined;
  let closed = false;
  const wrapped = Object.create(client) as C;
  Object.defineProperty(wrapped, 'query', {
    value: (...args: unknown[]) => {
      if (closed) return Promise.reject(new TransactionEnded());
      // Nothing in flight (the usual case): sent at once, as pg would.
      const sent = tail === undefined ? query(...args) : tail.then(() => query(...args));
      const done: Promise<void> = sent.then(
        () => void (tail === done && (tail = undefined)),
        () => void (tail === done && (tail = undefined)),
      );
      tail = done;
      return sent;
    },
  });
  return {
    client: wrapped,
    open() {
      closed = false;
    },
    async closeAndDrain() {
      closed = true;
      while (tail !== undefined) await tail;
    },
  };
}
