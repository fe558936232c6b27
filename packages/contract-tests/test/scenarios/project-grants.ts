import { insertHumanUser, insertOrg } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const LONG = 'x'.repeat(201);

export function projectGrantScenarios(h: () => Harness) {
  it('project grants: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { orgId: grantedOrg } = await insertOrg(instance, 'Contract granted');
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    const projectId = (await admin.POST('/management/v1/projects', { body: { name: 'Contract granted project' } })).data!.id;
    expect(
      (
        await admin.POST('/management/v1/projects/{projectId}/roles/_bulk', {
          params: { path: { projectId } },
          body: {
            roles: [
              { key: 'reader', displayName: 'Reader' },
              { key: 'writer', displayName: 'Writer' },
            ],
          },
        })
      ).response.status,
    ).toBe(200);
    const p = { params: { path: { projectId } } };
    const g = (grantId: string) => ({ params: { path: { projectId, grantId } } });
    const inGranted = h().clientFor(instance.adminToken, grantedOrg);

    // AddProjectGrant
    const add = (body: { grantedOrgId: string; roleKeys?: string[] }) => admin.POST('/management/v1/projects/{projectId}/grants', { ...p, body });
    const added = await add({ grantedOrgId: grantedOrg, roleKeys: ['reader'] });
    expect(added.response.status).toBe(200);
    const grantId = added.data!.grantId;
    expect((await add({ grantedOrgId: grantedOrg })).response.status).toBe(409);
    expect((await add({ grantedOrgId: grantedOrg, roleKeys: ['nope'] })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/grants', { ...p, body: { grantedOrgId: grantedOrg } })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/grants', { ...p, body: { grantedOrgId: grantedOrg } })).response.status).toBe(403);
    expect((await inGranted.POST('/management/v1/projects/{projectId}/grants', { ...p, body: { grantedOrgId: grantedOrg } })).response.status).toBe(404);

    // ListProjectGrants
    expect((await admin.POST('/management/v1/projects/{projectId}/grants/_search', { ...p, body: {} })).data?.result.map((x) => x.grantId)).toEqual([grantId]);
    expect((await admin.POST('/management/v1/projects/{projectId}/grants/_search', { ...p, body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/grants/_search', { ...p, body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/grants/_search', { ...p, body: {} })).response.status).toBe(403);
    expect((await inGranted.POST('/management/v1/projects/{projectId}/grants/_search', { ...p, body: {} })).response.status).toBe(404);

    // GetProjectGrantByID
    expect((await admin.GET('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).data?.projectGrant).toMatchObject({
      grantId,
      grantedOrgId: grantedOrg,
      grantedRoleKeys: ['reader'],
      state: 'PROJECT_GRANT_STATE_ACTIVE',
    });
    expect((await admin.GET('/management/v1/projects/{projectId}/grants/{grantId}', g(LONG))).response.status).toBe(400);
    expect((await admin.GET('/management/v1/projects/{projectId}/grants/{grantId}', g('unknown'))).response.status).toBe(404);
    expect((await anonymous.GET('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).response.status).toBe(401);
    expect((await outsider.GET('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).response.status).toBe(403);

    // UpdateProjectGrant
    expect((await admin.PUT('/management/v1/projects/{projectId}/grants/{grantId}', { ...g(grantId), body: { roleKeys: ['reader', 'writer'] } })).response.status).toBe(200);
    expect((await admin.PUT('/management/v1/projects/{projectId}/grants/{grantId}', { ...g(grantId), body: { roleKeys: ['reader', 'writer'] } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/projects/{projectId}/grants/{grantId}', { ...g('unknown'), body: { roleKeys: [] } })).response.status).toBe(404);
    expect((await anonymous.PUT('/management/v1/projects/{projectId}/grants/{grantId}', { ...g(grantId), body: { roleKeys: [] } })).response.status).toBe(401);
    expect((await outsider.PUT('/management/v1/projects/{projectId}/grants/{grantId}', { ...g(grantId), body: { roleKeys: [] } })).response.status).toBe(403);

    // DeactivateProjectGrant, ReactivateProjectGrant
    for (const [action, path] of [
      ['deactivate', '/management/v1/projects/{projectId}/grants/{grantId}/_deactivate'],
      ['reactivate', '/management/v1/projects/{projectId}/grants/{grantId}/_reactivate'],
    ] as const) {
      expect((await admin.POST(path, g(grantId))).response.status, action).toBe(200);
      expect((await admin.POST(path, g(grantId))).response.status, action).toBe(400);
      expect((await admin.POST(path, g('unknown'))).response.status, action).toBe(404);
      expect((await anonymous.POST(path, g(grantId))).response.status, action).toBe(401);
      expect((await outsider.POST(path, g(grantId))).response.status, action).toBe(403);
    }

    // ListGrantedProjects
    expect((await inGranted.POST('/management/v1/granted_projects/_search', { body: {} })).data?.result.map((x) => x.grantId)).toEqual([grantId]);
    expect((await inGranted.POST('/management/v1/granted_projects/_search', { body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/granted_projects/_search', { body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/granted_projects/_search', { body: {} })).response.status).toBe(403);

    // AddProjectGrantMember, ListProjectGrantMembers, UpdateProjectGrantMember, RemoveProjectGrantMember
    const { userId: memberId } = await insertHumanUser(instance, { orgId: grantedOrg, userName: 'contract-grant-member' });
    const { userId: foreignUser } = await insertHumanUser(instance, { userName: 'contract-not-granted' });
    const members = '/management/v1/projects/{projectId}/grants/{grantId}/members' as const;
    const member = '/management/v1/projects/{projectId}/grants/{grantId}/members/{userId}' as const;
    const m = (userId: string, id = grantId) => ({ params: { path: { projectId, grantId: id, userId } } });
    const body = (userId: string) => ({ ...g(grantId), body: { userId, roles: ['PROJECT_GRANT_OWNER_VIEWER' as const] } });
    expect((await admin.POST(members, body(memberId))).response.status).toBe(200);
    expect((await admin.POST(members, body(memberId))).response.status).toBe(409);
    expect((await admin.POST(members, body(foreignUser))).response.status).toBe(400);
    expect((await admin.POST(members, { ...g('unknown'), body: { userId: memberId, roles: ['PROJECT_GRANT_OWNER'] } })).response.status).toBe(404);
    expect((await anonymous.POST(members, body(memberId))).response.status).toBe(401);
    expect((await outsider.POST(members, body(memberId))).response.status).toBe(403);

    expect((await admin.POST(`${members}/_search`, { ...g(grantId), body: {} })).data?.result.map((x) => x.userId)).toEqual([memberId]);
    expect((await admin.POST(`${members}/_search`, { ...g(grantId), body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await admin.POST(`${members}/_search`, { ...g('unknown'), body: {} })).response.status).toBe(404);
    expect((await anonymous.POST(`${members}/_search`, { ...g(grantId), body: {} })).response.status).toBe(401);
    expect((await outsider.POST(`${members}/_search`, { ...g(grantId), body: {} })).response.status).toBe(403);

    expect((await admin.PUT(member, { ...m(memberId), body: { roles: ['PROJECT_GRANT_OWNER'] } })).response.status).toBe(200);
    expect((await admin.PUT(member, { ...m(memberId), body: { roles: ['PROJECT_GRANT_OWNER'] } })).response.status).toBe(400);
    expect((await admin.PUT(member, { ...m(foreignUser), body: { roles: ['PROJECT_GRANT_OWNER'] } })).response.status).toBe(404);
    expect((await anonymous.PUT(member, { ...m(memberId), body: { roles: ['PROJECT_GRANT_OWNER'] } })).response.status).toBe(401);
    expect((await outsider.PUT(member, { ...m(memberId), body: { roles: ['PROJECT_GRANT_OWNER'] } })).response.status).toBe(403);

    expect((await admin.DELETE(member, m(LONG))).response.status).toBe(400);
    expect((await anonymous.DELETE(member, m(memberId))).response.status).toBe(401);
    expect((await outsider.DELETE(member, m(memberId))).response.status).toBe(403);
    expect((await admin.DELETE(member, m(memberId))).response.status).toBe(200);
    expect((await admin.DELETE(member, m(memberId))).response.status).toBe(404);

    // RemoveProjectGrant
    expect((await admin.DELETE('/management/v1/projects/{projectId}/grants/{grantId}', g(LONG))).response.status).toBe(400);
    expect((await anonymous.DELETE('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).response.status).toBe(403);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/grants/{grantId}', g(grantId))).response.status).toBe(404);
  });
}
