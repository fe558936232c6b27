import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertHumanUser, insertMachineUserWithToken, insertOrg, type TestInstance } from '../support/instance.js';

const org = (orgId: string) => ({ 'x-service-orgid': orgId });

describeEachStore('projects, roles and project members', (dialect) => {
  let t: TestInstance;
  let orgA: string;
  let orgB: string;
  async function json(res: Promise<Response>, status = 200) {
    const r = await res;
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(status);
    return body;
  }
  const addProject = (orgId: string, body: Record<string, unknown>, token?: string) => t.call('POST', '/management/v1/projects', { headers: org(orgId), body, token });

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgA = (await insertOrg(t, 'Proj A')).orgId;
    orgB = (await insertOrg(t, 'Proj B')).orgId;
  });
  afterAll(() => t.close());

  it('creates a project in the context organisation; the creator becomes PROJECT_OWNER', async () => {
    const created = await json(addProject(orgA, { name: 'Shop', projectRoleAssertion: true, privateLabelingSetting: 'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY' }));
    expect(created.id).toMatch(/^\d+$/);
    expect(created.details).toMatchObject({ sequence: '2', resourceOwner: orgA });
    const { project } = await json(t.call('GET', `/management/v1/projects/${created.id}`, { headers: org(orgA) }));
    expect(project).toMatchObject({
      id: created.id,
      name: 'Shop',
      state: 'PROJECT_STATE_ACTIVE',
      projectRoleAssertion: true,
      projectRoleCheck: false,
      hasProjectCheck: false,
      privateLabelingSetting: 'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY',
      details: { sequence: '2', resourceOwner: orgA },
    });
    const members = await json(t.call('POST', `/management/v1/projects/${created.id}/members/_search`, { headers: org(orgA), body: {} }));
    expect(members.result).toEqual([expect.objectContaining({ userId: t.adminUserId, roles: ['PROJECT_OWNER'], userType: 'TYPE_MACHINE' })]);

    expect((await json(addProject(orgA, { name: 'Shop' }), 409)).details[0].id).toBe('V3-DKcYh');
    await json(addProject(orgB, { name: 'Shop' })); // names are unique per organisation only
    expect((await json(addProject(orgA, { name: '' }), 400)).message).toContain('name');
    expect((await json(addProject(orgA, { name: 'x', privateLabelingSetting: 'NOPE' }), 400)).message).toContain('privateLabelingSetting');
  });

  it("another organisation's project answers 404; search lists only the context organisation's", async () => {
    const { id } = await json(addProject(orgA, { name: 'Only A' }));
    expect((await json(t.call('GET', `/management/v1/projects/${id}`, { headers: org(orgB) }), 404)).details[0].id).toBe('PROJECT-Gd2hh');
    expect((await t.call('GET', '/management/v1/projects/nope', { headers: org(orgA) })).status).toBe(404);
    const inB = await json(t.call('POST', '/management/v1/projects/_search', { headers: org(orgB), body: {} }));
    expect(inB.result.map((p: { id: string }) => p.id)).not.toContain(id);
    const byName = await json(
      t.call('POST', '/management/v1/projects/_search', { headers: org(orgA), body: { queries: [{ nameQuery: { name: 'only', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }] } }),
    );
    expect(byName.result.map((p: { id: string }) => p.id)).toEqual([id]);
    expect(byName.details.totalResult).toBe('1');
    const exact = await json(t.call('POST', '/management/v1/projects/_search', { headers: org(orgA), body: { queries: [{ nameQuery: { name: 'only a' } }] } }));
    expect(exact.result).toEqual([]);
  });

  it('roles: add, duplicate 409, bulk all or nothing, search, remove', async () => {
    const { id } = await json(addProject(orgA, { name: 'Roles' }));
    const roles = `/management/v1/projects/${id}/roles`;
    const added = await json(t.call('POST', roles, { headers: org(orgA), body: { roleKey: 'reader', displayName: 'Reader', group: 'g' } }));
    expect(added.details.sequence).toBe('3');
    expect((await json(t.call('POST', roles, { headers: org(orgA), body: { roleKey: 'reader', displayName: 'Again' } }), 409)).message).toBe('Role already exists (V3-DKcYh)');
    await json(
      t.call('POST', `${roles}/_bulk`, {
        headers: org(orgA),
        body: {
          roles: [
            { key: 'writer', displayName: 'W' },
            { key: 'reader', displayName: 'R' },
          ],
        },
      }),
      409,
    );
    await json(
      t.call('POST', `${roles}/_bulk`, {
        headers: org(orgA),
        body: {
          roles: [
            { key: 'x', displayName: 'X' },
            { key: 'x', displayName: 'X' },
          ],
        },
      }),
      409,
    );
    await json(t.call('POST', `${roles}/_bulk`, { headers: org(orgA), body: { roles: [] } }), 400);
    let list = await json(t.call('POST', `${roles}/_search`, { headers: org(orgA), body: {} }));
    expect(list.result.map((r: { key: string }) => r.key)).toEqual(['reader']);
    await json(
      t.call('POST', `${roles}/_bulk`, {
        headers: org(orgA),
        body: {
          roles: [
            { key: 'writer', displayName: 'Writer' },
            { key: 'admin', displayName: 'Admin' },
          ],
        },
      }),
    );
    list = await json(t.call('POST', `${roles}/_search`, { headers: org(orgA), body: {} }));
    expect(list.result).toEqual([
      expect.objectContaining({ key: 'admin', displayName: 'Admin' }),
      expect.objectContaining({ key: 'reader', displayName: 'Reader', group: 'g' }),
      expect.objectContaining({ key: 'writer' }),
    ]);
    const filtered = await json(
      t.call('POST', `${roles}/_search`, { headers: org(orgA), body: { queries: [{ keyQuery: { key: 'ER', method: 'TEXT_QUERY_METHOD_ENDS_WITH_IGNORE_CASE' } }], query: { limit: 1 } } }),
    );
    expect(filtered.details.totalResult).toBe('2');
    expect(filtered.result.map((r: { key: string }) => r.key)).toEqual(['reader']);

    await json(t.call('DELETE', `${roles}/admin`, { headers: org(orgA) }));
    expect((await t.call('DELETE', `${roles}/admin`, { headers: org(orgA) })).status).toBe(404);
    expect((await t.call('POST', roles, { headers: org(orgB), body: { roleKey: 'y', displayName: 'Y' } })).status).toBe(404);
  });

  it('project roles count only for their project (403 elsewhere); ORG_PROJECT_CREATOR manages what it created', async () => {
    const { id: mine } = await json(addProject(orgA, { name: 'Mine' }));
    const { id: theirs } = await json(addProject(orgA, { name: 'Theirs' }));
    const owner = await insertMachineUserWithToken(t, { orgId: orgA, projectRoles: [{ projectId: mine, roles: ['PROJECT_OWNER'] }] });
    await json(t.call('POST', `/management/v1/projects/${mine}/roles`, { token: owner.token, body: { roleKey: 'r', displayName: 'R' } }));
    const denied = await json(t.call('POST', `/management/v1/projects/${theirs}/roles`, { token: owner.token, body: { roleKey: 'r', displayName: 'R' } }), 403);
    expect(denied.details[0].id).toBe('AUTH-5mWD2');
    expect((await t.call('GET', `/management/v1/projects/${theirs}`, { token: owner.token })).status).toBe(403);
    const visible = await json(t.call('POST', '/management/v1/projects/_search', { token: owner.token, body: {} }));
    expect(visible.result.map((p: { id: string }) => p.id)).toEqual([mine]);
    expect((await addProject(orgA, { name: 'Nope' }, owner.token)).status).toBe(403);

    const creator = await insertMachineUserWithToken(t, { orgId: orgA, orgRoles: ['ORG_PROJECT_CREATOR'] });
    const { id: created } = await json(addProject(orgA, { name: 'By creator' }, creator.token));
    await json(t.call('POST', `/management/v1/projects/${created}/roles`, { token: creator.token, body: { roleKey: 'r', displayName: 'R' } }));
    expect((await t.call('POST', `/management/v1/projects/${mine}/roles`, { token: creator.token, body: { roleKey: 'z', displayName: 'Z' } })).status).toBe(403);
  });

  it('members: add (unknown user 400, duplicate 409, non-project role 400), list, remove', async () => {
    const { id } = await json(addProject(orgA, { name: 'Members' }));
    const path = `/management/v1/projects/${id}/members`;
    const { userId } = await insertHumanUser(t, { orgId: orgB, userName: 'carol' });
    await json(t.call('POST', path, { headers: org(orgA), body: { userId, roles: ['PROJECT_OWNER_VIEWER'] } }));
    expect((await t.call('POST', path, { headers: org(orgA), body: { userId, roles: ['PROJECT_OWNER'] } })).status).toBe(409);
    expect((await t.call('POST', path, { headers: org(orgA), body: { userId: 'ghost', roles: ['PROJECT_OWNER'] } })).status).toBe(400);
    expect((await t.call('POST', path, { headers: org(orgA), body: { userId, roles: ['ORG_OWNER'] } })).status).toBe(400);
    const list = await json(t.call('POST', `${path}/_search`, { headers: org(orgA), body: {} }));
    expect(list.result.find((m: { userId: string }) => m.userId === userId)).toMatchObject({
      roles: ['PROJECT_OWNER_VIEWER'],
      userName: 'carol',
      preferredLoginName: 'carol@proj-b.localhost',
      userType: 'TYPE_HUMAN',
    });
    await json(t.call('DELETE', `${path}/${userId}`, { headers: org(orgA) }));
    expect((await t.call('DELETE', `${path}/${userId}`, { headers: org(orgA) })).status).toBe(404);
    expect(await t.store.read.members.get('project', id, userId)).toBeUndefined();
    // A member's user id is at most 200 characters, like the API's other ids (MemberUserId in the spec).
    expect((await json(t.call('DELETE', `${path}/${'u'.repeat(201)}`, { headers: org(orgA) }), 400)).message).toContain('userId');
  });
});
