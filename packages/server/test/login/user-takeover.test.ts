/**
 * Issue 33.1, the takeover path as it was probed: an organisation's user manager (a machine user
 * with a PAT) may not set a human IAM_OWNER's password, so it pointed the owner's email at itself
 * and had the password reset mailed there. Both steps must be refused, with nothing written, while
 * the same manager still manages plain users and its own credentials.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertHumanUser, insertMachineUserWithToken, insertOrg, type TestInstance } from '../support/instance.js';

describeEachStore('taking over a more privileged user through its email', (dialect) => {
  let t: TestInstance;
  let owner: string;
  let manager: { userId: string; token: string };
  const asManager = (method: string, path: string, body?: unknown) => t.call(method, path, { token: manager.token, body });
  const mailsTo = async (userId: string) => (await t.store.read.notifications.search({ userId }, { offset: 0, limit: 100, asc: true })).rows;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    owner = (await insertHumanUser(t, { userName: 'owner', email: 'owner@example.com' })).userId;
    expect((await t.call('POST', '/admin/v1/members', { body: { userId: owner, roles: ['IAM_OWNER'] } })).status).toBe(200);
    manager = await insertMachineUserWithToken(t, { orgRoles: ['ORG_USER_MANAGER'] });
  });
  afterAll(() => t.close());

  it('refuses the email change and the reset mail on a human IAM_OWNER (403), and writes nothing', async () => {
    const before = await t.store.read.users.get(owner);
    expect((await asManager('POST', `/management/v1/users/${owner}/password`, { password: 'N3w-Passw0rd!' })).status).toBe(403);

    const email = await asManager('PUT', `/management/v1/users/${owner}/email`, { email: 'attacker@evil.example', isEmailVerified: true });
    expect(email.status).toBe(403);
    expect((await email.json()).details[0].id).toBe('COMMAND-Auth0r');
    const reset = await asManager('POST', `/management/v1/users/${owner}/password/_reset`, {});
    expect(reset.status).toBe(403);
    expect((await reset.json()).details[0].id).toBe('COMMAND-Auth0r');

    expect(await t.store.read.users.get(owner)).toEqual(before);
    expect(await mailsTo(owner)).toEqual([]);
    const { events } = await t.store.read.events.search({ creator: manager.userId, limit: 10, offset: 0, asc: true });
    expect(events).toEqual([]);
  });

  it('the instance owner may still do both; the manager still may on a plain user', async () => {
    expect((await t.call('PUT', `/management/v1/users/${owner}/email`, { body: { email: 'owner@new.example', isEmailVerified: true } })).status).toBe(200);
    expect((await t.call('POST', `/management/v1/users/${owner}/password/_reset`, { body: {} })).status).toBe(200);
    expect((await mailsTo(owner)).map((m) => [m.messageType, m.recipient])).toEqual([['password_reset', 'owner@new.example']]);

    const plain = (await insertHumanUser(t)).userId;
    expect((await asManager('PUT', `/management/v1/users/${plain}/email`, { email: 'plain@new.example', isEmailVerified: true })).status).toBe(200);
    expect((await asManager('POST', `/management/v1/users/${plain}/password/_reset`, {})).status).toBe(200);
    expect((await mailsTo(plain)).map((m) => [m.messageType, m.recipient])).toEqual([['password_reset', 'plain@new.example']]);
  });

  it('a user keeps managing its own credentials, though it may not grant the role it holds', async () => {
    // ORG_USER_MANAGER lacks org.member.write, so the check would refuse it on itself.
    expect((await asManager('POST', `/management/v1/users/${manager.userId}/pats`, {})).status).toBe(200);
    expect((await asManager('PUT', `/management/v1/users/${manager.userId}/secret`)).status).toBe(200);
  });

  it('a project-grant role is as much authority as the grant it came from: who may grant it manages the user', async () => {
    const ok = async (res: Response | Promise<Response>) => {
      const r = await res;
      expect(r.status, await r.clone().text()).toBe(200);
      return r.json();
    };
    const granted = (await insertOrg(t, 'Granted')).orgId;
    const project = (await ok(t.call('POST', '/management/v1/projects', { body: { name: 'Shared' } }))).id;
    await ok(t.call('POST', `/management/v1/projects/${project}/roles/_bulk`, { body: { roles: [{ key: 'reader', displayName: 'Reader' }] } }));
    const { grantId } = await ok(t.call('POST', `/management/v1/projects/${project}/grants`, { body: { grantedOrgId: granted, roleKeys: ['reader'] } }));
    const member = (await insertHumanUser(t, { orgId: granted })).userId;
    await ok(t.call('POST', `/management/v1/projects/${project}/grants/${grantId}/members`, { body: { userId: member, roles: ['PROJECT_GRANT_OWNER'] } }));
    const inGranted = { 'x-service-orgid': granted };

    // The granted organisation's user manager may not grant it (only the project's organisation may).
    const grantedManager = await insertMachineUserWithToken(t, { orgId: granted, orgRoles: ['ORG_USER_MANAGER'] });
    expect((await t.call('POST', `/management/v1/users/${member}/password`, { token: grantedManager.token, body: { password: 'N3w-Passw0rd!' } })).status).toBe(403);
    // The instance owner may: it holds project.grant.member.write everywhere.
    expect((await t.call('POST', `/management/v1/users/${member}/password`, { headers: inGranted, body: { password: 'N3w-Passw0rd!' } })).status).toBe(200);
  });
});
