import { insertHumanUser, insertMachineUserWithToken, insertOrg } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const p = (projectId: string) => ({ params: { path: { projectId } } });
const LONG = 'x'.repeat(201);

export function projectScenarios(h: () => Harness) {
  it('projects, roles and members: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { orgId: otherOrg } = await insertOrg(instance, 'Contract projects');
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });

    // AddProject
    const add = await admin.POST('/management/v1/projects', { body: { name: 'Contract shop', projectRoleCheck: true } });
    expect(add.response.status).toBe(200);
    const projectId = add.data!.id;
    expect((await admin.POST('/management/v1/projects', { body: { name: 'Contract shop' } })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/projects', { body: { name: '' } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects', { body: { name: 'x' } })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects', { body: { name: 'x' } })).response.status).toBe(403);

    // GetProjectByID
    expect((await admin.GET('/management/v1/projects/{projectId}', p(projectId))).data?.project.name).toBe('Contract shop');
    expect((await admin.GET('/management/v1/projects/{projectId}', p(LONG))).response.status).toBe(400);
    expect((await anonymous.GET('/management/v1/projects/{projectId}', p(projectId))).response.status).toBe(401);
    expect((await outsider.GET('/management/v1/projects/{projectId}', p(projectId))).response.status).toBe(403);
    const inOther = h().clientFor(instance.adminToken, otherOrg);
    expect((await inOther.GET('/management/v1/projects/{projectId}', p(projectId))).response.status).toBe(404);

    // UpdateProject
    const update = (body: { name: string; projectRoleCheck?: boolean; projectRoleAssertion?: boolean }, id = projectId) => admin.PUT('/management/v1/projects/{projectId}', { ...p(id), body });
    expect((await update({ name: 'Contract shop', projectRoleCheck: true, projectRoleAssertion: true })).response.status).toBe(200);
    expect((await update({ name: 'Contract shop', projectRoleCheck: true, projectRoleAssertion: true })).response.status).toBe(400);
    const second = (await admin.POST('/management/v1/projects', { body: { name: 'Contract second' } })).data!.id;
    expect((await update({ name: 'Contract shop' }, second)).response.status).toBe(409);
    expect((await update({ name: 'x' }, 'unknown')).response.status).toBe(404);
    expect((await anonymous.PUT('/management/v1/projects/{projectId}', { ...p(projectId), body: { name: 'x' } })).response.status).toBe(401);
    expect((await outsider.PUT('/management/v1/projects/{projectId}', { ...p(projectId), body: { name: 'x' } })).response.status).toBe(403);

    // ListProjects
    const list = await admin.POST('/management/v1/projects/_search', { body: { queries: [{ nameQuery: { name: 'Contract', method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }] } });
    expect(list.data?.result.map((x) => x.id)).toContain(projectId);
    expect((await admin.POST('/management/v1/projects/_search', { body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/_search', { body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/_search', { body: {} })).response.status).toBe(403);

    // AddProjectRole
    const role = { roleKey: 'reader', displayName: 'Reader' };
    expect((await admin.POST('/management/v1/projects/{projectId}/roles', { ...p(projectId), body: role })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/projects/{projectId}/roles', { ...p(projectId), body: role })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/projects/{projectId}/roles', { ...p(projectId), body: { roleKey: '', displayName: 'x' } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/roles', { ...p(projectId), body: role })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/roles', { ...p(projectId), body: role })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/roles', { ...p(projectId), body: role })).response.status).toBe(404);

    // BulkAddProjectRoles
    const roles = {
      roles: [
        { key: 'writer', displayName: 'Writer' },
        { key: 'admin', displayName: 'Admin', group: 'ops' },
      ],
    };
    expect((await admin.POST('/management/v1/projects/{projectId}/roles/_bulk', { ...p(projectId), body: roles })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/projects/{projectId}/roles/_bulk', { ...p(projectId), body: roles })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/projects/{projectId}/roles/_bulk', { ...p(projectId), body: { roles: [] } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/roles/_bulk', { ...p(projectId), body: roles })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/roles/_bulk', { ...p(projectId), body: roles })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/roles/_bulk', { ...p(projectId), body: roles })).response.status).toBe(404);

    // ListProjectRoles
    const found = await admin.POST('/management/v1/projects/{projectId}/roles/_search', { ...p(projectId), body: { queries: [{ keyQuery: { key: 'admin' } }] } });
    expect(found.data?.result).toEqual([expect.objectContaining({ key: 'admin', group: 'ops' })]);
    expect((await admin.POST('/management/v1/projects/{projectId}/roles/_search', { ...p(projectId), body: { query: { limit: -1 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/roles/_search', { ...p(projectId), body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/roles/_search', { ...p(projectId), body: {} })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/roles/_search', { ...p(projectId), body: {} })).response.status).toBe(404);

    // RemoveProjectRole
    const r = (roleKey: string) => ({ params: { path: { projectId, roleKey } } });
    expect((await admin.DELETE('/management/v1/projects/{projectId}/roles/{roleKey}', r('admin'))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/roles/{roleKey}', r('admin'))).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/roles/{roleKey}', r(LONG))).response.status).toBe(400);
    expect((await anonymous.DELETE('/management/v1/projects/{projectId}/roles/{roleKey}', r('writer'))).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/projects/{projectId}/roles/{roleKey}', r('writer'))).response.status).toBe(403);

    // AddProjectMember
    const { userId } = await insertHumanUser(instance, { userName: 'contract-member' });
    const member = { userId, roles: ['PROJECT_OWNER_VIEWER' as const] };
    expect((await admin.POST('/management/v1/projects/{projectId}/members', { ...p(projectId), body: member })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/projects/{projectId}/members', { ...p(projectId), body: member })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/projects/{projectId}/members', { ...p(projectId), body: { userId: 'ghost', roles: ['PROJECT_OWNER'] } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/members', { ...p(projectId), body: member })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/members', { ...p(projectId), body: member })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/members', { ...p(projectId), body: member })).response.status).toBe(404);

    // ListProjectMembers
    const members = await admin.POST('/management/v1/projects/{projectId}/members/_search', { ...p(projectId), body: {} });
    expect(members.data?.result.map((m) => m.userId)).toContain(userId);
    expect((await admin.POST('/management/v1/projects/{projectId}/members/_search', { ...p(projectId), body: { query: { offset: 'x' } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/members/_search', { ...p(projectId), body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/members/_search', { ...p(projectId), body: {} })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/members/_search', { ...p(projectId), body: {} })).response.status).toBe(404);

    // RemoveProjectMember: a project role on another project does not reach this one.
    const m = (id: string) => ({ params: { path: { projectId, userId: id } } });
    const other = await admin.POST('/management/v1/projects', { body: { name: 'Contract other' } });
    const scoped = await insertMachineUserWithToken(instance, { projectRoles: [{ projectId: other.data!.id, roles: ['PROJECT_OWNER'] }] });
    expect((await h().clientFor(scoped.token).DELETE('/management/v1/projects/{projectId}/members/{userId}', m(userId))).response.status).toBe(403);
    expect((await anonymous.DELETE('/management/v1/projects/{projectId}/members/{userId}', m(userId))).response.status).toBe(401);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/members/{userId}', m(LONG))).response.status).toBe(400);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/members/{userId}', m(userId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/members/{userId}', m(userId))).response.status).toBe(404);
  });
}
