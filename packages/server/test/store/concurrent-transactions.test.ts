/**
 * Transactions started together (as concurrent requests start them). On both stores queued
 * transactions share one commit (store/sqlite.ts, store/postgres-group-commit.ts: group commit); each must still
 * behave as if it had committed alone: it fails alone, and its caller hears of success only once it
 * is durable and visible to readers.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { UniqueViolation } from '../../src/domain/errors.js';
import { openStore, type Store } from '../../src/store/store.js';
import { describeEachStore, openStoreForSuite, openTestStore } from '../support/instance.js';

describeEachStore('concurrent transactions', (dialect) => {
  let store: Store;
  openStoreForSuite(dialect, (opened) => (store = opened));

  const event = (aggregateId: string, n = 0) => ({ aggregateType: 'user', aggregateId, type: 'user.metadata.set', payload: { n }, creator: 'c', resourceOwner: 'o' });
  const count = async (aggregateId: string) => (await store.read.events.search({ aggregateId, limit: 100, offset: 0, asc: true })).events.length;

  it('a caller is answered only once its transaction is visible to readers', async () => {
    const seenAtResolve = await Promise.all(Array.from({ length: 20 }, (_, i) => store.transaction((tx) => tx.events.append(event(`visible-${i}`))).then(() => count(`visible-${i}`))));
    expect(seenAtResolve).toEqual(Array(20).fill(1));
  });

  it('one failing transaction among many fails alone; the others keep all their writes', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        store.transaction(async (tx) => {
          await tx.events.append(event(`mixed-${i}`, 1));
          await tx.events.append(event(`mixed-${i}`, 2));
          if (i % 4 === 1) throw new Error(`boom ${i}`);
          return i;
        }),
      ),
    );
    for (const [i, result] of results.entries()) {
      if (i % 4 === 1) {
        expect(result).toMatchObject({ status: 'rejected', reason: { message: `boom ${i}` } });
        expect(await count(`mixed-${i}`)).toBe(0);
      } else {
        expect(result).toEqual({ status: 'fulfilled', value: i });
        expect(await count(`mixed-${i}`)).toBe(2);
      }
    }
  });

  it('a unique violation inside one transaction is reported as such and undoes only that transaction', async () => {
    const at = new Date();
    const results = await Promise.allSettled([
      store.transaction((tx) => tx.events.append(event('uv-before'))),
      store.transaction(async (tx) => {
        await tx.events.append(event('uv-self'));
        // Two tokens with one hash break the unique index on token_hash.
        const row = { userId: 'u', tokenHash: 'same-hash', expiresAt: at, sequence: 1, createdAt: at, changedAt: at };
        await tx.tokens.insert({ id: 'uv-1', ...row });
        await tx.tokens.insert({ id: 'uv-2', ...row });
      }),
      store.transaction((tx) => tx.events.append(event('uv-after'))),
    ]);
    expect(results[0].status).toBe('fulfilled');
    expect(results[1]).toMatchObject({ status: 'rejected' });
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolation);
    expect(results[2].status).toBe('fulfilled');
    expect([await count('uv-before'), await count('uv-self'), await count('uv-after')]).toEqual([1, 0, 1]);
  });

  it('sequences of one aggregate stay gapless when many writers share it', async () => {
    const appended = await Promise.all(Array.from({ length: 30 }, (_, n) => store.transaction((tx) => tx.events.append(event('shared', n)))));
    expect(appended.map((e) => e.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await count('shared')).toBe(30);
  });
});

describe('group commit on PostgreSQL', () => {
  it('writes that arrive in one turn of the event loop share one transaction, the first of them too', async () => {
    const { store, cleanup } = await openTestStore('postgres');
    // Counted on the driver itself: every transaction the store runs opens with one BEGIN.
    const query = pg.Client.prototype.query;
    let begins = 0;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (args[0] === 'begin') begins++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const event = (aggregateId: string) => ({ aggregateType: 'user', aggregateId, type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' });
      // As concurrent requests reach the store: one after the other, in the same turn. The first
      // used to start a transaction of its own at once, and the others a second one behind it.
      const sequences = await Promise.all(Array.from({ length: 5 }, (_, i) => store.transaction((tx) => tx.events.append(event(`one-turn-${i}`)))));
      expect(sequences.map((appended) => appended.sequence)).toEqual([1, 1, 1, 1, 1]);
      expect(begins).toBe(1);
    } finally {
      pg.Client.prototype.query = query;
      await store.close();
      cleanup();
    }
  });

  it('a long transaction holds up only its own group: a write queued behind it is answered long before it ends', async () => {
    const { store, cleanup } = await openTestStore('postgres');
    try {
      const event = (aggregateId: string) => ({ aggregateType: 'user', aggregateId, type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' });
      // An import-like transaction: 2 s before it appends and commits.
      const long = store.transaction(async (tx) => {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return tx.events.append(event('long'));
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      await store.transaction((tx) => tx.events.append(event('short')));
      // Another runner starts once the group has run 250 ms (store/postgres-group-commit.ts, STALLED_MS).
      expect(performance.now() - started).toBeLessThan(1000);
      expect((await long).sequence).toBe(1);
    } finally {
      await store.close();
      cleanup();
    }
  });

  it("a transaction chosen as a deadlock's victim runs again instead of failing", async () => {
    // Another process's group can hold a row lock and then ask for an advisory lock that a
    // transaction running alone holds while it waits for that row: PostgreSQL breaks the cycle by
    // rolling one of them back (here the store's, which waited first and so detects it).
    const { store, location, cleanup } = await openTestStore('postgres');
    const other = new pg.Client({ connectionString: location.target });
    await other.connect();
    try {
      const event = { aggregateType: 'user', aggregateId: 'deadlock', type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' };
      await store.transaction((tx) => tx.events.append(event));
      await other.query('begin');
      await other.query("select * from aggregate_sequences where aggregate_type = 'user' and aggregate_id = 'deadlock' for update");
      const mine = store.transaction((tx) => tx.events.append(event), [['user', 'deadlock']]);
      // The store's transaction holds its advisory lock and waits for the row.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const theirs = other.query("select pg_advisory_xact_lock(hashtextextended('user:deadlock', 0))").then(() => other.query('commit'));
      await theirs;
      expect((await mine).sequence).toBe(2);
    } finally {
      await other.end();
      await store.close();
      cleanup();
    }
  });
});

describeEachStore('closing a store', (dialect) => {
  it('lets the transactions already queued run and commit before the connections go', async () => {
    const { store, location, cleanup } = await openTestStore(dialect);
    const event = (aggregateId: string) => ({ aggregateType: 'user', aggregateId, type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' });
    try {
      // One running (a request's transaction still at work), five queued behind it, then close (a shutdown).
      const running = store.transaction(async (tx) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return tx.events.append(event('close-running'));
      });
      const queued = Array.from({ length: 5 }, (_, i) => store.transaction((tx) => tx.events.append(event(`close-queued-${i}`))));
      await store.close();
      const results = await Promise.allSettled([running, ...queued]);
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(Array(6).fill('fulfilled'));
      const reopened = await openStore(location);
      try {
        for (const id of ['close-running', ...queued.map((_, i) => `close-queued-${i}`)]) {
          expect((await reopened.read.events.search({ aggregateId: id, limit: 10, offset: 0, asc: true })).events.length).toBe(1);
        }
      } finally {
        await reopened.close();
      }
    } finally {
      cleanup();
    }
  });
});
