import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

describeEachStore('audit trail: POST /admin/v1/events/_search', (dialect) => {
  let t: TestInstance;
  const search = (body: unknown, token?: string) => t.call('POST', '/admin/v1/events/_search', { body, token });
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  it('lists events newest first with editor, aggregate, sequence and payload; filters combine', async () => {
    const writer = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER'] });
    const before = new Date(Date.now() - 1);
    const { id } = await (await t.call('POST', '/management/v1/projects', { token: writer.token, body: { name: 'Audited' } })).json();
    await t.call('POST', `/management/v1/projects/${id}/roles`, { token: writer.token, body: { roleKey: 'r', displayName: 'R' } });

    const res = await search({ editorUserId: writer.userId });
    expect(res.status).toBe(200);
    const { events } = await res.json();
    expect(events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['project.role.added', 'project.member.added', 'project.added']);
    expect(events[2]).toMatchObject({
      editor: { userId: writer.userId },
      aggregate: { id, type: { type: 'project' }, resourceOwner: t.defaultOrgId },
      sequence: '1',
      payload: { name: 'Audited' },
    });
    expect(Date.parse(events[2].creationDate)).toBeGreaterThanOrEqual(before.getTime());

    const asc = await (await search({ aggregateId: id, asc: true, limit: 2 })).json();
    expect(asc.events.map((e: { sequence: string }) => e.sequence)).toEqual(['1', '2']);
    const paged = await (await search({ aggregateId: id, asc: true, limit: 2, offset: '2' })).json();
    expect(paged.events.map((e: { sequence: string }) => e.sequence)).toEqual(['3']);
    const typed = await (await search({ aggregateTypes: ['project'], eventTypes: ['project.role.added'], editorUserId: writer.userId })).json();
    expect(typed.events).toHaveLength(1);
    const windowed = await (await search({ editorUserId: writer.userId, range: { since: before.toISOString(), until: new Date(Date.now() + 1000).toISOString() } })).json();
    expect(windowed.events).toHaveLength(3);
    // `from` is where the reading starts (ZITADEL): at or after it oldest first, at or before it newest first.
    const future = await (await search({ editorUserId: writer.userId, from: new Date(Date.now() + 60_000).toISOString(), asc: true })).json();
    expect(future.events).toEqual([]);
    const upToNow = await (await search({ editorUserId: writer.userId, from: new Date(Date.now() + 60_000).toISOString() })).json();
    expect(upToNow.events).toHaveLength(3);
    const owned = await (await search({ resourceOwner: 'nobody' })).json();
    expect(owned.events).toEqual([]);
  });

  it('events.read: IAM_OWNER_VIEWER may read, ORG_OWNER may not; bad input is 400', async () => {
    const viewer = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect((await search({}, viewer.token)).status).toBe(200);
    const orgOwner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    expect((await search({}, orgOwner.token)).status).toBe(403);
    expect((await t.call('POST', '/admin/v1/events/_search', { token: null, body: {} })).status).toBe(401);
    expect((await search({ limit: 1001 })).status).toBe(400);
    expect((await search({ from: 'yesterday' })).status).toBe(400);
    expect((await search({ from: new Date().toISOString(), range: {} })).status).toBe(400);
  });
});
