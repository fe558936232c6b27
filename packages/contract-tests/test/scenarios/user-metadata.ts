import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const NUL = 'a\u0000b';

/** A user's metadata: every documented status through the typed client. */
export function userMetadataScenarios(h: () => Harness) {
  it('user metadata: set, bulk set, get, list, remove, bulk remove; 400, 401, 403, 404', async () => {
    const { admin, anonymous } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_OWNER_VIEWER'] });
    const userName = `meta-${randomUUID().slice(0, 8)}`;
    const userId = (await admin.POST('/management/v1/users/machine', { body: { userName, name: 'Meta' } })).data!.userId;
    const user = { params: { path: { userId } } };
    const key = (k: string, id = userId) => ({ params: { path: { userId: id, key: k } } });
    const value = Buffer.from('v').toString('base64');

    expect((await admin.POST('/management/v1/users/{userId}/metadata/{key}', { ...key('a'), body: { value } })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/metadata/{key}', { ...key('a'), body: { value: '%%%' } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/metadata/{key}', { ...key('a', 'missing'), body: { value } })).response.status).toBe(404);
    expect(
      (
        await admin.POST('/management/v1/users/{userId}/metadata/_bulk', {
          ...user,
          body: {
            metadata: [
              { key: 'b', value },
              { key: 'c', value },
            ],
          },
        })
      ).response.status,
    ).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/metadata/_bulk', { ...user, body: { metadata: [] } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/metadata/_bulk', { params: { path: { userId: 'missing' } }, body: { metadata: [{ key: 'b', value }] } })).response.status).toBe(404);
    const got = await admin.GET('/management/v1/users/{userId}/metadata/{key}', key('a'));
    expect(got.data?.metadata).toMatchObject({ key: 'a', value });
    expect((await admin.GET('/management/v1/users/{userId}/metadata/{key}', key('zz'))).response.status).toBe(404);
    expect((await admin.GET('/management/v1/users/{userId}/metadata/{key}', key('a', NUL))).response.status).toBe(400);
    const list = await admin.POST('/management/v1/users/{userId}/metadata/_search', { ...user, body: {} });
    expect(list.data?.result.map((m) => m.key)).toEqual(['a', 'b', 'c']);
    expect((await admin.POST('/management/v1/users/{userId}/metadata/_search', { ...user, body: { query: { limit: -1 } } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/metadata/_search', { params: { path: { userId: 'missing' } }, body: {} })).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/users/{userId}/metadata/{key}', key('a'))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/users/{userId}/metadata/{key}', key('a'))).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/users/{userId}/metadata/{key}', key('a', NUL))).response.status).toBe(400);
    expect((await admin.DELETE('/management/v1/users/{userId}/metadata/_bulk', { ...user, body: { keys: ['b', 'c'] } })).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/users/{userId}/metadata/_bulk', { ...user, body: { keys: ['b'] } })).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/users/{userId}/metadata/_bulk', { ...user, body: { keys: [] } })).response.status).toBe(400);

    for (const [c, status] of [
      [anonymous, 401],
      [outsider, 403],
    ] as const) {
      expect((await c.POST('/management/v1/users/{userId}/metadata/{key}', { ...key('a'), body: { value } })).response.status).toBe(status);
      expect((await c.POST('/management/v1/users/{userId}/metadata/_bulk', { ...user, body: { metadata: [{ key: 'a', value }] } })).response.status).toBe(status);
      expect((await c.DELETE('/management/v1/users/{userId}/metadata/{key}', key('a'))).response.status).toBe(status);
      expect((await c.DELETE('/management/v1/users/{userId}/metadata/_bulk', { ...user, body: { keys: ['a'] } })).response.status).toBe(status);
    }
    expect((await anonymous.GET('/management/v1/users/{userId}/metadata/{key}', key('a'))).response.status).toBe(401);
    expect((await anonymous.POST('/management/v1/users/{userId}/metadata/_search', { ...user, body: {} })).response.status).toBe(401);
    const { client: noRead } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'] });
    expect((await noRead.GET('/management/v1/users/{userId}/metadata/{key}', key('a'))).response.status).toBe(403);
    expect((await noRead.POST('/management/v1/users/{userId}/metadata/_search', { ...user, body: {} })).response.status).toBe(403);
  });
}
