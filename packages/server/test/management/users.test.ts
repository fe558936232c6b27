import { verify } from '@node-rs/argon2';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const HUMAN = {
  userName: 'Ada',
  profile: { firstName: 'Ada', lastName: 'Lovelace', preferredLanguage: 'en', gender: 'GENDER_FEMALE' },
  email: { email: 'ada@example.com', isEmailVerified: true },
  phone: { phone: '+441234567', isPhoneVerified: false },
  password: 'Secr3t!pass',
};

describeEachStore('users and personal access tokens', (dialect) => {
  let t: TestInstance;
  let orgId: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });
  const call = (method: string, path: string, body?: unknown, token?: string) => t.call(method, path, { body, token, headers: inOrg() });

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgId = (await (await t.call('POST', '/management/v1/orgs', { body: { name: 'Users Org' } })).json()).id;
  });
  afterAll(() => t.close());

  it('imports a human with a password hashed with argon2id, and reads it back', async () => {
    const res = await call('POST', '/management/v1/users/human/_import', HUMAN);
    expect(res.status).toBe(200);
    const { userId, details } = await res.json();
    expect(details).toMatchObject({ sequence: '1', resourceOwner: orgId });

    const row = await t.store.read.users.get(userId);
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await verify(row!.passwordHash!, HUMAN.password)).toBe(true);

    const get = await call('GET', `/management/v1/users/${userId}`);
    expect(get.status).toBe(200);
    const { user } = await get.json();
    expect(user).toMatchObject({
      id: userId,
      state: 'USER_STATE_ACTIVE',
      userName: 'Ada',
      loginNames: ['Ada@users-org.localhost'],
      preferredLoginName: 'Ada@users-org.localhost',
      human: {
        profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: 'Ada Lovelace', preferredLanguage: 'en', gender: 'GENDER_FEMALE' },
        email: { email: 'ada@example.com', isEmailVerified: true },
        phone: { phone: '+441234567' },
      },
      details: { sequence: '1', resourceOwner: orgId },
    });
    expect(user.machine).toBeUndefined();

    const { events } = await t.store.read.events.search({ aggregateId: userId, limit: 5, offset: 0, asc: true });
    expect(events[0]).toMatchObject({ type: 'user.human.added', creator: t.adminUserId, resourceOwner: orgId });
    expect(JSON.stringify(events[0].payload)).not.toContain('argon2');
  });

  it('stores a given hash as is, keeps a given id, and marks a user without verified email initial', async () => {
    const hash = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
    const res = await call('POST', '/management/v1/users/human/_import', {
      userId: 'imported-1',
      userName: 'grace',
      profile: { firstName: 'Grace', lastName: 'Hopper' },
      email: { email: 'grace@example.com' },
      hashedPassword: { value: hash, algorithm: 'bcrypt' },
      passwordChangeRequired: true,
    });
    expect(res.status).toBe(200);
    expect((await res.json()).userId).toBe('imported-1');
    const row = await t.store.read.users.get('imported-1');
    expect(row).toMatchObject({ passwordHash: hash, passwordChangeRequired: true, state: 'USER_STATE_INITIAL' });

    const again = await call('POST', '/management/v1/users/human/_import', {
      userId: 'imported-1',
      userName: 'other',
      profile: { firstName: 'G', lastName: 'H' },
      email: { email: 'g@example.com' },
    });
    expect(again.status).toBe(409);
  });

  it('answers 409 for a user name taken in the organisation in any case, but allows it in another organisation', async () => {
    const dup = await call('POST', '/management/v1/users/machine', { userName: 'ADA', name: 'dup' });
    expect(dup.status).toBe(409);
    expect((await dup.json()).details[0].id).toBe('V3-DKcYh');
    const elsewhere = await t.call('POST', '/management/v1/users/machine', { body: { userName: 'ada', name: 'other org' } });
    expect(elsewhere.status).toBe(200);
  });

  it('answers 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ ...HUMAN, userName: '' }, 'userName'],
      [{ ...HUMAN, userName: 'u'.repeat(201) }, 'userName'],
      [{ ...HUMAN, userName: 'e1', email: { email: 'not-an-email' } }, 'email.email'],
      [{ ...HUMAN, userName: 'e2', profile: { lastName: 'x' } }, 'profile.firstName'],
      [{ ...HUMAN, userName: 'e3', phone: { phone: '0123' } }, 'phone.phone'],
      [{ ...HUMAN, userName: 'e4', profile: { ...HUMAN.profile, preferredLanguage: 'x'.repeat(11) } }, 'profile.preferredLanguage'],
      [{ ...HUMAN, userName: 'e5', password: 'short' }, 'password'],
      [{ ...HUMAN, userName: 'e6', password: 'nouppercase1!' }, 'password'],
      [{ ...HUMAN, userName: 'e7', hashedPassword: { value: '$2a$x' } }, 'hashedPassword'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/management/v1/users/human/_import', body);
      expect(res.status, field).toBe(400);
      expect((await res.json()).message, field).toContain(field);
    }
    const machineCases: [unknown, string][] = [
      [{ userName: 'm', name: '' }, 'name'],
      [{ userName: 'm', name: 'n', description: 'd'.repeat(501) }, 'description'],
      [{ userName: 'm', name: 'n', accessTokenType: 'OPAQUE' }, 'accessTokenType'],
    ];
    for (const [body, field] of machineCases) {
      const res = await call('POST', '/management/v1/users/machine', body);
      expect(res.status, field).toBe(400);
      expect((await res.json()).message, field).toContain(field);
    }
  });

  it('creates machine users, lists and filters the users of the organisation only', async () => {
    const res = await call('POST', '/management/v1/users/machine', { userName: 'robot', name: 'Robot', description: 'beep', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
    expect(res.status).toBe(200);
    const { userId } = await res.json();
    const { user } = await (await call('GET', `/management/v1/users/${userId}`)).json();
    expect(user.machine).toEqual({ name: 'Robot', description: 'beep', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });

    const list = async (body: unknown) => await (await call('POST', '/management/v1/users/_search', body)).json();
    const all = await list({});
    expect(all.result.map((u: { userName: string }) => u.userName).sort()).toEqual(['Ada', 'grace', 'robot']);
    expect(all.details.totalResult).toBe('3');
    const machines = await list({ queries: [{ typeQuery: { type: 'TYPE_MACHINE' } }] });
    expect(machines.result.map((u: { userName: string }) => u.userName)).toEqual(['robot']);
    const byName = await list({ queries: [{ userNameQuery: { userName: 'ADA', method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' } }] });
    expect(byName.result.map((u: { userName: string }) => u.userName)).toEqual(['Ada']);
    const both = await list({ queries: [{ typeQuery: { type: 'TYPE_MACHINE' } }, { typeQuery: { type: 'TYPE_HUMAN' } }] });
    expect(both.result).toEqual([]);
    const page = await list({ query: { offset: 1, limit: 1 } });
    expect(page.result).toHaveLength(1);
    expect(page.details.totalResult).toBe('3');

    // The same user read with another context organisation is not found.
    expect((await t.call('GET', `/management/v1/users/${userId}`)).status).toBe(404);
  });

  it('PATs: created for a machine user, authenticate, listed without the token, revoked; deleting the user kills them', async () => {
    const { userId } = await (await call('POST', '/management/v1/users/machine', { userName: 'tokened', name: 'T' })).json();
    await t.call('POST', '/management/v1/orgs/me/members', { body: { userId, roles: ['ORG_USER_MANAGER'] }, headers: inOrg() });

    const add = await call('POST', `/management/v1/users/${userId}/pats`, {});
    expect(add.status).toBe(200);
    const { tokenId, token, details } = await add.json();
    expect(token.length).toBeGreaterThan(30);
    expect(details.resourceOwner).toBe(orgId);
    const me = await t.call('GET', '/management/v1/orgs/me', { token });
    expect(me.status).toBe(200);
    expect((await me.json()).org.id).toBe(orgId);

    const exp = new Date(Date.now() + 3600_000).toISOString();
    const second = await (await call('POST', `/management/v1/users/${userId}/pats`, { expirationDate: exp })).json();
    const list = await (await call('POST', `/management/v1/users/${userId}/pats/_search`, {})).json();
    expect(list.details.totalResult).toBe('2');
    expect(list.result.map((p: { id: string }) => p.id)).toEqual([tokenId, second.tokenId]);
    expect(list.result[0].expirationDate).toBe('9999-12-31T23:59:59.000Z');
    expect(list.result[1].expirationDate).toBe(exp);
    expect(JSON.stringify(list)).not.toContain(token);

    const revoke = await call('DELETE', `/management/v1/users/${userId}/pats/${second.tokenId}`);
    expect(revoke.status).toBe(200);
    expect((await t.call('GET', '/management/v1/orgs/me', { token: second.token })).status).toBe(401);
    expect((await call('DELETE', `/management/v1/users/${userId}/pats/${second.tokenId}`)).status).toBe(404);

    const removed = await call('DELETE', `/management/v1/users/${userId}`);
    expect(removed.status).toBe(200);
    const after = await t.call('GET', '/management/v1/orgs/me', { token });
    expect(after.status).toBe(401);
    expect(await t.store.read.members.get('org', orgId, userId)).toBeUndefined();
    expect((await call('GET', `/management/v1/users/${userId}`)).status).toBe(404);
    expect((await call('DELETE', `/management/v1/users/${userId}`)).status).toBe(404);
    const { events } = await t.store.read.events.search({ aggregateId: orgId, limit: 1, offset: 0, asc: false });
    expect(events[0]).toMatchObject({ type: 'org.member.cascade.removed', payload: { userId } });
  });

  it('PAT errors: past expiry 400 DOMAIN-dv3t5, human 400 COMMAND-Df2f1, missing user 404', async () => {
    const { userId } = await (await call('POST', '/management/v1/users/machine', { userName: 'exp', name: 'E' })).json();
    const past = await call('POST', `/management/v1/users/${userId}/pats`, { expirationDate: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect((await past.json()).details[0].id).toBe('DOMAIN-dv3t5');
    const malformed = await call('POST', `/management/v1/users/${userId}/pats`, { expirationDate: 'tomorrow' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).message).toContain('expirationDate');

    const human = (await t.store.read.users.search(orgId, { type: 'human' }, { offset: 0, limit: 1, asc: true })).rows[0];
    const wrong = await call('POST', `/management/v1/users/${human.id}/pats`, {});
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).details[0].id).toBe('COMMAND-Df2f1');
    expect((await call('POST', '/management/v1/users/404/pats', {})).status).toBe(404);
    expect((await call('POST', '/management/v1/users/404/pats/_search', {})).status).toBe(404);
  });

  it('permissions: user.read cannot write, nobody outside the organisation can read', async () => {
    const viewer = await insertMachineUserWithToken(t, { orgId, orgRoles: ['ORG_OWNER_VIEWER'] });
    expect((await call('POST', '/management/v1/users/_search', {}, viewer.token)).status).toBe(200);
    expect((await call('POST', '/management/v1/users/machine', { userName: 'x', name: 'x' }, viewer.token)).status).toBe(403);
    expect((await call('DELETE', `/management/v1/users/${viewer.userId}`, undefined, viewer.token)).status).toBe(403);
    expect((await call('POST', `/management/v1/users/${viewer.userId}/pats`, {}, viewer.token)).status).toBe(403);

    const outsider = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    expect((await call('POST', '/management/v1/users/_search', {}, outsider.token)).status).toBe(403);
    expect((await call('GET', `/management/v1/users/${viewer.userId}`, undefined, outsider.token)).status).toBe(403);
  });
});
