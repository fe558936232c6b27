/**
 * The storage boundary's types: what the domain sees (`Store`, `Repositories`) and the lock a
 * command takes. Types only, and nothing of the two stores: sqlite.ts and postgres.ts implement
 * `Store` from here, while store.ts, which opens them, re-exports these for the rest of the
 * service. So no module of store/ imports back the module that loads it.
 */
import type { Repositories } from './repositories/index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly dialect: Dialect;
  /** Reads outside a transaction (on SQLite: a separate connection that sees only committed data). */
  readonly read: Repositories;
  /**
   * Runs `fn` in one transaction: every state change and its events commit together or not at all.
   * `locks` names the aggregates whose state `fn` reads to decide what it writes: they are locked
   * before `fn` runs, until the transaction ends, so two commands on one aggregate run one after
   * the other and each checks what the other committed (PostgreSQL's READ COMMITTED would
   * otherwise let both check the same old state). A lock need not name an aggregate: a check
   * across aggregates locks a key they share (a domain name, the instance's login names). `fn` may
   * run more than once (a failed group, a deadlock's victim): only its last run's result counts.
   * See ARCHITECTURE.md, "The event log".
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>, locks?: readonly AggregateLock[]): Promise<T>;
  /**
   * Runs `fn`, which sends **one** write statement of state that has no events and takes no lock
   * (oidc-provider's working state: oidc/adapter.ts), as a statement of its own. PostgreSQL runs it
   * on the pool outside BEGIN … COMMIT (one statement alone is atomic: two round trips fewer than a
   * transaction, 7 transactions per sign-in, BENCHMARKS.md "A sign-in's round trips"); SQLite as a
   * transaction of its queue (its one writer connection). Never for a table authentication reads
   * (auth-writes.ts: refused) nor for more than one statement (nothing would roll the first back).
   */
  statement<T>(fn: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Runs `fn` while no other process on this store runs it (first-start bootstrap). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Grows after every committed transaction of this process that wrote a table authentication
   * reads (see auth-writes.ts); what was derived from those tables under an older value may be stale.
   */
  authGeneration(): number;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** An aggregate a command locks: its type and id (`['user', userId]`). */
export type AggregateLock = readonly [aggregateType: string, aggregateId: string];
