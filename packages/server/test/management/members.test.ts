import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

describeEachStore('members, and a machine user acting through its organisation role', (dialect) => {
  let t: TestInstance;
  let orgA: string;
  let orgB: string;
  let humanId: string;
  let machineId: string;
  let machineToken: string;
  const asAdminIn = (org: string) => (method: string, path: string, body?: unknown) => t.call(method, path, { body, headers: { 'x-service-orgid': org } });
  const asMachineIn = (org: string | undefined) => (method: string, path: string, body?: unknown) =>
    t.call(method, path, { body, token: machineToken, headers: org ? { 'x-service-orgid': org } : {} });

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgA = (await (await t.call('POST', '/management/v1/orgs', { body: { name: 'Org A' } })).json()).id;
    orgB = (await (await t.call('POST', '/management/v1/orgs', { body: { name: 'Org B' } })).json()).id;
    const inA = asAdminIn(orgA);
    humanId = (
      await (
        await inA('POST', '/management/v1/users/human/_import', {
          userName: 'hum',
          profile: { firstName: 'Hu', lastName: 'Man' },
          email: { email: 'hu@example.com', isEmailVerified: true },
          password: 'Passw0rd!',
        })
      ).json()
    ).userId;
    machineId = (await (await inA('POST', '/management/v1/users/machine', { userName: 'bot', name: 'Bot' })).json()).userId;
    machineToken = (await (await inA('POST', `/management/v1/users/${machineId}/pats`, {})).json()).token;
  });
  afterAll(() => t.close());

  it('a machine user without memberships authenticates but may do nothing', async () => {
    const res = await asMachineIn(undefined)('POST', '/management/v1/users/_search', {});
    expect(res.status).toBe(403);
  });

  it('ORG_USER_MANAGER of A reads users in A, gets 403 in B and on the admin API', async () => {
    const add = await asAdminIn(orgA)('POST', '/management/v1/orgs/me/members', { userId: machineId, roles: ['ORG_USER_MANAGER'] });
    expect(add.status).toBe(200);
    expect((await add.json()).details.resourceOwner).toBe(orgA);

    const inA = asMachineIn(orgA);
    const list = await inA('POST', '/management/v1/users/_search', {});
    expect(list.status).toBe(200);
    expect((await list.json()).result.map((u: { id: string }) => u.id).sort()).toEqual([humanId, machineId].sort());
    expect((await inA('GET', `/management/v1/users/${humanId}`)).status).toBe(200);
    // Without the header the machine user acts in its own organisation, A.
    expect((await asMachineIn(undefined)('GET', `/management/v1/users/${humanId}`)).status).toBe(200);

    const inB = asMachineIn(orgB);
    expect((await inB('POST', '/management/v1/users/_search', {})).status).toBe(403);
    expect((await inB('GET', `/management/v1/users/${humanId}`)).status).toBe(403);
    expect((await inB('POST', '/management/v1/users/machine', { userName: 'x', name: 'x' })).status).toBe(403);

    expect((await inA('POST', '/admin/v1/orgs/_search', {})).status).toBe(403);
    expect((await inA('GET', `/admin/v1/orgs/${orgA}`)).status).toBe(403);
    expect((await inA('POST', '/admin/v1/members/_search', {})).status).toBe(403);
    expect((await inA('POST', '/admin/v1/members', { userId: machineId, roles: ['IAM_OWNER'] })).status).toBe(403);
    // ORG_USER_MANAGER has no org.member.write: it cannot raise its own roles.
    expect((await inA('PUT', `/management/v1/orgs/me/members/${machineId}`, { roles: ['ORG_OWNER'] })).status).toBe(403);
  });

  it('org members: 409 for a duplicate, 400 for foreign roles or a missing user, update and remove with events', async () => {
    const inA = asAdminIn(orgA);
    const dup = await inA('POST', '/management/v1/orgs/me/members', { userId: machineId, roles: ['ORG_OWNER'] });
    expect(dup.status).toBe(409);
    expect((await dup.json()).code).toBe(6);

    const wrongRole = await inA('POST', '/management/v1/orgs/me/members', { userId: humanId, roles: ['IAM_OWNER'] });
    expect(wrongRole.status).toBe(400);
    expect((await wrongRole.json()).message).toContain('roles');
    const noRoles = await inA('POST', '/management/v1/orgs/me/members', { userId: humanId, roles: [] });
    expect(noRoles.status).toBe(400);
    expect((await noRoles.json()).message).toContain('roles');
    const ghost = await inA('POST', '/management/v1/orgs/me/members', { userId: 'nobody', roles: ['ORG_OWNER'] });
    expect(ghost.status).toBe(400);
    expect((await ghost.json()).details[0].id).toBe('ORG-GoXOn');

    expect((await inA('POST', '/management/v1/orgs/me/members', { userId: humanId, roles: ['ORG_OWNER_VIEWER'] })).status).toBe(200);
    const search = await (await inA('POST', '/management/v1/orgs/me/members/_search', {})).json();
    // The admin became ORG_OWNER when creating the organisation.
    expect(search.details.totalResult).toBe('3');
    const human = search.result.find((m: { userId: string }) => m.userId === humanId);
    expect(human).toMatchObject({
      roles: ['ORG_OWNER_VIEWER'],
      userType: 'TYPE_HUMAN',
      email: 'hu@example.com',
      firstName: 'Hu',
      lastName: 'Man',
      displayName: 'Hu Man',
      preferredLoginName: 'hum@org-a.localhost',
      details: { resourceOwner: orgA },
    });
    const one = await (await inA('POST', '/management/v1/orgs/me/members/_search', { queries: [{ userIdQuery: { userId: machineId } }] })).json();
    expect(one.result).toEqual([expect.objectContaining({ userId: machineId, userType: 'TYPE_MACHINE', displayName: 'Bot', roles: ['ORG_USER_MANAGER'] })]);

    const update = await inA('PUT', `/management/v1/orgs/me/members/${humanId}`, { roles: ['ORG_OWNER_VIEWER', 'ORG_SETTINGS_MANAGER'] });
    expect(update.status).toBe(200);
    expect((await t.store.read.members.get('org', orgA, humanId))?.roles).toEqual(['ORG_OWNER_VIEWER', 'ORG_SETTINGS_MANAGER']);
    expect((await inA('PUT', '/management/v1/orgs/me/members/nobody', { roles: ['ORG_OWNER'] })).status).toBe(404);
    expect((await inA('PUT', `/management/v1/orgs/me/members/${humanId}`, { roles: ['PROJECT_OWNER'] })).status).toBe(400);

    expect((await inA('DELETE', `/management/v1/orgs/me/members/${humanId}`)).status).toBe(200);
    expect((await inA('DELETE', `/management/v1/orgs/me/members/${humanId}`)).status).toBe(404);
    const { events } = await t.store.read.events.search({ aggregateId: orgA, limit: 3, offset: 0, asc: false });
    expect(events.map((e) => [e.type, e.creator])).toEqual([
      ['org.member.removed', t.adminUserId],
      ['org.member.changed', t.adminUserId],
      ['org.member.added', t.adminUserId],
    ]);
  });

  it("the membership applies only in its organisation: B does not see A's members", async () => {
    const inB = asAdminIn(orgB);
    const list = await (await inB('POST', '/management/v1/orgs/me/members/_search', {})).json();
    expect(list.result.map((m: { userId: string }) => m.userId)).toEqual([t.adminUserId]);
  });

  it('instance members: IAM roles only, 409 on duplicates, the role applies in every organisation, removal revokes it', async () => {
    expect((await t.call('POST', '/admin/v1/members', { body: { userId: humanId, roles: ['ORG_OWNER'] } })).status).toBe(400);
    const add = await t.call('POST', '/admin/v1/members', { body: { userId: machineId, roles: ['IAM_OWNER_VIEWER'] } });
    expect(add.status).toBe(200);
    expect((await add.json()).details.resourceOwner).toBe(t.instanceId);
    expect((await t.call('POST', '/admin/v1/members', { body: { userId: machineId, roles: ['IAM_OWNER'] } })).status).toBe(409);

    const list = await (await t.call('POST', '/admin/v1/members/_search', { body: {} })).json();
    expect(list.result.map((m: { userId: string; roles: string[] }) => [m.userId, m.roles])).toEqual([
      [t.adminUserId, ['IAM_OWNER']],
      [machineId, ['IAM_OWNER_VIEWER']],
    ]);

    const inB = asMachineIn(orgB);
    expect((await inB('POST', '/management/v1/users/_search', {})).status).toBe(200);
    expect((await inB('GET', `/admin/v1/orgs/${orgB}`)).status).toBe(200);
    expect((await inB('POST', '/management/v1/users/machine', { userName: 'y', name: 'y' })).status).toBe(403);

    expect((await t.call('DELETE', `/admin/v1/members/${machineId}`)).status).toBe(200);
    expect((await t.call('DELETE', `/admin/v1/members/${machineId}`)).status).toBe(404);
    expect((await inB('POST', '/management/v1/users/_search', {})).status).toBe(403);
    const { events } = await t.store.read.events.search({ aggregateId: t.instanceId, limit: 2, offset: 0, asc: false });
    expect(events.map((e) => e.type)).toEqual(['instance.member.removed', 'instance.member.added']);
  });

  it('user.write is not enough to take over a user holding roles the caller cannot grant', async () => {
    const manager = await insertMachineUserWithToken(t, { orgRoles: ['ORG_USER_MANAGER'] });
    const asManager = (method: string, path: string, body?: unknown) => t.call(method, path, { body, token: manager.token });
    // The bootstrap administrator (IAM_OWNER) is a machine user of the default organisation.
    const mint = await asManager('POST', `/management/v1/users/${t.adminUserId}/pats`, {});
    expect(mint.status).toBe(403);
    expect((await mint.json()).details[0].id).toBe('COMMAND-Auth0r');
    expect((await asManager('DELETE', `/management/v1/users/${t.adminUserId}`)).status).toBe(403);
    // A plain user of the same organisation stays manageable.
    const plain = await insertMachineUserWithToken(t);
    expect((await asManager('POST', `/management/v1/users/${plain.userId}/pats`, {})).status).toBe(200);
    expect((await asManager('DELETE', `/management/v1/users/${plain.userId}`)).status).toBe(200);
    // ORG_OWNER of A may grant A's roles, so it may mint tokens for A's members, not for instance members.
    const owner = await insertMachineUserWithToken(t, { orgId: orgA, orgRoles: ['ORG_OWNER'] });
    expect((await t.call('POST', `/management/v1/users/${machineId}/pats`, { body: {}, token: owner.token })).status).toBe(200);
    await t.call('POST', '/admin/v1/members', { body: { userId: machineId, roles: ['IAM_USER_MANAGER'] } });
    expect((await t.call('POST', `/management/v1/users/${machineId}/pats`, { body: {}, token: owner.token })).status).toBe(403);
    expect((await t.call('DELETE', `/admin/v1/members/${machineId}`)).status).toBe(200);
  });

  it('deleting the machine user removes its memberships and its PAT stops working (401)', async () => {
    expect((await asMachineIn(orgA)('POST', '/management/v1/users/_search', {})).status).toBe(200);
    expect((await asAdminIn(orgA)('DELETE', `/management/v1/users/${machineId}`)).status).toBe(200);
    const res = await asMachineIn(orgA)('POST', '/management/v1/users/_search', {});
    expect(res.status).toBe(401);
    expect((await res.json()).details[0].id).toBe('AUTH-7fs1e');
    expect(await t.store.read.members.listByUser(machineId)).toEqual([]);
  });
});
