import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const memberPath = (userId: string) => ({ params: { path: { userId } } });

export function memberScenarios(h: () => Harness) {
  it('org members: add, search, update, remove with 400, 404 and 409', async () => {
    const { admin } = h();
    const { data } = await admin.POST('/management/v1/users/machine', { body: { userName: `member-${randomUUID().slice(0, 8)}`, name: 'Member' } });
    const userId = data!.userId;

    expect((await admin.POST('/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_USER_MANAGER'] } })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_OWNER'] } })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/orgs/me/members', { body: { userId, roles: ['IAM_OWNER'] } })).response.status).toBe(400);

    const search = await admin.POST('/management/v1/orgs/me/members/_search', { body: { queries: [{ userIdQuery: { userId } }] } });
    expect(search.data?.result).toEqual([expect.objectContaining({ userId, roles: ['ORG_USER_MANAGER'], userType: 'TYPE_MACHINE' })]);
    expect((await admin.POST('/management/v1/orgs/me/members/_search', { body: { query: { limit: 1001 } } })).response.status).toBe(400);

    expect((await admin.PUT('/management/v1/orgs/me/members/{userId}', { ...memberPath(userId), body: { roles: ['ORG_OWNER_VIEWER'] } })).response.status).toBe(200);
    expect((await admin.PUT('/management/v1/orgs/me/members/{userId}', { ...memberPath(userId), body: { roles: [] } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/orgs/me/members/{userId}', { ...memberPath('missing'), body: { roles: ['ORG_OWNER'] } })).response.status).toBe(404);

    expect((await admin.DELETE('/management/v1/orgs/me/members/{userId}', memberPath(userId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/orgs/me/members/{userId}', memberPath(userId))).response.status).toBe(404);
  });

  it('instance members: add, search, remove with 400, 404 and 409', async () => {
    const { admin } = h();
    const { data } = await admin.POST('/management/v1/users/machine', { body: { userName: `iam-${randomUUID().slice(0, 8)}`, name: 'IAM member' } });
    const userId = data!.userId;
    expect((await admin.POST('/admin/v1/members', { body: { userId, roles: ['IAM_OWNER_VIEWER'] } })).response.status).toBe(200);
    expect((await admin.POST('/admin/v1/members', { body: { userId, roles: ['IAM_OWNER'] } })).response.status).toBe(409);
    expect((await admin.POST('/admin/v1/members', { body: { userId, roles: ['ORG_OWNER'] } })).response.status).toBe(400);

    const search = await admin.POST('/admin/v1/members/_search', { body: {} });
    expect(search.data?.result.map((m) => m.userId)).toContain(userId);
    expect((await admin.POST('/admin/v1/members/_search', { body: { query: { limit: 1001 } } })).response.status).toBe(400);

    expect((await admin.DELETE('/admin/v1/members/{userId}', memberPath(userId))).response.status).toBe(200);
    expect((await admin.DELETE('/admin/v1/members/{userId}', memberPath(userId))).response.status).toBe(404);
  });

  it('members: 401 without a token, 403 without the permission', async () => {
    const { anonymous } = h();
    const { client, userId } = await h().userWithRoles({ org: ['ORG_USER_MANAGER'] });
    for (const c of [anonymous, client]) {
      const expected = c === anonymous ? 401 : 403;
      expect((await c.POST('/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_OWNER'] } })).response.status).toBe(expected);
      expect((await c.PUT('/management/v1/orgs/me/members/{userId}', { ...memberPath(userId), body: { roles: ['ORG_OWNER'] } })).response.status).toBe(expected);
      expect((await c.DELETE('/management/v1/orgs/me/members/{userId}', memberPath(userId))).response.status).toBe(expected);
      expect((await c.POST('/admin/v1/members', { body: { userId, roles: ['IAM_OWNER'] } })).response.status).toBe(expected);
      expect((await c.POST('/admin/v1/members/_search', { body: {} })).response.status).toBe(expected);
      expect((await c.DELETE('/admin/v1/members/{userId}', memberPath(userId))).response.status).toBe(expected);
    }
    expect((await anonymous.POST('/management/v1/orgs/me/members/_search', { body: {} })).response.status).toBe(401);
    const { client: nobody } = await h().userWithRoles({});
    expect((await nobody.POST('/management/v1/orgs/me/members/_search', { body: {} })).response.status).toBe(403);
  });
}
