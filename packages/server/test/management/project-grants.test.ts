/**
 * Issue 13 (project grants): organisation A grants its project, with some roles, to organisation
 * B; B's manager gives B's user a granted role; that user signs in to A's application and the
 * token carries the role. Deactivating the grant keeps the user grant but not the role in tokens;
 * taking a role out of the grant takes it out of the user grants; removing the grant removes them,
 * and a new token no longer carries the role. The project check accepts a granted organisation.
 */
import { decodeJwt } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';
const ROLES = 'urn:zitadel:iam:org:project:roles';
/** This service's own roles claim (access tokens asserting roles without a roles scope). */
const SERVICE_ROLES = 'urn:service:iam:org:project:roles';

describeEachStore('project grants', (dialect) => {
  let s: OidcTestServer;
  const stamp = Date.now() % 1_000_000_000;
  const [orgA, orgB] = [`${stamp}1`, `${stamp}2`];
  const bert = `${orgB}1`;
  const inA = { 'x-service-orgid': orgA };
  const inB = { 'x-service-orgid': orgB };
  let projectId: string;
  let grantId: string;
  let userGrantId: string;
  let config: oc.Configuration;

  /** Bert signs in to A's application asking for roles; the roles claim of the ID token. */
  const rolesInNewToken = async (scope = `openid ${ROLES}`) => {
    const signedIn = await signInThroughForm(config, REDIRECT, `bert@other-${stamp}.localhost`, PASSWORD, { scope });
    expect(signedIn.callback, signedIn.page?.html).toBeTruthy();
    const tokens = await signedIn.redeem();
    const info = await (await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
    // The app asserts roles in its ID token and access token (idTokenRoleAssertion,
    // accessTokenRoleAssertion): both carry the user's roles, with or without a roles scope
    // (under ZITADEL's claim when its scope was asked for, else under this service's).
    const inIdToken = tokens.claims()![ROLES] ?? tokens.claims()![SERVICE_ROLES] ?? {};
    const inAccessToken = decodeJwt(tokens.access_token)[ROLES] ?? decodeJwt(tokens.access_token)[SERVICE_ROLES] ?? {};
    expect(inIdToken).toEqual(inAccessToken);
    if (scope.includes(ROLES)) expect(inIdToken).toEqual(info[ROLES] ?? {});
    return info[ROLES] ?? {};
  };

  /** Bert's sign-in when it does not reach the application: the page shown. */
  const signInPage = async () => {
    const refused = await signInThroughForm(config, REDIRECT, `bert@other-${stamp}.localhost`, PASSWORD, { scope: 'openid' });
    expect(refused.callback).toBeUndefined();
    return refused.page!;
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          { orgId: orgA, org: { name: `Owner ${stamp}` } },
          {
            orgId: orgB,
            org: { name: `Other ${stamp}` },
            humanUsers: [{ userId: bert, user: { userName: 'bert', profile: { firstName: 'B', lastName: 'Ert' }, email: { email: 'bert@example.com', isEmailVerified: true }, password: PASSWORD } }],
          },
        ],
      },
    });
    expect(imported.body.errors ?? []).toEqual([]);
    projectId = (await s.api('POST', '/management/v1/projects', { name: 'shared', hasProjectCheck: true }, undefined, inA)).body.id;
    expect(
      (
        await s.api(
          'POST',
          `/management/v1/projects/${projectId}/roles/_bulk`,
          {
            roles: [
              { key: 'reader', displayName: 'Reader' },
              { key: 'writer', displayName: 'Writer' },
            ],
          },
          undefined,
          inA,
        )
      ).status,
    ).toBe(200);
    const app = await s.api(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      {
        name: 'shared app',
        redirectUris: [REDIRECT],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        devMode: true,
        idTokenRoleAssertion: true,
        accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
        accessTokenRoleAssertion: true,
      },
      undefined,
      inA,
    );
    config = await oc.discovery(new URL(s.issuer), app.body.clientId, undefined, oc.ClientSecretBasic(app.body.clientSecret), { execute: [oc.allowInsecureRequests] });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('grants the project to another organisation, with checks on the organisation and the roles', async () => {
    const grant = (body: unknown) => s.api('POST', `/management/v1/projects/${projectId}/grants`, body, undefined, inA);
    expect((await grant({ grantedOrgId: orgA, roleKeys: ['reader'] })).status).toBe(400);
    expect((await grant({ grantedOrgId: 'no-such-org', roleKeys: ['reader'] })).status).toBe(400);
    const unknownRole = await grant({ grantedOrgId: orgB, roleKeys: ['reader', 'admin'] });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body.message).toContain('admin');
    const added = await grant({ grantedOrgId: orgB, roleKeys: ['reader'] });
    expect(added.status).toBe(200);
    grantId = added.body.grantId;
    expect((await grant({ grantedOrgId: orgB, roleKeys: [] })).status).toBe(409);
    // B's project is not B's: the grant is not found from there.
    expect((await s.api('POST', `/management/v1/projects/${projectId}/grants`, { grantedOrgId: orgA }, undefined, inB)).status).toBe(404);

    const listed = await s.api('POST', `/management/v1/projects/${projectId}/grants/_search`, {}, undefined, inA);
    expect(listed.body.result).toEqual([
      expect.objectContaining({
        grantId,
        grantedOrgId: orgB,
        grantedOrgName: `Other ${stamp}`,
        grantedRoleKeys: ['reader'],
        state: 'PROJECT_GRANT_STATE_ACTIVE',
        projectName: 'shared',
        projectOwnerId: orgA,
      }),
    ]);
    const granted = await s.api('POST', '/management/v1/granted_projects/_search', {}, undefined, inB);
    expect(granted.body.result.map((g: { grantId: string }) => g.grantId)).toEqual([grantId]);
  });

  it('the granted organisation gives its user a granted role, and the token carries it', async () => {
    // Before any user grant: the project check lets B's user in (B has a grant of the project), with no roles.
    expect(await rolesInNewToken()).toEqual({});
    const give = (roleKeys: string[]) => s.api('POST', `/management/v1/users/${bert}/grants`, { projectId, roleKeys }, undefined, inB);
    expect((await give(['writer'])).status).toBe(400); // not granted to B
    const given = await give(['reader']);
    expect(given.status).toBe(200);
    userGrantId = given.body.userGrantId;
    const shown = await s.api('GET', `/management/v1/users/${bert}/grants/${userGrantId}`, undefined, undefined, inB);
    expect(shown.body.userGrant).toMatchObject({ projectId, projectGrantId: grantId, roleKeys: ['reader'], orgId: orgB });
    expect(await rolesInNewToken()).toEqual({ reader: { [orgB]: `other-${stamp}.localhost` } });
    // Without the roles scope, only when the project asserts its roles (projectRoleAssertion).
    expect(await rolesInNewToken('openid')).toEqual({});
    const { body: project } = await s.api('GET', `/management/v1/projects/${projectId}`, undefined, undefined, inA);
    expect(project.project.projectRoleAssertion).toBe(false);
    const settings = { name: 'shared', hasProjectCheck: true };
    expect((await s.api('PUT', `/management/v1/projects/${projectId}`, { ...settings, projectRoleAssertion: true }, undefined, inA)).status).toBe(200);
    expect(await rolesInNewToken('openid')).toEqual({ reader: { [orgB]: `other-${stamp}.localhost` } });
    expect((await s.api('PUT', `/management/v1/projects/${projectId}`, settings, undefined, inA)).status).toBe(200);

    // A deactivated grant keeps the user grant, but counts for nothing until reactivated: the
    // project check refuses B's user (and the roles would not reach a token either).
    expect((await s.api('POST', `/management/v1/projects/${projectId}/grants/${grantId}/_deactivate`, undefined, undefined, inA)).status).toBe(200);
    expect((await s.api('POST', `/management/v1/projects/${projectId}/grants/${grantId}/_deactivate`, undefined, undefined, inA)).status).toBe(400);
    expect((await s.api('GET', `/management/v1/users/${bert}/grants/${userGrantId}`, undefined, undefined, inB)).status).toBe(200);
    expect((await signInPage()).status).toBe(403);
    expect(await s.t.store.read.logins.grantedRoles(bert, [projectId], 'USER_GRANT_STATE_ACTIVE')).toEqual([]);
    expect((await s.api('POST', `/management/v1/projects/${projectId}/grants/${grantId}/_reactivate`, undefined, undefined, inA)).status).toBe(200);
    expect(await rolesInNewToken()).toEqual({ reader: { [orgB]: `other-${stamp}.localhost` } });
  });

  it('a member of the grant (a user of B) manages the user grants given through it, and nothing else', async () => {
    const robot = (await s.api('POST', '/management/v1/users/machine', { userName: 'grant-manager', name: 'Grant manager' }, undefined, inB)).body.userId as string;
    const token = (await s.api('POST', `/management/v1/users/${robot}/pats`, {}, undefined, inB)).body.token as string;
    const members = `/management/v1/projects/${projectId}/grants/${grantId}/members`;
    // Only users of the granted organisation, with grant roles.
    expect((await s.api('POST', members, { userId: robot, roles: ['PROJECT_OWNER'] }, undefined, inA)).status).toBe(400);
    const { body: a } = await s.api('POST', '/management/v1/users/machine', { userName: 'a-robot', name: 'A robot' }, undefined, inA);
    expect((await s.api('POST', members, { userId: a.userId, roles: ['PROJECT_GRANT_OWNER'] }, undefined, inA)).status).toBe(400);
    // Before it is a member, the robot may do nothing with B's user grants.
    expect((await s.api('GET', `/management/v1/users/${bert}/grants/${userGrantId}`, undefined, token)).status).toBe(403);
    expect((await s.api('POST', members, { userId: robot, roles: ['PROJECT_GRANT_OWNER_VIEWER'] }, undefined, inA)).status).toBe(200);
    expect((await s.api('POST', members, { userId: robot, roles: ['PROJECT_GRANT_OWNER'] }, undefined, inA)).status).toBe(409);
    expect((await s.api('GET', `/management/v1/users/${bert}/grants/${userGrantId}`, undefined, token)).status).toBe(200);
    expect((await s.api('PUT', `/management/v1/users/${bert}/grants/${userGrantId}`, { roleKeys: [] }, token)).status).toBe(403);
    expect((await s.api('PUT', `${members}/${robot}`, { roles: ['PROJECT_GRANT_OWNER'] }, undefined, inA)).status).toBe(200);
    const listed = await s.api('POST', `${members}/_search`, {}, undefined, inA);
    expect(listed.body.result).toEqual([expect.objectContaining({ userId: robot, roles: ['PROJECT_GRANT_OWNER'], preferredLoginName: `grant-manager@other-${stamp}.localhost` })]);
    // A member's user id is at most 200 characters, like the API's other ids (MemberUserId in the spec).
    expect((await s.api('PUT', `${members}/${'u'.repeat(201)}`, { roles: ['PROJECT_GRANT_OWNER'] }, undefined, inA)).body.message).toContain('invalid userId');

    // As PROJECT_GRANT_OWNER: the grant's user grants, in B's context (its own), and no other project's.
    expect((await s.api('PUT', `/management/v1/users/${bert}/grants/${userGrantId}`, { roleKeys: [] }, token)).status).toBe(200);
    expect((await s.api('PUT', `/management/v1/users/${bert}/grants/${userGrantId}`, { roleKeys: ['reader'] }, token)).status).toBe(200);
    const seen = await s.api('POST', '/management/v1/users/grants/_search', {}, token);
    expect(seen.body.result.map((g: { id: string }) => g.id)).toEqual([userGrantId]);
    expect((await s.api('POST', '/management/v1/granted_projects/_search', {}, token)).body.result.map((g: { grantId: string }) => g.grantId)).toEqual([grantId]);
    const ownProject = (await s.api('POST', '/management/v1/projects', { name: 'b-own' }, undefined, inB)).body.id;
    expect((await s.api('POST', `/management/v1/users/${bert}/grants`, { projectId: ownProject, roleKeys: [] }, token)).status).toBe(403);
    // Not on A's side: the grant itself is A's to change.
    expect((await s.api('PUT', `/management/v1/projects/${projectId}/grants/${grantId}`, { roleKeys: [] }, token, inA)).status).toBe(403);
  });

  it("exports the grant with the user grant given through it; an import keeps both, whatever the organisations' order", async () => {
    const exported = (await s.api('POST', '/admin/v1/export', { org_ids: [orgA, orgB], timeout: '1m', response_output: true })).body;
    const owner = exported.orgs.find((o: { orgId: string }) => o.orgId === orgA);
    const other = exported.orgs.find((o: { orgId: string }) => o.orgId === orgB);
    expect(owner.projectGrants).toEqual([{ grantId, projectGrant: { projectId, grantedOrgId: orgB, roleKeys: ['reader'] } }]);
    expect(other.userGrants).toEqual([{ userId: bert, projectId, projectGrantId: grantId, roleKeys: ['reader'], identityServiceGrantId: userGrantId }]);
    expect(owner.projectGrantMembers).toEqual([{ projectId, grantId, userId: expect.any(String), roles: ['PROJECT_GRANT_OWNER'] }]);
    const target = await startOidcServer(dialect);
    try {
      // The granted organisation first: its user grant needs the grant, which needs the organisation.
      const imported = await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: { orgs: [other, owner] } });
      expect(imported.body.errors ?? []).toEqual([]);
      expect(imported.body.warnings ?? []).toEqual([]);
      expect(imported.body.success.orgs.find((o: { orgId: string }) => o.orgId === orgA).projectGrants).toEqual([{ grantId, projectId, orgId: orgA }]);
      const again = (await target.api('POST', '/admin/v1/export', { org_ids: [orgA, orgB], timeout: '1m', response_output: true })).body;
      const byId = (doc: { orgs: { orgId: string }[] }) => [...doc.orgs].sort((x, y) => x.orgId.localeCompare(y.orgId));
      expect(byId(again)).toEqual(byId(exported));
      expect(await target.t.store.read.logins.grantedRoles(bert, [projectId], 'USER_GRANT_STATE_ACTIVE')).toEqual([
        { orgId: orgB, orgPrimaryDomain: `other-${stamp}.localhost`, projectId, roleKeys: ['reader'] },
      ]);
    } finally {
      await target.close();
    }
  });

  it('exports every member of a project grant, beyond 10,000 (an earlier version stopped there without a word)', async () => {
    const [existing] = (await s.t.store.read.members.search('project_grant', grantId, {}, { offset: 0, limit: 1, asc: true })).rows;
    const template = (await s.t.store.read.users.get(bert))!;
    const extra = 10_050;
    const ids = Array.from({ length: extra }, (_, i) => `${orgB}m${String(i).padStart(5, '0')}`);
    await s.t.store.transaction(async (tx) => {
      await tx.transfer.insertUsers(ids.map((id) => ({ ...template, id, userName: id, userNameKey: id })));
      await tx.transfer.insertMembers(ids.map((userId) => ({ ...existing.member, userId })));
    });
    try {
      const exported = (await s.api('POST', '/admin/v1/export', { org_ids: [orgA, orgB], timeout: '1m', response_output: true })).body;
      const owner = exported.orgs.find((o: { orgId: string }) => o.orgId === orgA);
      const exportedIds = new Set(owner.projectGrantMembers.map((m: { userId: string }) => m.userId));
      expect(exportedIds.size).toBe(extra + 1);
      expect(ids.every((id) => exportedIds.has(id))).toBe(true);
    } finally {
      await s.t.store.transaction(async (tx) => {
        for (const userId of ids) await tx.members.remove('project_grant', grantId, userId);
        await tx.removal.removeUsers(ids);
      });
    }
  }, 120_000);

  it('roles taken out of the grant leave its user grants; removing the grant removes them', async () => {
    const update = (roleKeys: string[]) => s.api('PUT', `/management/v1/projects/${projectId}/grants/${grantId}`, { roleKeys }, undefined, inA);
    expect((await update(['reader', 'writer'])).status).toBe(200);
    expect((await update(['reader', 'writer'])).status).toBe(400);
    expect((await s.api('PUT', `/management/v1/users/${bert}/grants/${userGrantId}`, { roleKeys: ['reader', 'writer'] }, undefined, inB)).status).toBe(200);
    expect((await update(['writer'])).status).toBe(200);
    const after = await s.api('GET', `/management/v1/users/${bert}/grants/${userGrantId}`, undefined, undefined, inB);
    expect(after.body.userGrant.roleKeys).toEqual(['writer']);
    expect(await rolesInNewToken()).toEqual({ writer: { [orgB]: `other-${stamp}.localhost` } });

    expect((await s.api('DELETE', `/management/v1/projects/${projectId}/grants/${grantId}`, undefined, undefined, inA)).status).toBe(200);
    expect((await s.api('GET', `/management/v1/users/${bert}/grants/${userGrantId}`, undefined, undefined, inB)).status).toBe(404);
    expect((await s.api('GET', `/management/v1/projects/${projectId}/grants/${grantId}`, undefined, undefined, inA)).status).toBe(404);
    // Its members went with it.
    expect(await s.t.store.read.members.search('project_grant', grantId, {}, { offset: 0, limit: 10, asc: true })).toMatchObject({ total: 0 });
    // And without a grant of the project, B's user does not pass the project check any more.
    expect((await signInPage()).status).toBe(403);
  });
});
