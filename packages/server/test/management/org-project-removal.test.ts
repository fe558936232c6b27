/**
 * RemoveOrg and RemoveProject (issue 30, ZITADEL's management API): what they own goes with them,
 * one event each, and a removed organisation can be imported again with its ids. ListAllProjectGrants.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OrgRemovalWorker } from '../../src/background/org-removal-worker.js';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';
import { BCRYPT } from '../support/transfer-documents.js';

const human = (userId: string, userName: string) => ({
  userId,
  user: { userName, profile: { firstName: 'F', lastName: 'L' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, hashedPassword: { value: BCRYPT } },
});

/** Organisation X with a user, a machine with a key, a project with roles, apps, a grant to Y, members; Y's user holds a grant through it. */
function document(p: string) {
  return {
    orgs: [
      {
        orgId: `${p}00`,
        org: { name: `Removal X ${p}` },
        humanUsers: [human(`${p}01`, 'alice')],
        machineUsers: [{ userId: `${p}02`, user: { userName: 'robot', name: 'Robot' } }],
        projects: [
          { projectId: `${p}10`, project: { name: 'shop' } },
          { projectId: `${p}11`, project: { name: 'other' } },
        ],
        projectRoles: [{ projectId: `${p}10`, roleKey: 'buyer', displayName: 'Buyer' }],
        oidcApps: [{ appId: `${p}20`, app: { projectId: `${p}10`, name: 'web', redirectUris: ['https://rp.example.com/cb'] } }],
        apiApps: [{ appId: `${p}21`, app: { projectId: `${p}10`, name: 'api' } }],
        jwtIdps: [
          { idpId: `${p}30`, idp: { name: 'jwt', jwtEndpoint: 'https://idp.example.com/jwt', issuer: 'https://idp.example.com', keysEndpoint: 'https://idp.example.com/keys', headerName: 'x-jwt' } },
        ],
        projectGrants: [{ grantId: `${p}40`, projectGrant: { projectId: `${p}10`, grantedOrgId: `${p}50`, roleKeys: ['buyer'] } }],
        userGrants: [{ userId: `${p}01`, projectId: `${p}10`, roleKeys: ['buyer'] }],
        orgMembers: [{ userId: `${p}01`, roles: ['ORG_OWNER'] }],
        projectMembers: [{ projectId: `${p}10`, userId: `${p}02`, roles: ['PROJECT_OWNER'] }],
        domains: [{ domainName: `x${p}.example.com`, isVerified: true }],
        lockoutPolicy: { maxPasswordAttempts: 3 },
      },
      {
        orgId: `${p}50`,
        org: { name: `Removal Y ${p}` },
        humanUsers: [human(`${p}51`, 'bob')],
        userGrants: [{ userId: `${p}51`, projectId: `${p}10`, projectGrantId: `${p}40`, roleKeys: ['buyer'] }],
      },
    ],
  };
}

describeEachStore('RemoveOrg, RemoveProject, ListAllProjectGrants (issue 30)', (dialect) => {
  let t: TestInstance;
  const p = dialect === 'sqlite' ? '9401' : '9402';
  const inX = { 'x-service-orgid': `${p}00` };
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: document(p) } });
    expect((await res.json()).errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Types of the events the admin appended since `from`, with how many of each. */
  const eventCounts = async (from: Date) => {
    const { events } = await t.store.read.events.search({ creator: t.adminUserId, from, limit: 1000, offset: 0, asc: true });
    const counts: Record<string, number> = {};
    for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
    return counts;
  };

  it('ListAllProjectGrants: every grant of the organisation, filtered by ZITADEL’s queries', async () => {
    const list = async (queries: unknown[]) => {
      const res = await t.call('POST', '/management/v1/projectgrants/_search', { headers: inX, body: { queries } });
      expect(res.status).toBe(200);
      return (await res.json()) as { details: { totalResult: string }; result: { grantId: string; projectName: string; grantedOrgId: string }[] };
    };
    const all = await list([]);
    expect(all.details.totalResult).toBe('1');
    expect(all.result[0]).toMatchObject({ grantId: `${p}40`, projectId: `${p}10`, projectName: 'shop', grantedOrgId: `${p}50`, grantedRoleKeys: ['buyer'] });
    expect((await list([{ projectNameQuery: { name: 'SH', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }])).result).toHaveLength(1);
    expect((await list([{ projectNameQuery: { name: 'SH', method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }])).result).toHaveLength(0);
    expect((await list([{ roleKeyQuery: { roleKey: 'buyer' } }, { grantedOrgIdQuery: { grantedOrgId: `${p}50` } }])).result).toHaveLength(1);
    expect((await list([{ projectIdQuery: { projectId: `${p}11` } }])).result).toHaveLength(0);
    // Y sees none: the grants are of the context organisation's projects.
    const fromY = await t.call('POST', '/management/v1/projectgrants/_search', { headers: { 'x-service-orgid': `${p}50` }, body: {} });
    expect((await fromY.json()).result).toEqual([]);
    const { token } = await insertMachineUserWithToken(t, { orgId: `${p}00`, orgRoles: ['ORG_USER_MANAGER'] });
    expect((await t.call('POST', '/management/v1/projectgrants/_search', { token, headers: inX, body: {} })).status).toBe(403);
    expect((await t.call('POST', '/management/v1/projectgrants/_search', { headers: inX, body: { queries: [{}] } })).status).toBe(400);
  });

  it('RemoveProject: the project with its grants, user grants, apps, keys and members, an event each; 404 and 403 as ZITADEL', async () => {
    const { token } = await insertMachineUserWithToken(t, { orgId: `${p}00`, orgRoles: ['ORG_USER_MANAGER'] });
    expect((await t.call('DELETE', `/management/v1/projects/${p}11`, { token, headers: inX })).status).toBe(403);
    expect((await t.call('DELETE', `/management/v1/projects/${p}11`, { headers: { 'x-service-orgid': `${p}50` } })).status).toBe(404);
    const before = new Date();
    const res = await t.call('DELETE', `/management/v1/projects/${p}11`, { headers: inX });
    expect(res.status).toBe(200);
    expect(await eventCounts(before)).toEqual({ 'project.removed': 1 });
    expect((await res.json()).details).toMatchObject({ resourceOwner: `${p}00` });
    expect(await t.store.read.projects.get(`${p}11`)).toBeUndefined();
    expect((await t.call('GET', `/management/v1/projects/${p}11`, { headers: inX })).status).toBe(404);
  });

  it('RemoveOrg: the organisation and all it owns, an event each; the default organisation stays; importing it again keeps its ids', async () => {
    const read = t.store.read;
    const before = new Date();
    expect((await t.call('DELETE', '/management/v1/orgs/me')).status).toBe(400); // the default organisation (COMMA-wG9p1)
    const { token } = await insertMachineUserWithToken(t, { orgId: `${p}00`, orgRoles: ['ORG_USER_MANAGER'] });
    expect((await t.call('DELETE', '/management/v1/orgs/me', { token, headers: inX })).status).toBe(403);

    const removed = await t.call('DELETE', '/management/v1/orgs/me', { headers: inX });
    expect(removed.status, await removed.clone().text()).toBe(200);
    // Its users and the user grants go in the background (domain/orgs/removal.ts): here, now.
    await new OrgRemovalWorker({ store: t.store }).runPending();
    expect(await read.orgs.get(`${p}00`)).toBeUndefined();
    for (const id of [`${p}01`, `${p}02`]) expect(await read.users.get(id), id).toBeUndefined();
    expect(await read.projects.get(`${p}10`)).toBeUndefined();
    expect(await read.oidcApps.get(`${p}10`, `${p}20`)).toBeUndefined();
    expect(await read.projectGrants.get(`${p}40`)).toBeUndefined();
    expect(await read.removal.userGrantsOf([`${p}51`])).toEqual([]); // Y's user's grant through the removed grant
    expect(await read.idps.get(`${p}30`)).toBeUndefined();
    expect(await read.orgDomains.list(`${p}00`)).toEqual([]);
    expect(await read.members.listByUser(`${p}01`)).toEqual([]);
    // Y and its user stay.
    expect(await read.users.get(`${p}51`)).toBeDefined();

    // One event per thing removed: the remaining project, its grant, both user grants, two apps, the
    // project member, five users (two imported, three machine users of the permission checks) and their
    // organisation memberships (alice's and the three checks'), the provider.
    expect(await eventCounts(before)).toEqual({
      'project.grant.cascade.removed': 1,
      'user.grant.cascade.removed': 2,
      'project.application.cascade.removed': 2,
      'project.member.cascade.removed': 1,
      'project.cascade.removed': 1,
      'user.cascade.removed': 5,
      'org.member.cascade.removed': 4,
      'org.idp.config.cascade.removed': 1,
      'org.removed': 1,
    });

    // The same document again: everything comes back with its ids, no errors.
    const again = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: { orgs: [document(p).orgs[0]] } } });
    const body = await again.json();
    expect(body.errors).toBeUndefined();
    expect(body.success.orgs[0]).toMatchObject({
      orgId: `${p}00`,
      humanUserIds: [`${p}01`],
      machineUserIds: [`${p}02`],
      projectIds: [`${p}10`, `${p}11`],
      oidcAppIds: [`${p}20`],
      apiAppIds: [`${p}21`],
      jwtIdps: [`${p}30`],
    });
    expect((await read.users.get(`${p}01`))?.orgId).toBe(`${p}00`);
  });
});
