import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const suffix = () => randomUUID().slice(0, 8);
const userPath = (userId: string) => ({ params: { path: { userId } } });

export function userScenarios(h: () => Harness) {
  it('users: import a human, add a machine, get, list, 400 and 409', async () => {
    const { admin } = h();
    const userName = `human-${suffix()}`;
    const human = await admin.POST('/management/v1/users/human/_import', {
      body: {
        userName,
        profile: { firstName: 'Con', lastName: 'Tract', gender: 'GENDER_DIVERSE' },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        password: 'Contr4ct!',
      },
    });
    expect(human.response.status).toBe(200);
    const humanId = human.data!.userId;
    const dupHuman = await admin.POST('/management/v1/users/human/_import', {
      body: { userName: userName.toUpperCase(), profile: { firstName: 'a', lastName: 'b' }, email: { email: 'x@example.com' } },
    });
    expect(dupHuman.response.status).toBe(409);
    const badEmail = await admin.POST('/management/v1/users/human/_import', {
      body: { userName: `e-${suffix()}`, profile: { firstName: 'a', lastName: 'b' }, email: { email: 'nope' } },
    });
    expect(badEmail.response.status).toBe(400);
    expect(badEmail.error?.message).toContain('email');

    const machineName = `machine-${suffix()}`;
    const machine = await admin.POST('/management/v1/users/machine', { body: { userName: machineName, name: 'Contract machine' } });
    expect(machine.response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/machine', { body: { userName: machineName, name: 'again' } })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/users/machine', { body: { userName: '', name: 'x' } })).response.status).toBe(400);

    const got = await admin.GET('/management/v1/users/{userId}', userPath(humanId));
    expect(got.data?.user).toMatchObject({ id: humanId, userName, state: 'USER_STATE_ACTIVE', human: { profile: { displayName: 'Con Tract' } } });
    const gotMachine = await admin.GET('/management/v1/users/{userId}', userPath(machine.data!.userId));
    expect(gotMachine.data?.user.machine).toMatchObject({ name: 'Contract machine', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' });
    expect((await admin.GET('/management/v1/users/{userId}', userPath('missing'))).response.status).toBe(404);

    const list = await admin.POST('/management/v1/users/_search', { body: { queries: [{ userNameQuery: { userName, method: 'TEXT_QUERY_METHOD_EQUALS' } }] } });
    expect(list.data?.result.map((u) => u.id)).toEqual([humanId]);
    expect((await admin.POST('/management/v1/users/_search', { body: { query: { limit: 5000 } } })).response.status).toBe(400);
  });

  it('PATs: create, authenticate, list, revoke; removing the user ends its token', async () => {
    const { admin, clientFor } = h();
    const { data } = await admin.POST('/management/v1/users/machine', { body: { userName: `pat-${suffix()}`, name: 'PAT holder' } });
    const userId = data!.userId;
    await admin.POST('/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_OWNER_VIEWER'] } });

    const pat = await admin.POST('/management/v1/users/{userId}/pats', { ...userPath(userId), body: {} });
    expect(pat.response.status).toBe(200);
    const holder = clientFor(pat.data!.token);
    expect((await holder.GET('/management/v1/orgs/me')).response.status).toBe(200);

    const list = await admin.POST('/management/v1/users/{userId}/pats/_search', { ...userPath(userId), body: {} });
    expect(list.data?.result.map((p) => p.id)).toEqual([pat.data!.tokenId]);
    expect((await admin.POST('/management/v1/users/{userId}/pats/_search', { ...userPath(userId), body: { query: { limit: -1 } } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/pats/_search', { ...userPath('missing'), body: {} })).response.status).toBe(404);

    expect((await admin.POST('/management/v1/users/{userId}/pats', { ...userPath(userId), body: { expirationDate: '2001-01-01T00:00:00Z' } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/pats', { ...userPath('missing'), body: {} })).response.status).toBe(404);

    const second = await admin.POST('/management/v1/users/{userId}/pats', { ...userPath(userId), body: {} });
    const tokenPath = { params: { path: { userId, tokenId: second.data!.tokenId } } };
    expect((await admin.DELETE('/management/v1/users/{userId}/pats/{tokenId}', tokenPath)).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/users/{userId}/pats/{tokenId}', tokenPath)).response.status).toBe(404);
    expect((await clientFor(second.data!.token).GET('/management/v1/orgs/me')).response.status).toBe(401);

    expect((await admin.DELETE('/management/v1/users/{userId}', userPath(userId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/users/{userId}', userPath(userId))).response.status).toBe(404);
    expect((await holder.GET('/management/v1/orgs/me')).response.status).toBe(401);
  });

  it('users and PATs: 401 without a token, 403 without the permission', async () => {
    const { anonymous } = h();
    const { client, userId } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    const tokenPath = { params: { path: { userId, tokenId: 'x' } } };
    for (const c of [anonymous, client]) {
      const expected = c === anonymous ? 401 : 403;
      expect((await c.POST('/management/v1/users/human/_import', { body: { userName: 'x', profile: { firstName: 'a', lastName: 'b' }, email: { email: 'x@example.com' } } })).response.status).toBe(
        expected,
      );
      expect((await c.POST('/management/v1/users/machine', { body: { userName: 'x', name: 'x' } })).response.status).toBe(expected);
      expect((await c.POST('/management/v1/users/_search', { body: {} })).response.status).toBe(expected);
      expect((await c.GET('/management/v1/users/{userId}', userPath(userId))).response.status).toBe(expected);
      expect((await c.DELETE('/management/v1/users/{userId}', userPath(userId))).response.status).toBe(expected);
      expect((await c.POST('/management/v1/users/{userId}/pats', { ...userPath(userId), body: {} })).response.status).toBe(expected);
      expect((await c.POST('/management/v1/users/{userId}/pats/_search', { ...userPath(userId), body: {} })).response.status).toBe(expected);
      expect((await c.DELETE('/management/v1/users/{userId}/pats/{tokenId}', tokenPath)).response.status).toBe(expected);
    }
  });
}
