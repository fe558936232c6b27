import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertHumanUser, insertMachineUserWithToken, insertOrg, type TestInstance } from '../support/instance.js';

const GRANTS = (userId: string) => `/management/v1/users/${userId}/grants`;
const org = (orgId: string) => ({ 'x-service-orgid': orgId });

describeEachStore('user grants (reference §2, description §4.2)', (dialect) => {
  let t: TestInstance;
  let orgA: string;
  let orgB: string;
  let human: string;
  let projectA: string;
  let otherProjectA: string;
  let projectB: string;

  async function json(res: Response | Promise<Response>, status = 200) {
    const r = await res;
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(status);
    return body;
  }
  async function project(orgId: string, name: string, roles: string[]): Promise<string> {
    const { id } = await json(t.call('POST', '/management/v1/projects', { headers: org(orgId), body: { name } }));
    await json(t.call('POST', `/management/v1/projects/${id}/roles/_bulk`, { headers: org(orgId), body: { roles: roles.map((key) => ({ key, displayName: key.toUpperCase() })) } }));
    return id;
  }
  const grant = async (userId: string, projectId: string, orgId: string, roleKeys = ['reader']) =>
    (await json(t.call('POST', GRANTS(userId), { headers: org(orgId), body: { projectId, roleKeys } }))).userGrantId as string;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgA = (await insertOrg(t, 'Org A')).orgId;
    orgB = (await insertOrg(t, 'Org B')).orgId;
    human = (await insertHumanUser(t, { orgId: orgA, userName: 'alice', firstName: 'Alice', lastName: 'Doe', email: 'alice@example.com' })).userId;
    projectA = await project(orgA, 'Shop', ['reader', 'writer']);
    otherProjectA = await project(orgA, 'Blog', ['reader']);
    projectB = await project(orgB, 'Shop B', ['reader']);
  });
  afterAll(() => t.close());

  describe('RemoveUserGrant, the scenario of issue 3', () => {
    it('end to end through the HTTP API only (orgs, users, PAT, membership, project, grants)', async () => {
      const a = (await json(t.call('POST', '/management/v1/orgs', { body: { name: 'E2E A' } }))).id as string;
      const b = (await json(t.call('POST', '/management/v1/orgs', { body: { name: 'E2E B' } }))).id as string;
      const alice = (
        await json(
          t.call('POST', '/management/v1/users/human/_import', {
            headers: org(a),
            body: { userName: 'e2e-alice', profile: { firstName: 'Alice', lastName: 'E2E' }, email: { email: 'alice@e2e.example.com' } },
          }),
        )
      ).userId as string;
      const bot = (await json(t.call('POST', '/management/v1/users/machine', { headers: org(a), body: { userName: 'e2e-bot', name: 'Bot' } }))).userId as string;
      const { token } = await json(t.call('POST', `/management/v1/users/${bot}/pats`, { headers: org(a), body: {} }));
      const shop = await project(a, 'E2E Shop', ['reader', 'writer']);

      const added = await json(t.call('POST', GRANTS(alice), { headers: org(a), body: { projectId: shop, roleKeys: ['reader'] } }));
      expect(added.details.sequence).toBe('1');
      const removed = await json(t.call('DELETE', `${GRANTS(alice)}/${added.userGrantId}`, { headers: org(a) }));
      expect(removed.details).toMatchObject({ sequence: '2', resourceOwner: a });
      expect(Date.parse(removed.details.changeDate)).not.toBeNaN();
      expect((await json(t.call('DELETE', `${GRANTS(alice)}/${added.userGrantId}`, { headers: org(a) }), 404)).code).toBe(5);
      const list = await json(t.call('POST', '/management/v1/users/grants/_search', { headers: org(a), body: { queries: [{ userIdQuery: { userId: alice } }] } }));
      expect(list.result).toEqual([]);
      const readded = (await json(t.call('POST', GRANTS(alice), { headers: org(a), body: { projectId: shop, roleKeys: ['reader'] } }))).userGrantId;

      // Before the membership the bot may do nothing; as ORG_USER_MANAGER of A it removes grants in A only.
      expect((await t.call('DELETE', `${GRANTS(alice)}/${readded}`, { token })).status).toBe(403);
      await json(t.call('POST', '/management/v1/orgs/me/members', { headers: org(a), body: { userId: bot, roles: ['ORG_USER_MANAGER'] } }));
      expect((await json(t.call('DELETE', `${GRANTS(alice)}/${readded}`, { token }))).details.resourceOwner).toBe(a);
      const shopB = await project(b, 'E2E Shop B', ['reader']);
      const inB = (await json(t.call('POST', GRANTS(alice), { headers: org(b), body: { projectId: shopB, roleKeys: ['reader'] } }))).userGrantId;
      expect((await t.call('DELETE', `${GRANTS(alice)}/${inB}`, { token, headers: org(b) })).status).toBe(403);
      expect((await t.call('POST', '/admin/v1/events/_search', { token, body: {} })).status).toBe(403);
      expect((await t.call('DELETE', `${GRANTS(alice)}/${inB}`)).status).toBe(404);
      expect((await t.call('DELETE', `${GRANTS(alice)}/${inB}`, { headers: org(b) })).status).toBe(200);

      const { events } = await json(t.call('POST', '/admin/v1/events/_search', { body: { editorUserId: bot } }));
      expect(events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['user.grant.removed']);
    });

    it('removes a grant: 200 with details, then 404 code 5, gone from the list, and can be added again', async () => {
      const added = await json(t.call('POST', GRANTS(human), { headers: org(orgA), body: { projectId: projectA, roleKeys: ['reader'] } }));
      expect(added.details).toMatchObject({ sequence: '1', resourceOwner: orgA });
      const grantId = added.userGrantId;

      const removed = await json(t.call('DELETE', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }));
      expect(removed.details.sequence).toBe('2');
      expect(typeof removed.details.sequence).toBe('string');
      expect(Date.parse(removed.details.changeDate)).not.toBeNaN();
      expect(removed.details.resourceOwner).toBe(orgA);

      const again = await json(t.call('DELETE', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }), 404);
      expect(again).toEqual({
        code: 5,
        message: 'User grant not found (COMMAND-1My0t)',
        details: [expect.objectContaining({ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: 'COMMAND-1My0t', message: 'User grant not found' })],
      });

      const list = await json(t.call('POST', '/management/v1/users/grants/_search', { headers: org(orgA), body: { queries: [{ userIdQuery: { userId: human } }] } }));
      expect(list.result.map((g: { id: string }) => g.id)).not.toContain(grantId);
      expect((await t.call('GET', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) })).status).toBe(404);

      const readded = await json(t.call('POST', GRANTS(human), { headers: org(orgA), body: { projectId: projectA, roleKeys: ['reader'] } }));
      expect(readded.userGrantId).not.toBe(grantId);
      expect(readded.details.sequence).toBe('1');
      await json(t.call('DELETE', `${GRANTS(human)}/${readded.userGrantId}`, { headers: org(orgA) }));
    });

    it('an ORG_USER_MANAGER of A removes grants in A, and gets 403 in B and on admin endpoints', async () => {
      const manager = await insertMachineUserWithToken(t, { orgId: orgA, orgRoles: ['ORG_USER_MANAGER'] });
      const grantId = await grant(human, projectA, orgA);
      const res = await json(t.call('DELETE', `${GRANTS(human)}/${grantId}`, { token: manager.token }));
      expect(res.details.resourceOwner).toBe(orgA);

      const inB = await grant(human, projectB, orgB);
      const denied = await json(t.call('DELETE', `${GRANTS(human)}/${inB}`, { token: manager.token, headers: org(orgB) }), 403);
      expect(denied.code).toBe(7);
      expect((await t.call('POST', '/admin/v1/events/_search', { token: manager.token, body: {} })).status).toBe(403);
      expect((await t.call('PUT', '/admin/v1/text/message/verifyemail/en', { token: manager.token, body: { title: 'x' } })).status).toBe(403);

      // The removal is in the audit trail with its editor.
      const { events } = await json(t.call('POST', '/admin/v1/events/_search', { body: { aggregateId: grantId, eventTypes: ['user.grant.removed'] } }));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ editor: { userId: manager.userId }, aggregate: { id: grantId, type: { type: 'usergrant' }, resourceOwner: orgA }, sequence: '2' });
      await json(t.call('DELETE', `${GRANTS(human)}/${inB}`, { headers: org(orgB) }));
    });

    it("another organisation's grant answers 404 without the header and 200 with x-service-orgid", async () => {
      const inB = await grant(human, projectB, orgB);
      const missing = await json(t.call('DELETE', `${GRANTS(human)}/${inB}`), 404);
      expect(missing.details[0].id).toBe('COMMAND-1My0t');
      expect((await t.call('DELETE', `${GRANTS(human)}/${inB}`, { headers: org(orgA) })).status).toBe(404);
      const removed = await json(t.call('DELETE', `${GRANTS(human)}/${inB}`, { headers: org(orgB) }));
      expect(removed.details.resourceOwner).toBe(orgB);
    });

    it('a permission held only through a role on another project answers 403 EVENT-Shu7e', async () => {
      const owner = await insertMachineUserWithToken(t, { orgId: orgA, projectRoles: [{ projectId: otherProjectA, roles: ['PROJECT_OWNER'] }] });
      const onA = await grant(human, projectA, orgA);
      const denied = await json(t.call('DELETE', `${GRANTS(human)}/${onA}`, { token: owner.token }), 403);
      expect(denied.details[0].id).toBe('EVENT-Shu7e');
      expect(denied.message).toBe('User has no permissions on this project (EVENT-Shu7e)');
      // Its own project's grants it may remove.
      const onOther = await grant(human, otherProjectA, orgA);
      await json(t.call('DELETE', `${GRANTS(human)}/${onOther}`, { token: owner.token }));
      // The grant outside its project is untouched: the removal is checked after it is made, and the
      // refusal rolled it back whole (no event, its sequence not taken).
      await json(t.call('GET', `${GRANTS(human)}/${onA}`, { headers: org(orgA) }));
      const { events } = await json(t.call('POST', '/admin/v1/events/_search', { body: { aggregateId: onA, asc: true } }));
      expect(events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['user.grant.added']);
      expect((await json(t.call('DELETE', `${GRANTS(human)}/${onA}`, { headers: org(orgA) }))).details.sequence).toBe('2');
    });

    it('a refused removal among concurrent ones (one transaction group on PostgreSQL) fails alone and removes nothing', async () => {
      const owner = await insertMachineUserWithToken(t, { orgId: orgA, projectRoles: [{ projectId: otherProjectA, roles: ['PROJECT_OWNER'] }] });
      const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => insertHumanUser(t, { orgId: orgA })));
      const allowed = await Promise.all(users.map(({ userId }) => grant(userId, otherProjectA, orgA)));
      const refused = await grant(users[0].userId, projectA, orgA);
      const answers = await Promise.all([
        ...allowed.map((id, i) => t.call('DELETE', `${GRANTS(users[i].userId)}/${id}`, { token: owner.token })),
        t.call('DELETE', `${GRANTS(users[0].userId)}/${refused}`, { token: owner.token }),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 403]);
      for (const [i, id] of allowed.entries()) expect((await t.call('GET', `${GRANTS(users[i].userId)}/${id}`, { headers: org(orgA) })).status).toBe(404);
      expect((await json(t.call('GET', `${GRANTS(users[0].userId)}/${refused}`, { headers: org(orgA) }))).userGrant.details.sequence).toBe('1');
    });

    it("the path user must be the grant's user (ZITADEL ignores it)", async () => {
      const other = (await insertHumanUser(t, { orgId: orgA })).userId;
      const grantId = await grant(human, projectA, orgA);
      expect((await t.call('DELETE', `${GRANTS(other)}/${grantId}`, { headers: org(orgA) })).status).toBe(404);
      expect((await t.call('GET', `${GRANTS(other)}/${grantId}`, { headers: org(orgA) })).status).toBe(404);
      await json(t.call('DELETE', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }));
    });

    it('401 without a token, 403 without user.grant.delete', async () => {
      expect((await t.call('DELETE', `${GRANTS(human)}/1`, { token: null })).status).toBe(401);
      const viewer = await insertMachineUserWithToken(t, { orgId: orgA, orgRoles: ['ORG_OWNER_VIEWER'] });
      const res = await json(t.call('DELETE', `${GRANTS(human)}/1`, { token: viewer.token }), 403);
      expect(res.details[0].id).toBe('AUTH-5mWD2');
    });
  });

  describe('AddUserGrant preconditions (reference §2.2)', () => {
    it('unknown user → 400 COMMAND-4f8sg; project of another org or unknown → 400 COMMAND-4m9ff; unknown role → 400 COMMAND-mm9F4', async () => {
      const noUser = await json(t.call('POST', GRANTS('404404'), { headers: org(orgA), body: { projectId: projectA } }), 400);
      expect(noUser.details[0].id).toBe('COMMAND-4f8sg');
      expect(noUser.code).toBe(9);
      for (const projectId of [projectB, 'no-such-project']) {
        const res = await json(t.call('POST', GRANTS(human), { headers: org(orgA), body: { projectId } }), 400);
        expect(res.details[0].id).toBe('COMMAND-4m9ff');
      }
      const role = await json(t.call('POST', GRANTS(human), { headers: org(orgA), body: { projectId: projectA, roleKeys: ['reader', 'admin'] } }), 400);
      expect(role.details[0].id).toBe('COMMAND-mm9F4');
      const missing = await json(t.call('POST', GRANTS(human), { headers: org(orgA), body: { roleKeys: [] } }), 400);
      expect(missing.message).toContain('projectId');
    });

    it('a user of another organisation can be granted; a duplicate answers 409 V3-DKcYh', async () => {
      const userB = (await insertHumanUser(t, { orgId: orgB, userName: 'bob' })).userId;
      const grantId = await grant(userB, projectA, orgA, []);
      const dup = await json(t.call('POST', GRANTS(userB), { headers: org(orgA), body: { projectId: projectA, roleKeys: ['writer'] } }), 409);
      expect(dup).toMatchObject({ code: 6, message: 'User grant already exists (V3-DKcYh)' });
      const { userGrant } = await json(t.call('GET', `${GRANTS(userB)}/${grantId}`, { headers: org(orgA) }));
      expect(userGrant).toMatchObject({
        id: grantId,
        userId: userB,
        orgId: orgA,
        grantedOrgId: orgB,
        projectId: projectA,
        projectName: 'Shop',
        state: 'USER_GRANT_STATE_ACTIVE',
        userName: 'bob',
        userType: 'TYPE_HUMAN',
      });
      expect(userGrant.roleKeys).toEqual([]);
      await json(t.call('DELETE', `${GRANTS(userB)}/${grantId}`, { headers: org(orgA) }));
    });
  });

  describe('reads, updates and state changes', () => {
    it('GetUserGrantByID shows the user and project; 404 QUERY-wIPkA elsewhere', async () => {
      const grantId = await grant(human, projectA, orgA, ['reader', 'writer']);
      const { userGrant } = await json(t.call('GET', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }));
      expect(userGrant).toMatchObject({
        id: grantId,
        roleKeys: ['reader', 'writer'],
        userName: 'alice',
        firstName: 'Alice',
        lastName: 'Doe',
        email: 'alice@example.com',
        displayName: 'Alice Doe',
        preferredLoginName: 'alice@org-a.localhost',
        orgName: 'Org A',
        details: { sequence: '1', resourceOwner: orgA },
      });
      const missing = await json(t.call('GET', `${GRANTS(human)}/${grantId}`, { headers: org(orgB) }), 404);
      expect(missing.details[0].id).toBe('QUERY-wIPkA');

      const search = await json(
        t.call('POST', '/management/v1/users/grants/_search', { headers: org(orgA), body: { queries: [{ projectIdQuery: { projectId: projectA } }, { userIdQuery: { userId: human } }] } }),
      );
      expect(search.details.totalResult).toBe('1');
      expect(search.result[0].id).toBe(grantId);
      const inB = await json(t.call('POST', '/management/v1/users/grants/_search', { headers: org(orgB), body: { queries: [{ userIdQuery: { userId: human } }] } }));
      expect(inB.result.map((g: { id: string }) => g.id)).not.toContain(grantId);
      await json(t.call('DELETE', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }));
    });

    it("a project role lists only its project's grants", async () => {
      const g1 = await grant(human, projectA, orgA);
      const g2 = await grant(human, otherProjectA, orgA);
      const viewer = await insertMachineUserWithToken(t, { orgId: orgA, projectRoles: [{ projectId: otherProjectA, roles: ['PROJECT_OWNER_VIEWER'] }] });
      const list = await json(t.call('POST', '/management/v1/users/grants/_search', { token: viewer.token, body: {} }));
      expect(list.result.map((g: { id: string }) => g.id)).toEqual([g2]);
      expect((await t.call('GET', `${GRANTS(human)}/${g1}`, { token: viewer.token })).status).toBe(403);
      await json(t.call('DELETE', '/management/v1/user_grants/_bulk', { headers: org(orgA), body: { grantId: [g1, g2] } }));
    });

    it('UpdateUserGrant replaces the roles; unchanged → 400; unknown role → 400', async () => {
      const grantId = await grant(human, projectA, orgA);
      const changed = await json(t.call('PUT', `${GRANTS(human)}/${grantId}`, { headers: org(orgA), body: { roleKeys: ['writer'] } }));
      expect(changed.details.sequence).toBe('2');
      expect((await json(t.call('GET', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }))).userGrant.roleKeys).toEqual(['writer']);
      expect((await json(t.call('PUT', `${GRANTS(human)}/${grantId}`, { headers: org(orgA), body: { roleKeys: ['writer'] } }), 400)).details[0].id).toBe('COMMAND-Rs8fy');
      expect((await json(t.call('PUT', `${GRANTS(human)}/${grantId}`, { headers: org(orgA), body: { roleKeys: ['nope'] } }), 400)).details[0].id).toBe('COMMAND-mm9F4');
      expect((await t.call('PUT', `${GRANTS(human)}/404`, { headers: org(orgA), body: { roleKeys: [] } })).status).toBe(404);
      await json(t.call('DELETE', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }));
    });

    it('deactivate and reactivate; the wrong state answers 400', async () => {
      const grantId = await grant(human, projectA, orgA);
      const path = `${GRANTS(human)}/${grantId}`;
      expect((await json(t.call('POST', `${path}/_reactivate`, { headers: org(orgA) }), 400)).details[0].id).toBe('COMMAND-1ML0v');
      await json(t.call('POST', `${path}/_deactivate`, { headers: org(orgA) }));
      expect((await json(t.call('GET', path, { headers: org(orgA) }))).userGrant.state).toBe('USER_GRANT_STATE_INACTIVE');
      expect((await json(t.call('POST', `${path}/_deactivate`, { headers: org(orgA) }), 400)).details[0].id).toBe('COMMAND-1S9gx');
      await json(t.call('POST', `${path}/_reactivate`, { headers: org(orgA) }));
      expect((await json(t.call('GET', path, { headers: org(orgA) }))).userGrant.state).toBe('USER_GRANT_STATE_ACTIVE');
      // An inactive grant still holds the unique key.
      await json(t.call('POST', `${path}/_deactivate`, { headers: org(orgA) }));
      expect((await t.call('POST', GRANTS(human), { headers: org(orgA), body: { projectId: projectA } })).status).toBe(409);
      await json(t.call('DELETE', path, { headers: org(orgA) }));
    });

    it('removing a project role removes it from the grants that held it', async () => {
      const projectId = await project(orgA, 'Cascade', ['a', 'b']);
      const grantId = await grant(human, projectId, orgA, ['a', 'b']);
      await json(t.call('DELETE', `/management/v1/projects/${projectId}/roles/a`, { headers: org(orgA) }));
      const { userGrant } = await json(t.call('GET', `${GRANTS(human)}/${grantId}`, { headers: org(orgA) }));
      expect(userGrant.roleKeys).toEqual(['b']);
      expect(userGrant.details.sequence).toBe('2');
      const { events } = await json(t.call('POST', '/admin/v1/events/_search', { body: { aggregateId: grantId, asc: true } }));
      expect(events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['user.grant.added', 'user.grant.cascade.changed']);
    });
  });

  describe('removing a user', () => {
    it("removes the user's grants with it (gone from lists; events on each grant)", async () => {
      const bob = (await insertHumanUser(t, { orgId: orgA, userName: 'bob-leaves', firstName: 'Bob', lastName: 'Doe', email: 'bob@example.com' })).userId;
      const grantId = await grant(bob, projectA, orgA);
      await json(t.call('DELETE', `/management/v1/users/${bob}`, { headers: org(orgA) }));
      expect((await t.call('GET', `${GRANTS(bob)}/${grantId}`, { headers: org(orgA) })).status).toBe(404);
      const list = await json(t.call('POST', '/management/v1/users/grants/_search', { headers: org(orgA), body: { queries: [{ projectIdQuery: { projectId: projectA } }] } }));
      expect(list.result.map((g: { id: string }) => g.id)).not.toContain(grantId);
      const { events } = await json(t.call('POST', '/admin/v1/events/_search', { body: { aggregateId: grantId, asc: true } }));
      expect(events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['user.grant.added', 'user.grant.cascade.removed']);
    });
  });

  describe('BulkRemoveUserGrant', () => {
    it('empty → 400 COMMAND-5M0sd; one missing → 404 and nothing removed; else all removed', async () => {
      const empty = await json(t.call('DELETE', '/management/v1/user_grants/_bulk', { headers: org(orgA), body: { grantId: [] } }), 400);
      expect(empty.details[0].id).toBe('COMMAND-5M0sd');
      const g1 = await grant(human, projectA, orgA);
      const g2 = await grant(human, otherProjectA, orgA);
      const missing = await json(t.call('DELETE', '/management/v1/user_grants/_bulk', { headers: org(orgA), body: { grantId: [g1, g2, 'nope'] } }), 404);
      expect(missing.details[0].id).toBe('COMMAND-1My0t');
      await json(t.call('GET', `${GRANTS(human)}/${g1}`, { headers: org(orgA) }));
      await json(t.call('GET', `${GRANTS(human)}/${g2}`, { headers: org(orgA) }));

      const owner = await insertMachineUserWithToken(t, { orgId: orgA, projectRoles: [{ projectId: otherProjectA, roles: ['PROJECT_OWNER'] }] });
      expect((await json(t.call('DELETE', '/management/v1/user_grants/_bulk', { token: owner.token, body: { grantId: [g1, g2] } }), 403)).details[0].id).toBe('EVENT-Shu7e');
      await json(t.call('GET', `${GRANTS(human)}/${g2}`, { headers: org(orgA) }));

      expect(await json(t.call('DELETE', '/management/v1/user_grants/_bulk', { headers: org(orgA), body: { grantId: [g1, g2] } }))).toEqual({});
      expect((await t.call('GET', `${GRANTS(human)}/${g1}`, { headers: org(orgA) })).status).toBe(404);
      expect((await t.call('GET', `${GRANTS(human)}/${g2}`, { headers: org(orgA) })).status).toBe(404);
    });
  });
});
