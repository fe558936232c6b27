/**
 * Issue 30: states survive export and import (an inactive organisation, deactivated and locked
 * users, deactivated projects, applications, identity providers, project grants and user grants);
 * a project grant's members and the user grants given through it import whichever of its two
 * organisations lists them; an export naming an unknown organisation answers 404 naming it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { BCRYPT } from '../support/transfer-documents.js';

const human = (userId: string, userName: string, state?: string) => ({
  userId,
  user: { userName, profile: { firstName: 'F', lastName: 'L' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, hashedPassword: { value: BCRYPT } },
  ...(state ? { state } : {}),
});
const oidcApp = (appId: string, projectId: string, name: string) => ({
  appId,
  app: { projectId, name, redirectUris: ['https://rp.example.com/cb'], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'] },
});

/** Organisation X (inactive) grants project Q to Y; states set in the document where no API sets them. */
function statesDocument(p: string) {
  return {
    orgs: [
      {
        orgId: `${p}00`,
        org: { name: `States X ${p}` },
        orgState: 'ORG_STATE_INACTIVE',
        humanUsers: [human(`${p}01`, 'deactivated', 'USER_STATE_INACTIVE'), human(`${p}02`, 'locked', 'USER_STATE_LOCKED'), human(`${p}03`, 'active', 'USER_STATE_ACTIVE')],
        machineUsers: [{ userId: `${p}04`, user: { userName: 'robot', name: 'Robot' }, state: 'USER_STATE_INACTIVE' }],
        projects: [
          { projectId: `${p}10`, project: { name: 'sleeping' }, state: 'PROJECT_STATE_INACTIVE' },
          { projectId: `${p}11`, project: { name: 'granted' } },
        ],
        projectRoles: [{ projectId: `${p}11`, roleKey: 'viewer', displayName: 'Viewer' }],
        oidcApps: [{ ...oidcApp(`${p}20`, `${p}10`, 'off'), state: 'APP_STATE_INACTIVE' }, oidcApp(`${p}21`, `${p}11`, 'on')],
        apiApps: [{ appId: `${p}22`, app: { projectId: `${p}11`, name: 'api-off' }, state: 'APP_STATE_INACTIVE' }],
        jwtIdps: [
          {
            idpId: `${p}30`,
            idp: { name: 'jwt-off', jwtEndpoint: 'https://idp.example.com/jwt', issuer: 'https://idp.example.com', keysEndpoint: 'https://idp.example.com/keys', headerName: 'x-jwt' },
            state: 'IDP_STATE_INACTIVE',
          },
        ],
        oidcIdps: [{ idpId: `${p}31`, idp: { name: 'oidc-on', clientId: 'c', clientSecret: 's', issuer: 'https://op.example.com' } }],
        projectGrants: [{ grantId: `${p}40`, projectGrant: { projectId: `${p}11`, grantedOrgId: `${p}50`, roleKeys: ['viewer'] }, state: 'PROJECT_GRANT_STATE_INACTIVE' }],
        userGrants: [{ userId: `${p}03`, projectId: `${p}11`, roleKeys: ['viewer'], state: 'USER_GRANT_STATE_INACTIVE' }],
      },
      {
        orgId: `${p}50`,
        org: { name: `States Y ${p}` },
        humanUsers: [human(`${p}51`, 'partner')],
        // As ZITADEL lists it: under its owner, the granted organisation.
        userGrants: [{ userId: `${p}51`, projectId: `${p}11`, projectGrantId: `${p}40`, roleKeys: ['viewer'] }],
      },
    ],
  };
}

describeEachStore('states through export and import (issue 30)', (dialect) => {
  let a: TestInstance;
  let b: TestInstance;
  beforeAll(async () => {
    [a, b] = await Promise.all([createTestInstance(dialect), createTestInstance(dialect)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const importDoc = async (t: TestInstance, doc: unknown) => {
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: doc } });
    expect(res.status).toBe(200);
    return res.json();
  };
  const exportDoc = async (t: TestInstance, orgIds: string[]) => {
    const res = await t.call('POST', '/admin/v1/export', { body: { orgIds, withPasswords: true, responseOutput: true } });
    expect(res.status).toBe(200);
    return res.json();
  };

  /** The state of every resource of the document's organisations, as the store holds them. */
  async function statesIn(t: TestInstance, p: string) {
    const r = t.store.read;
    const grantOf = async (orgId: string, userId: string) => (await r.userGrants.find(orgId, userId, `${p}11`))?.state;
    return {
      orgX: (await r.orgs.get(`${p}00`))?.state,
      orgY: (await r.orgs.get(`${p}50`))?.state,
      users: await Promise.all([`${p}01`, `${p}02`, `${p}03`, `${p}04`, `${p}51`].map(async (id) => (await r.users.get(id))?.state)),
      projects: await Promise.all([`${p}10`, `${p}11`].map(async (id) => (await r.projects.get(id))?.state)),
      apps: await Promise.all(
        [
          [`${p}10`, `${p}20`],
          [`${p}11`, `${p}21`],
          [`${p}11`, `${p}22`],
        ].map(async ([project, id]) => (await r.oidcApps.get(project, id))?.state),
      ),
      idps: await Promise.all([`${p}30`, `${p}31`].map(async (id) => (await r.idps.get(id))?.state)),
      projectGrant: (await r.projectGrants.get(`${p}40`))?.state,
      userGrants: [await grantOf(`${p}00`, `${p}03`), await grantOf(`${p}50`, `${p}51`)],
    };
  }

  it('keeps every state from a document, through the API’s changes, into another instance', async () => {
    const p = dialect === 'sqlite' ? '9301' : '9302';
    const first = await importDoc(a, statesDocument(p));
    expect(first.errors).toBeUndefined();
    expect(first.success.orgs[1].userGrants).toEqual([{ projectId: `${p}11`, userId: `${p}51` }]);
    expect(await statesIn(a, p)).toEqual({
      orgX: 'ORG_STATE_INACTIVE',
      orgY: 'ORG_STATE_ACTIVE',
      users: ['USER_STATE_INACTIVE', 'USER_STATE_LOCKED', 'USER_STATE_ACTIVE', 'USER_STATE_INACTIVE', 'USER_STATE_ACTIVE'],
      projects: ['PROJECT_STATE_INACTIVE', 'PROJECT_STATE_ACTIVE'],
      apps: ['APP_STATE_INACTIVE', 'APP_STATE_ACTIVE', 'APP_STATE_INACTIVE'],
      idps: ['IDP_STATE_INACTIVE', 'IDP_STATE_ACTIVE'],
      projectGrant: 'PROJECT_GRANT_STATE_INACTIVE',
      userGrants: ['USER_GRANT_STATE_INACTIVE', 'USER_GRANT_STATE_ACTIVE'],
    });

    // States the API sets on A: a user deactivated, one locked, a provider and a user grant deactivated.
    const inX = { 'x-service-orgid': `${p}00` };
    const inY = { 'x-service-orgid': `${p}50` };
    expect((await a.call('POST', `/management/v1/users/${p}03/_lock`, { headers: inX, body: {} })).status).toBe(200);
    expect((await a.call('POST', `/management/v1/users/${p}51/_deactivate`, { headers: inY, body: {} })).status).toBe(200);
    expect((await a.call('POST', `/management/v1/idps/${p}31/_deactivate`, { headers: inX, body: {} })).status).toBe(200);
    const partnerGrant = await a.store.read.userGrants.find(`${p}50`, `${p}51`, `${p}11`);
    expect((await a.call('POST', `/management/v1/users/${p}51/grants/${partnerGrant!.id}/_deactivate`, { headers: inY, body: {} })).status).toBe(200);
    const expected = {
      orgX: 'ORG_STATE_INACTIVE',
      orgY: 'ORG_STATE_ACTIVE',
      users: ['USER_STATE_INACTIVE', 'USER_STATE_LOCKED', 'USER_STATE_LOCKED', 'USER_STATE_INACTIVE', 'USER_STATE_INACTIVE'],
      projects: ['PROJECT_STATE_INACTIVE', 'PROJECT_STATE_ACTIVE'],
      apps: ['APP_STATE_INACTIVE', 'APP_STATE_ACTIVE', 'APP_STATE_INACTIVE'],
      idps: ['IDP_STATE_INACTIVE', 'IDP_STATE_INACTIVE'],
      projectGrant: 'PROJECT_GRANT_STATE_INACTIVE',
      userGrants: ['USER_GRANT_STATE_INACTIVE', 'USER_GRANT_STATE_INACTIVE'],
    };
    expect(await statesIn(a, p)).toEqual(expected);

    const exported = await exportDoc(a, [`${p}00`, `${p}50`]);
    const [x, y] = exported.orgs;
    // In the document: ZITADEL's fields, and this service's `state` beside the others' entries (only when not active).
    expect(x.orgState).toBe('ORG_STATE_INACTIVE');
    expect(x.projects.map((e: { state?: string }) => e.state)).toEqual(['PROJECT_STATE_INACTIVE', undefined]);
    expect(x.oidcApps.map((e: { state?: string }) => e.state)).toEqual(['APP_STATE_INACTIVE', undefined]);
    expect(x.apiApps[0].state).toBe('APP_STATE_INACTIVE');
    expect(x.jwtIdps[0].state).toBe('IDP_STATE_INACTIVE');
    expect(x.oidcIdps[0].state).toBe('IDP_STATE_INACTIVE');
    expect(x.projectGrants[0].state).toBe('PROJECT_GRANT_STATE_INACTIVE');
    expect(x.userGrants[0].state).toBe('USER_GRANT_STATE_INACTIVE');
    expect(y.userGrants[0]).toMatchObject({ projectGrantId: `${p}40`, state: 'USER_GRANT_STATE_INACTIVE' });

    const second = await importDoc(b, exported);
    expect(second.errors).toBeUndefined();
    expect(await statesIn(b, p)).toEqual(expected);
    expect(await exportDoc(b, [`${p}00`, `${p}50`])).toEqual(exported);
  });

  it("imports a project grant's members and the user grants given through it under either organisation", async () => {
    const p = dialect === 'sqlite' ? '9311' : '9312';
    const base = statesDocument(p);
    const [x, y] = base.orgs as Record<string, any>[];
    // Only what this test is about: active grants, a grant member and a grant-given user grant of Y's user.
    delete x.orgState;
    x.projectGrants[0].state = undefined;
    x.userGrants = [];
    y.humanUsers.push(human(`${p}52`, 'manager'));
    const member = { projectId: `${p}11`, grantId: `${p}40`, userId: `${p}52`, roles: ['PROJECT_GRANT_OWNER'] };
    const viaGrant = { userId: `${p}51`, projectId: `${p}11`, projectGrantId: `${p}40`, roleKeys: ['viewer'] };

    // Under the granted organisation (ZITADEL lists user grants under their owner), on A …
    y.userGrants = [viaGrant];
    y.projectGrantMembers = [member];
    const underGranted = await importDoc(a, base);
    expect(underGranted.errors).toBeUndefined();
    expect(underGranted.success.orgs.find((o: { orgId: string }) => o.orgId === `${p}50`)).toMatchObject({
      userGrants: [{ projectId: `${p}11`, userId: `${p}51` }],
      projectGrantMembers: [{ projectId: `${p}11`, grantId: `${p}40`, userId: `${p}52` }],
    });

    // … and under the project's organisation, on B: the same rows either way.
    y.userGrants = [];
    delete y.projectGrantMembers;
    x.userGrants = [viaGrant];
    x.projectGrantMembers = [member];
    const underProject = await importDoc(b, base);
    expect(underProject.errors).toBeUndefined();
    // X names Y's users, so Y is imported first (domain/transfer/import/order.ts).
    expect(underProject.success.orgs.find((o: { orgId: string }) => o.orgId === `${p}00`)).toMatchObject({
      userGrants: [{ projectId: `${p}11`, userId: `${p}51` }],
      projectGrantMembers: [{ projectId: `${p}11`, grantId: `${p}40`, userId: `${p}52` }],
    });

    for (const t of [a, b]) {
      const grant = await t.store.read.userGrants.find(`${p}50`, `${p}51`, `${p}11`);
      expect(grant, t === a ? 'A' : 'B').toMatchObject({ orgId: `${p}50`, projectGrantId: `${p}40`, roleKeys: ['viewer'] });
      expect(await t.store.read.members.get('project_grant', `${p}40`, `${p}52`)).toMatchObject({ resourceOwner: `${p}50`, roles: ['PROJECT_GRANT_OWNER'] });
    }
    // Listed twice (once under each), the second is reported as existing, not added again.
    y.userGrants = [viaGrant];
    const again = await importDoc(b, base);
    expect(again.errors).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'user_grant', message: expect.stringContaining('Errors.UserGrant.AlreadyExists') })]));
  });

  it('an export naming an unknown organisation answers 404 naming it, and exports nothing', async () => {
    const res = await a.call('POST', '/admin/v1/export', { body: { org_ids: ['999', a.defaultOrgId], responseOutput: true } });
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body).toMatchObject({ code: 5, message: expect.stringContaining('999'), details: [expect.objectContaining({ id: 'EXPORT-0rg404' })] });
    expect(body.message).not.toContain(a.defaultOrgId);
  });
});
