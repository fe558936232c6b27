import { expect, it } from 'vitest';
import { bootstrapInstance } from '../../src/domain/instance/bootstrap.js';
import { openStore, type Store } from '../../src/store/store.js';
import { describeEachStore, freshPostgresDatabase, openStoreForSuite } from '../support/instance.js';

describeEachStore('the store and its event log', (dialect) => {
  let store: Store;
  openStoreForSuite(dialect, (opened) => (store = opened));

  it('a transaction that fails writes neither state nor events', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.events.append({ aggregateType: 'user', aggregateId: 'rollback', type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { events } = await store.read.events.search({ aggregateId: 'rollback', limit: 10, offset: 0, asc: true });
    expect(events).toEqual([]);
  });

  it('sequences count per aggregate, and concurrent writers on one aggregate both land with distinct sequences', async () => {
    const append = (id: string) =>
      store.transaction((tx) => tx.events.append({ aggregateType: 'user', aggregateId: id, type: 'user.metadata.set', payload: { id }, creator: 'c', resourceOwner: 'o' }));
    const results = await Promise.all(Array.from({ length: 8 }, () => append('race')));
    expect(results.map((e) => e.sequence).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await append('other')).sequence).toBe(1);
  });

  it('payloads and dates round-trip unchanged', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    await store.transaction((tx) =>
      tx.events.append({ aggregateType: 'user', aggregateId: 'rt', type: 'user.metadata.set', payload: { nested: { a: [1, 'b'] }, ok: true }, creator: 'c', resourceOwner: 'o' }, at),
    );
    const { events } = await store.read.events.search({ aggregateId: 'rt', limit: 1, offset: 0, asc: true });
    expect(events[0].payload).toEqual({ nested: { a: [1, 'b'] }, ok: true });
    expect(events[0].createdAt.toISOString()).toBe(at.toISOString());
  });

  it('bootstrap runs once: a second start creates nothing', async () => {
    const first = await bootstrapInstance(store, 'localhost');
    const second = await bootstrapInstance(store, 'localhost');
    expect(first.created?.token).toBeTruthy();
    expect(second.created).toBeUndefined();
    expect(second.instanceId).toBe(first.instanceId);
  });
});

it('two stores starting at once on one database bootstrap exactly one instance [postgres]', async () => {
  const url = await freshPostgresDatabase();
  const stores = await Promise.all([1, 2, 3].map(() => openStore({ dialect: 'postgres', target: url })));
  try {
    const results = await Promise.all(stores.map((s) => bootstrapInstance(s, 'localhost')));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.instanceId)).size).toBe(1);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});
