/**
 * The SQLite hot path (src/store/sqlite-hot-path.ts) runs hand-written SQL for the text read and
 * upsert and the event append. It must read and write the rows drizzle's schema describes: what one
 * writes, the other (test/support/drizzle-texts.ts for texts) reads back unchanged.
 */
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteColumns } from '../../src/store/columns.js';
import { createRepositories, type Repositories } from '../../src/store/repositories/index.js';
import { defineTables } from '../../src/store/schema.js';
import { sqliteHotPath } from '../../src/store/sqlite-hot-path.js';
import type { Db, Store } from '../../src/store/store.js';
import { drizzleMessageTexts } from '../support/drizzle-texts.js';
import { openTestStore } from '../support/instance.js';

describe('SQLite hot path and drizzle repositories', () => {
  let cleanup: () => void;
  let store: Store;
  let conn: Database.Database;
  /** The drizzle repositories (texts included), on their own connection; events are appended only by the hot path. */
  let viaDrizzle: Repositories;
  /** Only the hand-written statements, on the same file. */
  let hot: ReturnType<typeof sqliteHotPath>;

  beforeAll(async () => {
    const opened = await openTestStore('sqlite'); // migrates
    ({ store, cleanup } = opened);
    const path = opened.location.target;
    conn = new Database(path);
    hot = sqliteHotPath(conn);
    const db = drizzle(conn) as unknown as Db;
    const tables = defineTables(sqliteColumns);
    viaDrizzle = createRepositories(db, tables, { appendEvent: hot.appendEvent, messageTexts: drizzleMessageTexts(db, tables) });
  });
  afterAll(async () => {
    conn.close();
    await store.close();
    cleanup();
  });

  const row = (language: string, title: string) => ({
    ownerId: 'instance-1',
    messageType: 'VerifyEmail',
    language,
    fields: { title, text: 'ünïcødé ✓ "quoted" \n line' },
    sequence: 7,
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    changedAt: new Date('2026-02-03T04:05:06.789Z'),
  });

  it('a text written by the hot path reads back the same through drizzle, and the other way round', async () => {
    await hot.messageTexts.upsert(row('en', 'hot'));
    expect(await viaDrizzle.messageTexts.get('instance-1', 'VerifyEmail', 'en')).toEqual(row('en', 'hot'));

    await viaDrizzle.messageTexts.upsert(row('de', 'drizzle'));
    expect(await hot.messageTexts.get('instance-1', 'VerifyEmail', 'de')).toEqual(row('de', 'drizzle'));
    expect(await hot.messageTexts.get('instance-1', 'VerifyEmail', 'fr')).toBeUndefined();
  });

  it('an upsert of an existing text replaces fields, sequence and change date, and keeps the creation date', async () => {
    const changed = { ...row('en', 'second'), sequence: 8, createdAt: new Date('2030-01-01T00:00:00Z'), changedAt: new Date('2026-03-01T00:00:00.001Z') };
    await hot.messageTexts.upsert(changed);
    expect(await viaDrizzle.messageTexts.get('instance-1', 'VerifyEmail', 'en')).toEqual({ ...changed, createdAt: row('en', '').createdAt });
  });

  it('events it appends continue one sequence per aggregate and read back unchanged through drizzle', async () => {
    const at = new Date('2026-04-05T06:07:08.009Z');
    const event = { aggregateType: 'instance', aggregateId: 'agg-1', type: 'x.set', payload: { set: { title: 'a' }, removed: ['text'] }, creator: 'u1', resourceOwner: 'o1' };
    const appended = [await hot.appendEvent(event, at), await hot.appendEvent(event, at), await hot.appendEvent(event, at)];
    expect(appended.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(appended[2].position).toBeGreaterThan(appended[1].position);
    expect((await hot.appendEvent({ ...event, aggregateId: 'agg-2' }, at)).sequence).toBe(1);

    const { events } = await viaDrizzle.events.search({ aggregateId: 'agg-1', limit: 10, offset: 0, asc: true });
    expect(events).toEqual(appended);
  });

  it('the store uses the hot path inside its transactions (one commit holds text and event)', async () => {
    await store.transaction(async (tx) => {
      const event = await tx.events.append({ aggregateType: 'instance', aggregateId: 'agg-3', type: 'instance.customtext.set', payload: {}, creator: 'u', resourceOwner: 'o' });
      await tx.messageTexts.upsert({ ...row('it', 'in tx'), sequence: event.sequence });
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.events.append({ aggregateType: 'instance', aggregateId: 'agg-3', type: 'instance.customtext.set', payload: {}, creator: 'u', resourceOwner: 'o' });
        await tx.messageTexts.upsert({ ...row('it', 'rolled back'), sequence: 99 });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await store.read.messageTexts.get('instance-1', 'VerifyEmail', 'it'))?.fields.title).toBe('in tx');
    const { events } = await store.read.events.search({ aggregateId: 'agg-3', limit: 10, offset: 0, asc: true });
    expect(events.map((e) => e.sequence)).toEqual([1]);
  });
});
