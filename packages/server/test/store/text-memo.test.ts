/**
 * Texts a PostgreSQL transaction wrote are read back from memory in that transaction
 * (src/store/postgres-text-writes.ts): one round trip less per text write in a group commit.
 * What is read that way must be exactly what the database holds, and the memo must forget what
 * it cannot know: removals, imports' inserts, another transaction.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgColumns } from '../../src/store/columns.js';
import { connectionParts } from '../../src/store/postgres-connection.js';
import { postgresHotPath } from '../../src/store/postgres-hot-path.js';
import type { SerialQueries } from '../../src/store/postgres-serial-queries.js';
import { TransactionTextWrites } from '../../src/store/postgres-text-writes.js';
import { createRepositories, type Repositories } from '../../src/store/repositories/index.js';
import { defineTables } from '../../src/store/schema.js';
import type { Db, Store } from '../../src/store/store.js';
import { type CountedPostgres, countedPostgres } from '../support/counted-postgres.js';
import { describeEachStore, openStoreForSuite } from '../support/instance.js';

const row = (fields: Record<string, string>, sequence = 1) => ({
  ownerId: 'o',
  messageType: 'VerifyEmail',
  language: 'en',
  fields,
  sequence,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  changedAt: new Date('2026-01-02T00:00:00.000Z'),
});

describe('the memo of texts a transaction wrote', () => {
  it('answers only within the transaction that wrote, with copies', () => {
    // No query is sent by what is tested here: the memo is memory only.
    const memo = new TransactionTextWrites(new pg.Client());
    memo.wrote(row({ title: 'a' }));
    const read = memo.read('o', 'VerifyEmail', 'en')!;
    expect(read).toEqual(row({ title: 'a' }));
    read.fields.title = 'changed by a caller';
    read.createdAt.setTime(0);
    expect(memo.read('o', 'VerifyEmail', 'en')).toEqual(row({ title: 'a' }));
    expect(memo.read('o', 'VerifyEmail', 'de')).toBeUndefined();
    memo.forget('o', 'VerifyEmail', 'en');
    expect(memo.read('o', 'VerifyEmail', 'en')).toBeUndefined();
    memo.wrote(row({ title: 'b' }));
    // The next transaction on the connection starts with a reset (store/postgres-connection.ts).
    memo.reset();
    expect(memo.read('o', 'VerifyEmail', 'en')).toBeUndefined();
  });
});

describe('PostgreSQL: a text written in a transaction is read back without a query', () => {
  let db: CountedPostgres;
  let client: pg.Client;
  let texts: TransactionTextWrites;
  let repos: Repositories;
  /** The database's rows, read in the same transaction without the memo (after the held writes). */
  let plain: Repositories;

  beforeAll(async () => {
    db = await countedPostgres();
    client = db.client;
    const tables = defineTables(pgColumns);
    let queries: SerialQueries<pg.Client>;
    ({ repositories: repos, texts, queries } = connectionParts(client, tables));
    plain = createRepositories(drizzle(queries.client) as unknown as Db, tables, postgresHotPath(queries.client));
  });
  afterAll(() => db.close());

  const event = { aggregateType: 'instance', aggregateId: 'memo-owner', type: 'instance.customtext.set', payload: {}, creator: 'u', resourceOwner: 'memo-owner' };
  const text = (fields: Record<string, string>, createdAt?: Date) => ({ ownerId: 'memo-owner', messageType: 'VerifyEmail', language: 'en', fields, createdAt });
  const counted = async <T>(fn: () => Promise<T>) => {
    const before = db.queries();
    const result = await fn();
    return { result, queries: db.queries() - before };
  };

  it('reads what the database holds, from memory after a write, from the database after anything else', async () => {
    texts.reset();
    await client.query('begin');
    expect((await counted(() => repos.messageTexts.get('memo-owner', 'VerifyEmail', 'en'))).result).toBeUndefined();
    const at = new Date('2026-03-04T05:06:07.089Z');
    await repos.messageTexts.setWithEvent(event, text({ title: 'Erst', text: 'eins' }), at);
    // Read back without a query, equal to the database's row (read without the memo, in this transaction).
    const afterFirst = await counted(() => repos.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(afterFirst.queries).toBe(0);
    expect(afterFirst.result).toEqual(await plain.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(afterFirst.result).toMatchObject({ sequence: 1, createdAt: at, changedAt: at, fields: { title: 'Erst', text: 'eins' } });

    // An existing text keeps its creation time.
    const later = new Date('2026-03-05T00:00:00.000Z');
    await repos.messageTexts.setWithEvent(event, text({ title: 'Zweit' }, afterFirst.result!.createdAt), later);
    const afterSecond = await counted(() => repos.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(afterSecond.queries).toBe(0);
    expect(afterSecond.result).toEqual(await plain.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(afterSecond.result).toMatchObject({ sequence: 2, createdAt: at, changedAt: later });

    // Removed: asked of the database again, which has none.
    await repos.messageTexts.remove('memo-owner', 'VerifyEmail', 'en');
    const afterRemove = await counted(() => repos.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(afterRemove.queries).toBe(1);
    expect(afterRemove.result).toBeUndefined();

    // Written again, then inserted by another repository (an import's bulk insert): forgotten.
    await repos.messageTexts.setWithEvent(event, text({ title: 'Dritt' }), at);
    await repos.transfer.insertMessageTexts([{ ...row({ title: 'importiert' }), ownerId: 'memo-owner', language: 'de' }]);
    const afterImport = await counted(() => repos.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(afterImport.queries).toBe(1);
    expect(afterImport.result?.fields).toEqual({ title: 'Dritt' });
    await client.query('commit');

    // The next transaction reads the database.
    texts.reset();
    await client.query('begin');
    const nextTransaction = await counted(() => repos.messageTexts.get('memo-owner', 'VerifyEmail', 'en'));
    expect(nextTransaction.queries).toBe(1);
    expect(nextTransaction.result?.fields).toEqual({ title: 'Dritt' });
    await client.query('rollback');
  });
});

describeEachStore('concurrent writes of one text', (dialect) => {
  let store: Store;
  openStoreForSuite(dialect, (opened) => (store = opened));

  it('each event records the change from the state the write before it left, as a write alone would', async () => {
    const owner = `concurrent-${dialect}`;
    const variants: Record<string, string>[] = [{ title: 'A', text: 'x' }, { title: 'B' }, { title: 'B', text: 'y', subject: 's' }, { text: 'y' }];
    // Started together, as concurrent requests: on both stores they share commits (group commit).
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.transaction(async (tx) => {
          const next: Record<string, string> = variants[i % variants.length];
          const current = await tx.messageTexts.get(owner, 'VerifyEmail', 'en');
          const previous: Record<string, string> = current?.fields ?? {};
          const keys = [...new Set([...Object.keys(previous), ...Object.keys(next)])];
          const set = Object.fromEntries(keys.filter((k) => next[k] !== undefined && next[k] !== previous[k]).map((k) => [k, next[k]]));
          const removed = keys.filter((k) => next[k] === undefined && previous[k] !== undefined);
          if (Object.keys(set).length === 0 && removed.length === 0) return;
          await tx.messageTexts.setWithEvent(
            { aggregateType: 'instance', aggregateId: owner, type: 'instance.customtext.set', payload: { set, removed }, creator: 'c', resourceOwner: owner },
            { ownerId: owner, messageType: 'VerifyEmail', language: 'en', fields: next, createdAt: current?.createdAt },
          );
        }),
      ),
    );
    const { events } = await store.read.events.search({ aggregateId: owner, limit: 100, offset: 0, asc: true });
    // Replaying the events from nothing gives the stored text; no event is empty.
    let replayed: Record<string, string> = {};
    for (const e of events) {
      const { set, removed } = e.payload as { set: Record<string, string>; removed: string[] };
      expect(Object.keys(set).length + removed.length).toBeGreaterThan(0);
      replayed = { ...replayed, ...set };
      for (const k of removed) delete replayed[k];
    }
    const stored = await store.read.messageTexts.get(owner, 'VerifyEmail', 'en');
    expect(replayed).toEqual(stored!.fields);
    expect(stored!.fields).toEqual(variants[39 % variants.length]);
    expect(stored!.sequence).toBe(events.at(-1)!.sequence);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.length).toBe(40);
    expect(stored!.createdAt).toEqual(events[0].createdAt);
  });
});
