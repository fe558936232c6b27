/**
 * The PostgreSQL event append (src/store/postgres-hot-path.ts) is one hand-written statement:
 * it must continue one sequence per aggregate and store rows that drizzle's reads give back
 * exactly as the append returned them. The message text's read and upsert there must read and
 * write the same rows as drizzle's, and a user grant's removal with its event must leave what the
 * append and drizzle's delete leave.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgColumns } from '../../src/store/columns.js';
import { postgresHotPath } from '../../src/store/postgres-hot-path.js';
import { createRepositories, type Repositories } from '../../src/store/repositories/index.js';
import { defineTables } from '../../src/store/schema.js';
import type { Db, Store } from '../../src/store/store.js';
import { drizzleMessageTexts } from '../support/drizzle-texts.js';
import { openTestStore } from '../support/instance.js';

describe('PostgreSQL hot path and drizzle repositories', () => {
  let store: Store;
  let client: pg.Client;
  let viaDrizzle: Repositories;
  let hot: ReturnType<typeof postgresHotPath>;

  beforeAll(async () => {
    const opened = await openTestStore('postgres'); // migrates
    store = opened.store;
    const url = opened.location.target;
    client = new pg.Client({ connectionString: url });
    await client.connect();
    hot = postgresHotPath(client);
    viaDrizzle = createRepositories(drizzle(client) as unknown as Db, defineTables(pgColumns), hot);
  });
  afterAll(async () => {
    await client.end();
    await store.close();
  });

  it('events it appends continue one sequence per aggregate and read back unchanged through drizzle', async () => {
    const at = new Date('2026-04-05T06:07:08.009Z');
    const event = { aggregateType: 'instance', aggregateId: 'agg-1', type: 'x.set', payload: { set: { title: 'ünïcødé "q"' }, removed: ['text'], n: 1 }, creator: 'u1', resourceOwner: 'o1' };
    const appended = [await hot.appendEvent(event, at), await hot.appendEvent(event, at), await hot.appendEvent(event, at)];
    expect(appended.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(typeof appended[0].position).toBe('number');
    expect(appended[2].position).toBeGreaterThan(appended[1].position);
    expect((await hot.appendEvent({ ...event, aggregateId: 'agg-2' }, at)).sequence).toBe(1);

    const { events } = await viaDrizzle.events.search({ aggregateId: 'agg-1', limit: 10, offset: 0, asc: true });
    expect(events).toEqual(appended);
  });

  it('the store appends through it inside transactions, and a rolled-back append leaves no gap', async () => {
    const append = () => store.transaction((tx) => tx.events.append({ aggregateType: 'user', aggregateId: 'agg-3', type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' }));
    expect((await append()).sequence).toBe(1);
    await expect(
      store.transaction(async (tx) => {
        await tx.events.append({ aggregateType: 'user', aggregateId: 'agg-3', type: 'user.metadata.set', payload: {}, creator: 'c', resourceOwner: 'o' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await append()).sequence).toBe(2);
    // Concurrent writers of one aggregate queue on its sequence row: distinct, gapless.
    const results = await Promise.all(Array.from({ length: 8 }, append));
    expect(results.map((e) => e.sequence).sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('message texts it writes read back the same through drizzle, and the other way round', async () => {
    const drizzleTexts = drizzleMessageTexts(drizzle(client) as unknown as Db, defineTables(pgColumns));
    const row = {
      ownerId: 'owner-1',
      messageType: 'VerifyEmail',
      language: 'de',
      fields: { title: 'Tïtel "q"', text: 'Hallo {{.DisplayName}}\nzweite Zeile' },
      sequence: 7,
      createdAt: new Date('2026-04-05T06:07:08.009Z'),
      changedAt: new Date('2026-04-05T06:07:09.010Z'),
    };
    await hot.messageTexts!.upsert(row);
    expect(await drizzleTexts.get('owner-1', 'VerifyEmail', 'de')).toEqual(row);
    expect(await hot.messageTexts!.get('owner-1', 'VerifyEmail', 'de')).toEqual(row);
    // An upsert of an existing row changes fields, sequence and changedAt, never createdAt.
    const changed = { ...row, fields: { title: 'Neu' }, sequence: 8, createdAt: new Date('2030-01-01T00:00:00.000Z'), changedAt: new Date('2026-04-06T00:00:00.000Z') };
    await hot.messageTexts!.upsert(changed);
    expect(await drizzleTexts.get('owner-1', 'VerifyEmail', 'de')).toEqual({ ...changed, createdAt: row.createdAt });
    await drizzleTexts.upsert({ ...row, language: 'fr' });
    expect(await hot.messageTexts!.get('owner-1', 'VerifyEmail', 'fr')).toEqual({ ...row, language: 'fr' });
    expect(await hot.messageTexts!.get('owner-1', 'VerifyEmail', 'it')).toBeUndefined();
  });

  it('a text and its event in one statement: the same rows as the event append and the upsert one after the other', async () => {
    const at = new Date('2026-05-06T07:08:09.010Z');
    const later = new Date('2026-05-07T00:00:00.000Z');
    const event = {
      aggregateType: 'instance',
      aggregateId: 'agg-text',
      type: 'instance.customtext.set',
      payload: { template: 'VerifyEmail', language: 'nl', set: { title: 'Tïtel' }, removed: [] },
      creator: 'u1',
      resourceOwner: 'agg-text',
    };
    const text = { ownerId: 'agg-text', messageType: 'VerifyEmail', language: 'nl', fields: { title: 'Tïtel "q"', text: 'Hallo\nwereld' } };
    const drizzleTexts = drizzleMessageTexts(drizzle(client) as unknown as Db, defineTables(pgColumns));

    // A new text: created and changed at the event's time, with its sequence.
    const first = await hot.setTextWithEvent!(event, text, at);
    expect(first.sequence).toBe(1);
    expect(await drizzleTexts.get('agg-text', 'VerifyEmail', 'nl')).toEqual({ ...text, sequence: 1, createdAt: at, changedAt: at });
    // An existing text keeps its creation time; the event continues the aggregate's sequence.
    const second = await hot.setTextWithEvent!(event, { ...text, fields: { title: 'Neu' }, createdAt: at }, later);
    expect(second.sequence).toBe(2);
    expect(await drizzleTexts.get('agg-text', 'VerifyEmail', 'nl')).toEqual({ ...text, fields: { title: 'Neu' }, sequence: 2, createdAt: at, changedAt: later });
    const { events } = await viaDrizzle.events.search({ aggregateId: 'agg-text', limit: 10, offset: 0, asc: true });
    expect(events).toEqual([first, second]);
    // The repositories' generic path (two calls) writes the same.
    const twoCalls = createRepositories(drizzle(client) as unknown as Db, defineTables(pgColumns), { ...hot, setTextWithEvent: undefined });
    const separately = await twoCalls.messageTexts.setWithEvent(event, { ...text, language: 'fy' }, at);
    expect(separately.sequence).toBe(3);
    expect(await drizzleTexts.get('agg-text', 'VerifyEmail', 'fy')).toEqual({ ...text, language: 'fy', sequence: 3, createdAt: at, changedAt: at });
  });

  it('a user grant removed with its event in one statement: the same as the read, the event append and the delete one after the other', async () => {
    const tables = defineTables(pgColumns);
    const grantRow = (id: string) => ({
      id,
      orgId: 'org-g',
      userId: `user-${id}`,
      projectId: 'project-g',
      projectGrantId: id === 'grant-2' ? 'pg-1' : null,
      roleKeys: ['reader'],
      state: 'USER_GRANT_STATE_ACTIVE',
      sequence: 1,
      createdAt: new Date('2026-05-06T07:08:09.010Z'),
      changedAt: new Date('2026-05-06T07:08:09.010Z'),
    });
    const removal = { aggregateType: 'usergrant', type: 'user.grant.removed', creator: 'u1' };
    const separately = createRepositories(drizzle(client) as unknown as Db, tables, { ...hot, takeUserGrantWithEvent: undefined });
    for (const id of ['grant-1', 'grant-2', 'grant-keep']) await viaDrizzle.userGrants.insert(grantRow(id));
    // Both grants had an event before (added): the removal continues their sequences.
    for (const id of ['grant-1', 'grant-2']) {
      await hot.appendEvent({ ...removal, aggregateId: id, type: 'user.grant.added', payload: {}, resourceOwner: 'org-g' });
    }
    const sequenceRows = async () => (await client.query('select aggregate_id, sequence from aggregate_sequences order by aggregate_id')).rows;
    const before = await sequenceRows();

    // No such grant: another user's, another organisation's, an unknown one. Nothing written by either path.
    for (const repositories of [viaDrizzle, separately]) {
      expect(await repositories.userGrants.takeInOrgWithEvent('grant-keep', 'org-g', 'user-grant-1', removal)).toBeUndefined();
      expect(await repositories.userGrants.takeInOrgWithEvent('grant-keep', 'org-other', 'user-grant-keep', removal)).toBeUndefined();
      expect(await repositories.userGrants.takeInOrgWithEvent('nope', 'org-g', 'user-nope', removal)).toBeUndefined();
    }
    expect(await sequenceRows()).toEqual(before);
    expect(await viaDrizzle.userGrants.getInOrg('grant-keep', 'org-g')).toEqual(grantRow('grant-keep'));

    const oneStatement = await viaDrizzle.userGrants.takeInOrgWithEvent('grant-1', 'org-g', 'user-grant-1', removal);
    const twoCalls = await separately.userGrants.takeInOrgWithEvent('grant-2', 'org-g', 'user-grant-2', removal);
    expect([oneStatement?.projectId, oneStatement?.projectGrantId]).toEqual(['project-g', null]);
    expect([twoCalls?.projectId, twoCalls?.projectGrantId]).toEqual(['project-g', 'pg-1']);
    expect([oneStatement?.event.sequence, twoCalls?.event.sequence]).toEqual([2, 2]);
    expect(oneStatement?.event.position).toBeGreaterThan(0);
    for (const [id, taken] of [
      ['grant-1', oneStatement],
      ['grant-2', twoCalls],
    ] as const) {
      expect(await viaDrizzle.userGrants.getInOrg(id, 'org-g')).toBeUndefined();
      const { events } = await viaDrizzle.events.search({ aggregateId: id, limit: 10, offset: 0, asc: true });
      expect(events.map((e) => e.type)).toEqual(['user.grant.added', 'user.grant.removed']);
      // As stored, and as answered: the payload built in SQL is the generic path's.
      expect(events[1]).toEqual(taken?.event);
      expect(events[1]).toMatchObject({ aggregateId: id, resourceOwner: 'org-g', creator: 'u1', payload: { userId: `user-${id}`, projectId: 'project-g' } });
    }
    // Only the named grant goes.
    expect(await viaDrizzle.userGrants.getInOrg('grant-keep', 'org-g')).toEqual(grantRow('grant-keep'));
  });
});
