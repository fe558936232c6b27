import { insertHumanUser, insertMachineUserWithToken, insertOrg } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const LONG = 'x'.repeat(201);
const u = (userId: string) => ({ params: { path: { userId } } });
const g = (userId: string, grantId: string) => ({ params: { path: { userId, grantId } } });
const GRANT = '/management/v1/users/{userId}/grants/{grantId}' as const;

export function userGrantScenarios(h: () => Harness) {
  it('user grants: the RemoveUserGrant scenario and every documented status', async () => {
    const { anonymous, instance } = h();
    const { orgId: orgA } = await insertOrg(instance, 'Contract grants A');
    const { orgId: orgB } = await insertOrg(instance, 'Contract grants B');
    const inA = h().clientFor(instance.adminToken, orgA);
    const inB = h().clientFor(instance.adminToken, orgB);
    const { userId } = await insertHumanUser(instance, { orgId: orgA, userName: 'grantee' });
    const projectId = (await inA.POST('/management/v1/projects', { body: { name: 'Granted' } })).data!.id;
    await inA.POST('/management/v1/projects/{projectId}/roles/_bulk', {
      params: { path: { projectId } },
      body: {
        roles: [
          { key: 'reader', displayName: 'Reader' },
          { key: 'writer', displayName: 'Writer' },
        ],
      },
    });
    const outsider = h().clientFor((await insertMachineUserWithToken(instance, { orgId: orgA, orgRoles: ['ORG_SETTINGS_MANAGER'] })).token);
    const otherProject = (await inA.POST('/management/v1/projects', { body: { name: 'Granted other' } })).data!.id;
    const scoped = h().clientFor((await insertMachineUserWithToken(instance, { orgId: orgA, projectRoles: [{ projectId: otherProject, roles: ['PROJECT_OWNER'] }] })).token);

    // AddUserGrant
    const add = await inA.POST('/management/v1/users/{userId}/grants', { ...u(userId), body: { projectId, roleKeys: ['reader'] } });
    expect(add.response.status).toBe(200);
    expect(add.data?.details.sequence).toBe('1');
    const grantId = add.data!.userGrantId;
    expect((await inA.POST('/management/v1/users/{userId}/grants', { ...u(userId), body: { projectId } })).response.status).toBe(409);
    expect((await inA.POST('/management/v1/users/{userId}/grants', { ...u(userId), body: { projectId, roleKeys: ['nope'] } })).error?.details[0].id).toBe('COMMAND-mm9F4');
    expect((await anonymous.POST('/management/v1/users/{userId}/grants', { ...u(userId), body: { projectId } })).response.status).toBe(401);
    expect((await scoped.POST('/management/v1/users/{userId}/grants', { ...u(userId), body: { projectId } })).error?.details[0].id).toBe('EVENT-Shu7e');

    // GetUserGrantByID
    expect((await inA.GET(GRANT, g(userId, grantId))).data?.userGrant).toMatchObject({ id: grantId, roleKeys: ['reader'], state: 'USER_GRANT_STATE_ACTIVE' });
    expect((await inA.GET(GRANT, g(userId, LONG))).response.status).toBe(400);
    expect((await anonymous.GET(GRANT, g(userId, grantId))).response.status).toBe(401);
    expect((await outsider.GET(GRANT, g(userId, grantId))).response.status).toBe(403);
    expect((await inB.GET(GRANT, g(userId, grantId))).error?.details[0].id).toBe('QUERY-wIPkA');

    // ListUserGrants
    const list = await inA.POST('/management/v1/users/grants/_search', { body: { queries: [{ userIdQuery: { userId } }] } });
    expect(list.data?.result.map((x) => x.id)).toEqual([grantId]);
    expect((await inA.POST('/management/v1/users/grants/_search', { body: { queries: [{ userIdQuery: { userId: '' } }] } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/users/grants/_search', { body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/users/grants/_search', { body: {} })).response.status).toBe(403);

    // UpdateUserGrant
    expect((await inA.PUT(GRANT, { ...g(userId, grantId), body: { roleKeys: ['writer'] } })).data?.details.sequence).toBe('2');
    expect((await inA.PUT(GRANT, { ...g(userId, grantId), body: { roleKeys: ['writer'] } })).response.status).toBe(400);
    expect((await anonymous.PUT(GRANT, { ...g(userId, grantId), body: {} })).response.status).toBe(401);
    expect((await scoped.PUT(GRANT, { ...g(userId, grantId), body: {} })).response.status).toBe(403);
    expect((await inB.PUT(GRANT, { ...g(userId, grantId), body: {} })).response.status).toBe(404);

    // DeactivateUserGrant / ReactivateUserGrant
    // Deactivate first (a second deactivation is the wrong state), then reactivate likewise.
    for (const path of [`${GRANT}/_deactivate`, `${GRANT}/_reactivate`] as const) {
      expect((await inA.POST(path, g(userId, grantId))).response.status).toBe(200);
      expect((await inA.POST(path, g(userId, grantId))).response.status).toBe(400);
      expect((await anonymous.POST(path, g(userId, grantId))).response.status).toBe(401);
      expect((await outsider.POST(path, g(userId, grantId))).response.status).toBe(403);
      expect((await inB.POST(path, g(userId, grantId))).response.status).toBe(404);
    }

    // RemoveUserGrant: 200 with details, then 404 code 5; re-adding works.
    expect((await anonymous.DELETE(GRANT, g(userId, grantId))).response.status).toBe(401);
    expect((await scoped.DELETE(GRANT, g(userId, grantId))).error?.details[0].id).toBe('EVENT-Shu7e');
    expect((await inA.DELETE(GRANT, g(userId, LONG))).response.status).toBe(400);
    const removed = await inA.DELETE(GRANT, g(userId, grantId));
    expect(removed.response.status).toBe(200);
    expect(removed.data?.details).toMatchObject({ sequence: expect.stringMatching(/^\d+$/), resourceOwner: orgA });
    expect(removed.data?.details.changeDate).toBeTruthy();
    const again = await inA.DELETE(GRANT, g(userId, grantId));
    expect(again.response.status).toBe(404);
    expect(again.error).toMatchObject({ code: 5, message: 'User grant not found (COMMAND-1My0t)' });
    const readded = await inA.POST('/management/v1/users/{userId}/grants', { ...u(userId), body: { projectId, roleKeys: ['reader'] } });
    expect(readded.response.status).toBe(200);

    // BulkRemoveUserGrant
    const bulk = (grantIds: string[]) => ({ body: { grantId: grantIds } });
    expect((await inA.DELETE('/management/v1/user_grants/_bulk', bulk([]))).error?.details[0].id).toBe('COMMAND-5M0sd');
    expect((await inA.DELETE('/management/v1/user_grants/_bulk', bulk([readded.data!.userGrantId, 'missing']))).response.status).toBe(404);
    expect((await anonymous.DELETE('/management/v1/user_grants/_bulk', bulk([readded.data!.userGrantId]))).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/user_grants/_bulk', bulk([readded.data!.userGrantId]))).response.status).toBe(403);
    const all = await inA.DELETE('/management/v1/user_grants/_bulk', bulk([readded.data!.userGrantId]));
    expect(all.response.status).toBe(200);
    expect((await inA.GET(GRANT, g(userId, readded.data!.userGrantId))).response.status).toBe(404);
  });
}
