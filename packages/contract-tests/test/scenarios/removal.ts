import { insertOrg } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

/** RemoveOrg, RemoveProject and ListAllProjectGrants (issue 30): every documented status. */
export function removalScenarios(h: () => Harness) {
  it('ListAllProjectGrants, RemoveProject, RemoveOrg: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { orgId } = await insertOrg(instance, 'Contract removal');
    const { orgId: partner } = await insertOrg(instance, 'Contract removal partner');
    const inOrg = h().clientFor(instance.adminToken, orgId);
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_USER_MANAGER'], orgId });

    const projectId = (await inOrg.POST('/management/v1/projects', { body: { name: 'Contract removal project' } })).data!.id;
    expect((await inOrg.POST('/management/v1/projects/{projectId}/grants', { params: { path: { projectId } }, body: { grantedOrgId: partner } })).response.status).toBe(200);

    // ListAllProjectGrants
    const all = await inOrg.POST('/management/v1/projectgrants/_search', { body: { queries: [{ grantedOrgIdQuery: { grantedOrgId: partner } }] } });
    expect(all.response.status).toBe(200);
    expect(all.data?.result.map((g) => g.projectId)).toEqual([projectId]);
    expect((await inOrg.POST('/management/v1/projectgrants/_search', { body: { queries: [{ projectNameQuery: { name: 'x', method: 'NOPE' as never } }] } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projectgrants/_search', { body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projectgrants/_search', { body: {} })).response.status).toBe(403);

    // RemoveProject
    const p = { params: { path: { projectId } } };
    expect((await anonymous.DELETE('/management/v1/projects/{projectId}', p)).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/projects/{projectId}', p)).response.status).toBe(403);
    expect((await admin.DELETE('/management/v1/projects/{projectId}', p)).response.status).toBe(404); // another organisation's
    expect((await inOrg.DELETE('/management/v1/projects/{projectId}', { params: { path: { projectId: 'p\u0000' } } })).response.status).toBe(400);
    const removedProject = await inOrg.DELETE('/management/v1/projects/{projectId}', p);
    expect(removedProject.response.status).toBe(200);
    expect(removedProject.data?.details).toMatchObject({ resourceOwner: orgId });

    // RemoveOrg
    expect((await admin.DELETE('/management/v1/orgs/me')).response.status).toBe(400); // the instance's default organisation
    expect((await anonymous.DELETE('/management/v1/orgs/me')).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/orgs/me')).response.status).toBe(403);
    const removedOrg = await inOrg.DELETE('/management/v1/orgs/me');
    expect(removedOrg.response.status).toBe(200);
    expect(removedOrg.data?.details).toMatchObject({ resourceOwner: orgId });
  });
}
