/**
 * Concurrent conflicting commands (issue 16.2). PostgreSQL runs transactions at READ COMMITTED, so
 * a command that checks state before it holds the aggregate's lock can act on a row another
 * transaction is removing; SQLite's single writer hides that. Each race is fired several times.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const ROUNDS = 12;

describeEachStore('concurrent conflicting writes', (dialect) => {
  let t: TestInstance;
  let projectId: string;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    const project = await (await t.call('POST', '/management/v1/projects', { body: { name: 'races' } })).json();
    projectId = project.id;
    expect((await t.call('POST', `/management/v1/projects/${projectId}/roles`, { body: { roleKey: 'reader', displayName: 'Reader' } })).status).toBe(200);
    expect((await t.call('POST', `/management/v1/projects/${projectId}/roles`, { body: { roleKey: 'writer', displayName: 'Writer' } })).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  let n = 0;
  async function machineUser(): Promise<string> {
    const res = await t.call('POST', '/management/v1/users/machine', { body: { userName: `race-${n++}-${Date.now()}`, name: 'race' } });
    expect(res.status).toBe(200);
    return (await res.json()).userId;
  }
  async function grant(userId: string): Promise<string> {
    const res = await t.call('POST', `/management/v1/users/${userId}/grants`, { body: { projectId, roleKeys: ['reader'] } });
    expect(res.status).toBe(200);
    return (await res.json()).userGrantId;
  }
  async function eventsOf(aggregateId: string): Promise<string[]> {
    const res = await t.call('POST', '/admin/v1/events/_search', { body: { aggregateId, asc: true, limit: 1000 } });
    expect(res.status).toBe(200);
    return (await res.json()).events.map((e: { type: { type: string } }) => e.type.type);
  }
  const statuses = async (...requests: Promise<Response>[]) => (await Promise.all(requests)).map((r) => r.status).sort();

  it('the same removal twice at once: one 200, one 404, one removal event', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const userId = await machineUser();
      const grantId = await grant(userId);
      const del = () => t.call('DELETE', `/management/v1/users/${userId}/grants/${grantId}`);
      expect(await statuses(del(), del())).toEqual([200, 404]);
      expect((await eventsOf(grantId)).filter((e) => e.endsWith('removed'))).toHaveLength(1);

      const pat = await (await t.call('POST', `/management/v1/users/${userId}/pats`, { body: {} })).json();
      const delPat = () => t.call('DELETE', `/management/v1/users/${userId}/pats/${pat.tokenId}`);
      expect(await statuses(delPat(), delPat())).toEqual([200, 404]);

      expect((await t.call('POST', '/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_USER_MANAGER'] } })).status).toBe(200);
      const delMember = () => t.call('DELETE', `/management/v1/orgs/me/members/${userId}`);
      expect(await statuses(delMember(), delMember())).toEqual([200, 404]);

      const delUser = () => t.call('DELETE', `/management/v1/users/${userId}`);
      expect(await statuses(delUser(), delUser())).toEqual([200, 404]);
      expect((await eventsOf(userId)).filter((e) => e === 'user.removed')).toHaveLength(1);
    }
  });

  it('removing a grant while changing it: never both, and no change after the removal', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const userId = await machineUser();
      const grantId = await grant(userId);
      const [del, put] = await Promise.all([
        t.call('DELETE', `/management/v1/users/${userId}/grants/${grantId}`),
        t.call('PUT', `/management/v1/users/${userId}/grants/${grantId}`, { body: { roleKeys: ['writer'] } }),
      ]);
      expect(del.status).toBe(200);
      const events = await eventsOf(grantId);
      expect(events[events.length - 1]).toBe('user.grant.removed');
      expect(put.status === 200 ? events : [put.status]).toEqual(put.status === 200 ? ['user.grant.added', 'user.grant.changed', 'user.grant.removed'] : [404]);
    }
  });

  it('removing a user while a token, a membership or a grant is added for it leaves nothing behind', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const userId = await machineUser();
      const [removed, pat, member, granted] = await Promise.all([
        t.call('DELETE', `/management/v1/users/${userId}`),
        t.call('POST', `/management/v1/users/${userId}/pats`, { body: {} }),
        t.call('POST', '/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_OWNER'] } }),
        t.call('POST', `/management/v1/users/${userId}/grants`, { body: { projectId, roleKeys: ['reader'] } }),
      ]);
      expect(removed.status).toBe(200);
      if (pat.status === 200) {
        const { token } = await pat.json();
        expect((await t.call('GET', '/management/v1/orgs/me', { token })).status).toBe(401);
      }
      expect((await t.store.read.tokens.listByUser(userId, { limit: 100, offset: 0, asc: true })).rows).toEqual([]);
      expect(await t.store.read.members.listByUser(userId)).toEqual([]);
      const grants = await (await t.call('POST', '/management/v1/users/grants/_search', { body: { queries: [{ userIdQuery: { userId } }] } })).json();
      expect(grants.result ?? []).toEqual([]);
      // A refused addition answers as for a user that does not exist.
      for (const res of [pat, member, granted]) expect([200, 400, 404]).toContain(res.status);
    }
  });

  it("a removed user's id is not given out again: 409", async () => {
    const { userId } = await insertMachineUserWithToken(t);
    expect((await t.call('DELETE', `/management/v1/users/${userId}`)).status).toBe(200);
    const again = await t.call('POST', '/management/v1/users/machine', { body: { userId, userName: `reuse-${Date.now()}`, name: 'reuse' } });
    expect(again.status).toBe(409);
    expect(await eventsOf(userId)).toEqual(['user.machine.added', 'user.removed']);
    // Nor by an import: reported in `errors`, nothing written under the old id.
    const imported = await t.call('POST', '/admin/v1/import', {
      body: { timeout: '1m', data_orgs: { orgs: [{ orgId: `9${Date.now()}`, org: { name: `reuse-${Date.now()}` }, machineUsers: [{ userId, user: { userName: 'again', name: 'again' } }] }] } },
    });
    expect(imported.status).toBe(200);
    const result = await imported.json();
    expect(result.errors.some((e: { id: string; message: string }) => e.id === userId && /AlreadyExisting/.test(e.message))).toBe(true);
    expect(await eventsOf(userId)).toEqual(['user.machine.added', 'user.removed']);
  });

  it("an organisation owner cannot remove an instance owner's token (as it cannot mint one): 403", async () => {
    const owner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    const admin = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER'] });
    const pats = await (await t.call('POST', `/management/v1/users/${admin.userId}/pats/_search`, { body: {} })).json();
    const tokenId = pats.result[0].id;
    const refused = await t.call('DELETE', `/management/v1/users/${admin.userId}/pats/${tokenId}`, { token: owner.token });
    expect(refused.status).toBe(403);
    expect((await t.call('GET', '/management/v1/orgs/me', { token: admin.token })).status).toBe(200);
    expect((await t.call('POST', `/management/v1/users/${admin.userId}/pats`, { token: owner.token, body: {} })).status).toBe(403);
  });
});
