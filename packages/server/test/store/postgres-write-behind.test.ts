/**
 * On PostgreSQL a text write to an aggregate the transaction already holds is held back and sent
 * with the others in one statement before the next query or COMMIT (src/store/postgres-text-writes.ts).
 * The repositories are a transaction connection's (connectionParts), on a client that counts queries.
 * What the database ends up with, and what every read of the transaction sees, must be what the
 * writes one by one would have left; a rollback leaves nothing; a write that cannot be stored
 * fails its own transaction only, as it did when sent at once.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgColumns } from '../../src/store/columns.js';
import { connectionParts } from '../../src/store/postgres-connection.js';
import { postgresHotPath } from '../../src/store/postgres-hot-path.js';
import type { TransactionTextWrites } from '../../src/store/postgres-text-writes.js';
import { createRepositories, type Repositories } from '../../src/store/repositories/index.js';
import { defineTables } from '../../src/store/schema.js';
import type { Db, Store } from '../../src/store/store.js';
import { type CountedPostgres, countedPostgres } from '../support/counted-postgres.js';
import { openTestStore } from '../support/instance.js';

const event = (owner: string, payload: Record<string, unknown> = {}) => ({
  aggregateType: 'instance',
  aggregateId: owner,
  type: 'instance.customtext.set',
  payload,
  creator: 'u',
  resourceOwner: owner,
});
const text = (owner: string, fields: Record<string, string>, language = 'en', createdAt?: Date) => ({ ownerId: owner, messageType: 'VerifyEmail', language, fields, createdAt });

describe('PostgreSQL: text writes held back within a transaction', () => {
  let db: CountedPostgres;
  let client: pg.Client;
  let repos: Repositories;
  /** The same connection without holding back: to compare with writes sent one by one. */
  let direct: Repositories;
  let texts: TransactionTextWrites;

  beforeAll(async () => {
    db = await countedPostgres();
    client = db.client;
    const tables = defineTables(pgColumns);
    ({ repositories: repos, texts } = connectionParts(client, tables));
    direct = createRepositories(drizzle(client) as unknown as Db, tables, postgresHotPath(client));
  });
  afterAll(() => db.close());

  /** As the connection begins (store/postgres-connection.ts): nothing held or known. */
  const begin = async () => {
    texts.reset();
    await client.query('begin');
  };
  /** As the connection commits (store/postgres-connection.ts): what is held is sent first. */
  const commit = async () => {
    await texts.flush();
    await client.query('commit');
  };
  const counted = async <T>(fn: () => Promise<T>) => {
    const before = db.queries();
    const result = await fn();
    return { result, queries: db.queries() - before };
  };
  const eventsOf = async (owner: string) => (await direct.events.search({ aggregateId: owner, limit: 100, offset: 0, asc: true })).events;

  it('the second write of an aggregate costs no query, and a read of the transaction sees both, in order', async () => {
    await begin();
    const at1 = new Date('2026-02-03T04:05:06.007Z');
    const at2 = new Date('2026-02-03T04:05:07.008Z');
    const first = await counted(() => repos.messageTexts.setWithEvent(event('wb-1', { n: 1 }), text('wb-1', { title: 'eins' }), at1));
    expect(first.queries).toBe(1);
    const second = await counted(() => repos.messageTexts.setWithEvent(event('wb-1', { n: 2 }), text('wb-1', { title: 'zwei', text: 'x' }, 'en', at1), at2));
    expect(second.queries).toBe(0);
    expect(second.result).toMatchObject({ sequence: 2, createdAt: at2 });
    // A read through the repositories sends the held write first: one query more, not a stale answer.
    const search = () => repos.events.search({ aggregateId: 'wb-1', limit: 10, offset: 0, asc: true });
    const read = await counted(search);
    const again = await counted(search);
    expect(read.queries).toBe(again.queries + 1);
    expect(again.result).toEqual(read.result);
    expect(read.result.events.map((e) => [e.sequence, e.payload])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    expect(read.result.events[1].position).toBeGreaterThan(read.result.events[0].position);
    await commit();
    expect(await direct.messageTexts.get('wb-1', 'VerifyEmail', 'en')).toEqual({
      ownerId: 'wb-1',
      messageType: 'VerifyEmail',
      language: 'en',
      fields: { title: 'zwei', text: 'x' },
      sequence: 2,
      createdAt: at1,
      changedAt: at2,
    });
  });

  it('many held writes leave exactly the rows the same writes sent one by one leave', async () => {
    const tricky = ['"quoted" and \\back\\slashed', 'ünïcødé ✓ {{.DisplayName}}', "it's, {a,b} [1] NULL", '', 'line\nbreak\ttab'];
    const write = async (r: Repositories, owner: string) => {
      await begin();
      const base = new Date('2026-05-01T00:00:00.000Z').getTime();
      let createdAt: Date | undefined;
      for (let i = 0; i < 12; i++) {
        const language = i % 3 === 0 ? 'de' : 'en';
        const fields: Record<string, string> = i % 4 === 3 ? { title: tricky[i % tricky.length] } : { title: `t${i}`, text: tricky[i % tricky.length] };
        const at = new Date(base + i * 1000);
        const current = await r.messageTexts.get(owner, 'VerifyEmail', language);
        await r.messageTexts.setWithEvent(event(owner, { i, note: tricky[i % tricky.length], nested: { list: [1, 'two', null] } }), text(owner, fields, language, current?.createdAt ?? createdAt), at);
        createdAt = undefined;
      }
      await commit();
    };
    await write(direct, 'wb-direct');
    const before = db.queries();
    await write(repos, 'wb-held');
    // begin, a read and the first write ('de'), a read of 'en' (not written yet), the eleven
    // writes after the first in one statement, commit; the direct writes take 12 statements for the writes alone.
    expect(db.queries() - before).toBe(6);
    const strip = (events: Awaited<ReturnType<typeof eventsOf>>) => events.map(({ position: _p, aggregateId: _a, resourceOwner: _r, ...rest }) => rest);
    const heldEvents = await eventsOf('wb-held');
    expect(strip(heldEvents)).toEqual(strip(await eventsOf('wb-direct')));
    expect(heldEvents.map((e) => e.sequence)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(heldEvents.map((e) => e.position)).toEqual([...heldEvents.map((e) => e.position)].sort((a, b) => a - b));
    for (const language of ['de', 'en']) {
      const held = await direct.messageTexts.get('wb-held', 'VerifyEmail', language);
      const sent = await direct.messageTexts.get('wb-direct', 'VerifyEmail', language);
      expect({ ...held, ownerId: 'x' }).toEqual({ ...sent, ownerId: 'x' });
    }
  });

  it('an event appended after held writes continues their sequence', async () => {
    await begin();
    await repos.messageTexts.setWithEvent(event('wb-2'), text('wb-2', { title: 'a' }));
    await repos.messageTexts.setWithEvent(event('wb-2'), text('wb-2', { title: 'b' }));
    const appended = await repos.events.append({ ...event('wb-2'), type: 'instance.customtext.template.removed' });
    expect(appended.sequence).toBe(3);
    await commit();
    expect((await eventsOf('wb-2')).map((e) => [e.sequence, e.type])).toEqual([
      [1, 'instance.customtext.set'],
      [2, 'instance.customtext.set'],
      [3, 'instance.customtext.template.removed'],
    ]);
  });

  it('a rollback leaves nothing, and the next transaction holds nothing back until it holds the aggregate', async () => {
    await begin();
    await repos.messageTexts.setWithEvent(event('wb-3'), text('wb-3', { title: 'a' }));
    await repos.messageTexts.setWithEvent(event('wb-3'), text('wb-3', { title: 'b' }));
    await client.query('rollback');
    expect(await eventsOf('wb-3')).toEqual([]);
    await begin();
    const first = await counted(() => repos.messageTexts.setWithEvent(event('wb-3'), text('wb-3', { title: 'c' })));
    expect(first.queries).toBe(1);
    expect(first.result.sequence).toBe(1);
    await commit();
    expect((await eventsOf('wb-3')).map((e) => e.sequence)).toEqual([1]);
  });
});

describe('PostgreSQL store: held writes in group commits', () => {
  let store: Store;
  beforeAll(async () => {
    ({ store } = await openTestStore('postgres'));
  });
  afterAll(async () => {
    await store.close();
  });

  it('a transaction whose held write cannot be stored fails alone; the others of its group keep theirs', async () => {
    const owner = 'wb-group';
    const results = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        store.transaction(async (tx) => {
          const first = await tx.messageTexts.setWithEvent(event(owner, { i }), text(owner, { title: `first ${i}` }));
          // jsonb refuses \u0000: the second write (held back) fails only when sent, at COMMIT.
          const payload = i % 6 === 5 ? { bad: 'nul \u0000 here' } : { i, second: true };
          const second = await tx.messageTexts.setWithEvent(event(owner, payload), text(owner, { title: `second ${i}` }));
          return [first.sequence, second.sequence];
        }),
      ),
    );
    const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    expect(failed).toEqual([5, 11, 17, 23]);
    const { events } = await store.read.events.search({ aggregateId: owner, limit: 100, offset: 0, asc: true });
    // Every successful transaction's two events, nothing of the failed ones, no gap.
    expect(events.length).toBe(40);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(events.some((e) => JSON.stringify(e.payload).includes('bad'))).toBe(false);
    for (const result of results) {
      if (result.status !== 'fulfilled') continue;
      const [first, second] = result.value;
      expect(second).toBe(first + 1);
      expect(events[first - 1].payload).toMatchObject({});
      expect(events[second - 1].payload).toMatchObject({ second: true });
    }
    const stored = await store.read.messageTexts.get(owner, 'VerifyEmail', 'en');
    expect(stored!.sequence).toBe(40);
    expect(stored!.fields.title).toMatch(/^second /);
  });
});
