/**
 * SQLite's reader keeps its text reads until the database changes (src/store/sqlite-read-cache.ts):
 * after this process's commits at once; after another process's (`PRAGMA data_version`, asked once
 * per event-loop turn) from the next turn on.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteReadCache } from '../../src/store/sqlite-read-cache.js';
import type { Store } from '../../src/store/store.js';
import { openTestStore } from '../support/instance.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('SQLite reads kept until the database changes', () => {
  let cleanup: () => void;
  let file: string;
  let store: Store;
  /** Another connection to the file: what another process would write. */
  let other: Database.Database;

  beforeAll(async () => {
    const opened = await openTestStore('sqlite');
    ({ store, cleanup } = opened);
    file = opened.location.target;
    other = new Database(file);
  });
  afterAll(async () => {
    other.close();
    await store.close();
    cleanup();
  });

  it("reads again after a commit of this process at once, after another connection's from the next turn", async () => {
    const reader = new Database(file);
    let commits = 0;
    const cache = new SqliteReadCache<{ n: number }>(
      reader,
      (v) => ({ ...v }),
      () => commits,
    );
    let reads = 0;
    const read = () => {
      reads++;
      return { n: reads };
    };
    expect(cache.get('k', read)).toEqual({ n: 1 });
    expect(cache.get('k', read)).toEqual({ n: 1 });
    await nextTurn();
    expect(cache.get('k', read)).toEqual({ n: 1 });
    expect(reads).toBe(1);
    // This process committed: read again at once.
    commits++;
    expect(cache.get('k', read)).toEqual({ n: 2 });
    // Another connection committed: within this turn the turn's answer stands; from the next, read again.
    other.prepare("insert into aggregate_sequences (aggregate_type, aggregate_id, sequence) values ('x', 'read-cache', 1)").run();
    expect(cache.get('k', read)).toEqual({ n: 2 });
    await nextTurn();
    expect(cache.get('k', read)).toEqual({ n: 3 });
    // Absent is kept too, until the next change.
    expect(cache.get('absent', () => undefined)).toBeUndefined();
    expect(cache.get('absent', () => ({ n: 99 }))).toBeUndefined();
    other.prepare("update aggregate_sequences set sequence = 2 where aggregate_id = 'read-cache'").run();
    await nextTurn();
    expect(cache.get('absent', () => ({ n: 99 }))).toEqual({ n: 99 });
    // Callers get copies.
    const value = cache.get('k', read)!;
    value.n = -1;
    expect(cache.get('k', read)!.n).not.toBe(-1);
    reader.close();
  });

  const setText = (title: string) =>
    store.transaction((tx) =>
      tx.messageTexts.setWithEvent(
        { aggregateType: 'instance', aggregateId: 'rc-owner', type: 'instance.customtext.set', payload: { title }, creator: 'c', resourceOwner: 'rc-owner' },
        { ownerId: 'rc-owner', messageType: 'VerifyEmail', language: 'en', fields: { title } },
      ),
    );
  const readTitle = async () => (await store.read.messageTexts.get('rc-owner', 'VerifyEmail', 'en'))?.fields.title;

  it("the store's reads see its own writes at once, another process's from the next turn", async () => {
    expect(await readTitle()).toBeUndefined();
    await setText('first');
    expect(await readTitle()).toBe('first');
    expect(await readTitle()).toBe('first');
    await setText('second');
    expect(await readTitle()).toBe('second');
    other.prepare(`update message_texts set fields = '{"title":"from elsewhere"}' where owner_id = 'rc-owner'`).run();
    await nextTurn();
    expect(await readTitle()).toBe('from elsewhere');
    other.prepare(`delete from message_texts where owner_id = 'rc-owner'`).run();
    await nextTurn();
    expect(await readTitle()).toBeUndefined();
  });

  it('what a caller changes in a row it read is not what the next caller reads', async () => {
    await setText('kept');
    const row = (await store.read.messageTexts.get('rc-owner', 'VerifyEmail', 'en'))!;
    row.fields.title = 'changed by a caller';
    row.createdAt.setTime(0);
    const again = (await store.read.messageTexts.get('rc-owner', 'VerifyEmail', 'en'))!;
    expect(again.fields.title).toBe('kept');
    expect(again.createdAt.getTime()).not.toBe(0);
  });
});
