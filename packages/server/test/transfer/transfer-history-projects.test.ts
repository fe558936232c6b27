/**
 * History carried through a move, beyond users and the organisation (issue 51): a project with a
 * role and an application, a user grant and a JWT identity provider, each changed a few times at the
 * source, exported with `withHistory` and imported into another instance. The target's
 * ListProjectChanges and ListAppChanges list the source's changes (types, sequences, dates, editors)
 * and then the import's own events; the user grant's and the provider's events (ListEvents by
 * aggregate) likewise; no payload read back holds a secret. Without the option nothing of it travels;
 * an object that exists on the target already keeps its own trail; a history that cannot be a
 * source's (a gap, another aggregate's type, an unknown type) is a 400 naming its path, nothing
 * written. Two instances on one store kind, both stores.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OrgRemovalWorker } from '../../src/background/org-removal-worker.js';
import { EVENT_TYPES } from '../../src/domain/events/types.js';
import { expectRefusedBeforeAnyWrite, secretFields } from '../support/carried-history.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

interface Change {
  changeDate: string;
  eventType: { key: string };
  sequence: string;
  editorId: string;
}
interface EventView {
  type: { type: string };
  sequence: string;
  creationDate: string;
  editor: { userId: string };
  payload: Record<string, unknown>;
}

/** The identity providers' event types of an organisation: what ListEvents is filtered by for a provider's history. */
const IDP_EVENT_TYPES = Object.keys(EVENT_TYPES).filter((type) => type.startsWith('org.idp.'));

describeEachStore('history of projects, applications, user grants and identity providers carried through a move', (dialect) => {
  let source: TestInstance;
  let orgId: string;
  let projectId: string;
  let appId: string;
  let grantId: string;
  let idpId: string;
  let clientSecret: string;
  const stamp = Date.now().toString(36);
  const targets: TestInstance[] = [];

  const ok = async (t: TestInstance, method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-service-orgid': orgId }) => {
    const res = await t.call(method, path, { body, headers });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBe(200);
    return JSON.parse(text);
  };
  const newTarget = async () => {
    const t = await createTestInstance(dialect);
    targets.push(t);
    return t;
  };
  const changes = async (t: TestInstance, path: string): Promise<Change[]> => (await ok(t, 'POST', path, { query: { asc: true, limit: 1000 } })).result;
  const projectChanges = (t: TestInstance) => changes(t, `/management/v1/projects/${projectId}/changes/_search`);
  const appChanges = (t: TestInstance) => changes(t, `/management/v1/projects/${projectId}/apps/${appId}/changes/_search`);
  const comparable = (list: Change[]) => list.map((c) => ({ type: c.eventType.key, sequence: c.sequence, date: c.changeDate, editor: c.editorId }));
  const events = async (t: TestInstance, filter: Record<string, unknown>): Promise<EventView[]> => (await ok(t, 'POST', '/admin/v1/events/_search', { asc: true, limit: 1000, ...filter }, {})).events;
  const grantEvents = (t: TestInstance) => events(t, { aggregateTypes: ['usergrant'], aggregateId: grantId });
  const idpEvents = (t: TestInstance) => events(t, { aggregateTypes: ['org'], aggregateId: orgId, eventTypes: IDP_EVENT_TYPES });
  const comparableEvents = (list: EventView[]) => list.map((e) => ({ type: e.type.type, sequence: e.sequence, date: e.creationDate, editor: e.editor.userId }));
  const exportOrg = async (t: TestInstance, extra: Record<string, unknown> = {}) => ok(t, 'POST', '/admin/v1/export', { orgIds: [orgId], responseOutput: true, timeout: '1m', ...extra }, {});
  const importInto = async (t: TestInstance, document: unknown, extra: Record<string, unknown> = {}) => ok(t, 'POST', '/admin/v1/import', { timeout: '1m', dataOrgs: document, ...extra }, {});

  beforeAll(async () => {
    source = await createTestInstance(dialect);
    orgId = (await ok(source, 'POST', '/management/v1/orgs', { name: `Projects ${stamp}` }, {})).id;
    const userId = (
      await ok(source, 'POST', '/management/v1/users/human/_import', {
        userName: `ada-${stamp}`,
        profile: { firstName: 'Ada', lastName: 'Lovelace' },
        email: { email: `ada-${stamp}@example.com`, isEmailVerified: true },
      })
    ).userId;
    // A project changed a few times, with a role and an OIDC application, each changed too.
    projectId = (await ok(source, 'POST', '/management/v1/projects', { name: `Shop ${stamp}` })).id;
    await ok(source, 'PUT', `/management/v1/projects/${projectId}`, { name: `Shop ${stamp}`, projectRoleAssertion: true });
    await ok(source, 'POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' });
    await ok(source, 'POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'writer', displayName: 'Writer' });
    await ok(source, 'POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'auditor', displayName: 'Auditor' });
    await ok(source, 'DELETE', `/management/v1/projects/${projectId}/roles/auditor`);
    const app = await ok(source, 'POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'web', redirectUris: ['https://web.example.com/cb'] });
    appId = app.appId;
    await ok(source, 'PUT', `/management/v1/projects/${projectId}/apps/${appId}`, { name: 'web shop' });
    await ok(source, 'PUT', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config`, { redirectUris: ['https://web.example.com/callback'] });
    clientSecret = (await ok(source, 'POST', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config/_generate_client_secret`, {})).clientSecret;
    expect(clientSecret).toBeTruthy();
    // A user grant given, changed and deactivated.
    grantId = (await ok(source, 'POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['reader'] })).userGrantId;
    await ok(source, 'PUT', `/management/v1/users/${userId}/grants/${grantId}`, { roleKeys: ['reader', 'writer'] });
    await ok(source, 'POST', `/management/v1/users/${userId}/grants/${grantId}/_deactivate`, {});
    // A JWT identity provider added, renamed, pointed at other keys and deactivated.
    idpId = (
      await ok(source, 'POST', '/management/v1/idps/jwt', {
        name: 'Portal',
        jwtEndpoint: 'https://portal.example.com/jwt',
        issuer: 'https://portal.example.com',
        keysEndpoint: 'https://portal.example.com/keys',
        headerName: 'x-portal-token',
      })
    ).idpId;
    await ok(source, 'PUT', `/management/v1/idps/${idpId}`, { name: 'Partner portal', autoRegister: true });
    await ok(source, 'PUT', `/management/v1/idps/${idpId}/jwt_config`, {
      jwtEndpoint: 'https://portal.example.com/jwt2',
      issuer: 'https://portal.example.com',
      keysEndpoint: 'https://portal.example.com/keys2',
      headerName: 'x-portal-token',
    });
    await ok(source, 'POST', `/management/v1/idps/${idpId}/_deactivate`, {});
    for (const id of [orgId, userId, projectId, appId, grantId, idpId]) expect(id).toMatch(/^\d{18}$/);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([source, ...targets].map((t) => t?.close()));
  });

  it("a move with withHistory: the project's, application's, user grant's and provider's trails at the target are the source's, then the import's", async () => {
    const document = await exportOrg(source, { withHistory: true });
    const org = document.orgs[0];
    // No secret travels in a history: not the application's client secret.
    expect(secretFields([org.projects, org.userGrants, org.identityServiceOrgHistory])).toEqual([]);
    expect(JSON.stringify(document)).not.toContain(clientSecret);
    expect(org.projects[0].identityServiceHistory.length).toBeGreaterThan(5);
    expect(org.userGrants[0].identityServiceHistory.map((e: { type: string }) => e.type)).toEqual(['user.grant.added', 'user.grant.changed', 'user.grant.deactivated']);

    const target = await newTarget();
    const imported = await importInto(target, document);
    expect(imported.errors ?? []).toEqual([]);

    const project = { source: await projectChanges(source), target: await projectChanges(target) };
    expect(project.source.map((c) => c.eventType.key)).toEqual(
      expect.arrayContaining(['EventTypes.project.added', 'EventTypes.project.changed', 'EventTypes.project.role.added', 'EventTypes.project.role.removed', 'EventTypes.project.application.added']),
    );
    expect(comparable(project.target.slice(0, project.source.length))).toEqual(comparable(project.source));
    // Then the import's own events: the project's, and its application's (on the project's aggregate, as ZITADEL keeps them).
    expect(project.target.slice(project.source.length).map((c) => ({ type: c.eventType.key, editor: c.editorId }))).toEqual([
      { type: 'EventTypes.project.data.imported', editor: target.adminUserId },
      { type: 'EventTypes.project.application.data.imported', editor: target.adminUserId },
    ]);
    expect(project.target[project.source.length].sequence).toBe(String(project.source.length + 1));

    const app = { source: await appChanges(source), target: await appChanges(target) };
    expect(app.source.map((c) => c.eventType.key)).toEqual([
      'EventTypes.project.application.added',
      'EventTypes.project.application.config.oidc.added',
      'EventTypes.project.application.changed',
      'EventTypes.project.application.config.oidc.changed',
      'EventTypes.project.application.config.oidc.secret.changed',
    ]);
    expect(comparable(app.target.slice(0, -1))).toEqual(comparable(app.source));
    expect(app.target[app.target.length - 1]).toMatchObject({ eventType: { key: 'EventTypes.project.application.data.imported' }, editorId: target.adminUserId });

    const grant = { source: await grantEvents(source), target: await grantEvents(target) };
    expect(comparableEvents(grant.target.slice(0, -1))).toEqual(comparableEvents(grant.source));
    expect(grant.target[grant.target.length - 1]).toMatchObject({ type: { type: 'user.grant.data.imported' }, sequence: '4', editor: { userId: target.adminUserId }, payload: { importedEvents: 3 } });

    const idp = { source: await idpEvents(source), target: await idpEvents(target) };
    expect(idp.source.map((e) => e.type.type)).toEqual(['org.idp.config.added', 'org.idp.config.changed', 'org.idp.jwt.config.changed', 'org.idp.config.deactivated']);
    expect(comparableEvents(idp.target.slice(0, -1))).toEqual(comparableEvents(idp.source));
    expect(idp.target[idp.target.length - 1]).toMatchObject({ type: { type: 'org.idp.data.imported' }, editor: { userId: target.adminUserId }, payload: { idpConfigId: idpId, importedEvents: 4 } });

    // Every carried event is marked as imported; no payload read back holds a secret, redacted or not.
    const all = await events(target, { resourceOwner: orgId });
    expect(all.filter((e) => !e.type.type.endsWith('.data.imported')).every((e) => e.payload.identityServiceImported === true)).toBe(true);
    expect(secretFields(all.map((e) => e.payload))).toEqual([]);
    expect(JSON.stringify(all)).not.toContain(clientSecret);

    // The state rows: created when the source created them, at the sequence of the import's event; as the source left them.
    const [projectRow, appRow, grantRow, idpRow] = await Promise.all([
      target.store.read.projects.get(projectId),
      target.store.read.oidcApps.get(projectId, appId),
      target.store.read.userGrants.getInOrg(grantId, orgId),
      target.store.read.idps.get(idpId),
    ]);
    expect(projectRow).toMatchObject({ sequence: project.source.length + 1, createdAt: new Date(project.source[0].changeDate) });
    expect(appRow).toMatchObject({ sequence: Number(app.target[app.target.length - 1].sequence), createdAt: new Date(app.source[0].changeDate) });
    expect(grantRow).toMatchObject({ sequence: 4, state: 'USER_GRANT_STATE_INACTIVE', createdAt: new Date(grant.source[0].creationDate) });
    expect(idpRow).toMatchObject({
      sequence: Number(idp.target[idp.target.length - 1].sequence),
      name: 'Partner portal',
      state: 'IDP_STATE_INACTIVE',
      createdAt: new Date(idp.source[0].creationDate),
    });
  });

  it('without withHistory nothing of these histories travels, and the import appends none of them', async () => {
    const plainDocument = await exportOrg(source);
    expect(JSON.stringify(plainDocument)).not.toMatch(/identityService(Org)?History/);
    // The option is what makes the difference: with it, projects and user grants carry theirs.
    const withHistory = (await exportOrg(source, { withHistory: true })).orgs[0];
    expect(withHistory.projects[0].identityServiceHistory?.length).toBeGreaterThan(0);
    expect(withHistory.userGrants[0].identityServiceHistory?.length).toBe(3);

    const target = await newTarget();
    const imported = await importInto(target, plainDocument);
    expect(imported.success.orgs[0].projectIds).toEqual([projectId]);
    expect(await projectChanges(target)).toEqual([]);
    expect(await appChanges(target)).toEqual([]);
    expect(await grantEvents(target)).toEqual([]);
    expect(await idpEvents(target)).toEqual([]);
    expect((await target.store.read.projects.get(projectId))?.sequence).toBe(0);
  });

  it('an object that exists on the target keeps its own trail; what the same import creates gets its history', async () => {
    const document = await exportOrg(source, { withHistory: true });
    const target = await newTarget();
    // The organisation, its project, application and provider exist on the target already (an
    // import without history made them); the user grant does not.
    const withoutGrant = structuredClone(document);
    delete withoutGrant.orgs[0].userGrants;
    await importInto(target, { orgs: [stripHistories(withoutGrant.orgs[0])] });
    const before = { project: await projectChanges(target), app: await appChanges(target), idp: await idpEvents(target) };
    expect(before.project).toEqual([]);

    const imported = await importInto(target, document, { conflictPolicy: 'SKIP' });
    expect(imported.success.orgs[0].userGrants).toEqual([{ projectId, userId: document.orgs[0].userGrants[0].userId }]);
    expect(await projectChanges(target)).toEqual(before.project);
    expect(await appChanges(target)).toEqual(before.app);
    expect(await idpEvents(target)).toEqual(before.idp);
    // The user grant the import created has the source's trail, then the import's event.
    const grant = { source: await grantEvents(source), target: await grantEvents(target) };
    expect(comparableEvents(grant.target.slice(0, -1))).toEqual(comparableEvents(grant.source));
    expect(grant.target[grant.target.length - 1].type.type).toBe('user.grant.data.imported');
  });

  it('an organisation removed at the target and imported again with its history: ids with a trail there keep it, the history reported, no failure', async () => {
    const document = await exportOrg(source, { withHistory: true });
    const target = await newTarget();
    await importInto(target, document);
    await ok(target, 'DELETE', '/management/v1/orgs/me');
    await new OrgRemovalWorker({ store: target.store }).runPending();
    // With the organisation gone its change lists answer 403: the trails as the store keeps them.
    const trail = async (aggregateType: string, aggregateId: string) =>
      (await target.store.read.events.search({ aggregateTypes: [aggregateType], aggregateId, limit: 1000, offset: 0, asc: true })).events.map((e) => `${e.sequence} ${e.type}`);
    const removedTrail = { project: await trail('project', projectId), grant: await trail('usergrant', grantId) };
    expect(removedTrail.grant[removedTrail.grant.length - 1]).toMatch(/ user\.grant\.cascade\.removed$/);

    // The users went with their organisation, so their ids may come back (as the organisation's,
    // projects' and grants'); each trail stays as it is, and the import says so rather than failing.
    const again = await importInto(target, document);
    const userId = document.orgs[0].humanUsers[0].userId;
    expect(again.success.orgs[0].humanUserIds).toEqual([userId]);
    expect(again.errors.map((e: { type: string; id: string }) => `${e.type} ${e.id}`).sort()).toEqual(
      [`human_user_history ${userId}`, `org_history ${orgId}`, `project_history ${projectId}`, `user_grant_history ${grantId}`].sort(),
    );
    expect(await trail('project', projectId)).toEqual(removedTrail.project);
    expect(await trail('usergrant', grantId)).toEqual(removedTrail.grant);
  });

  it('a history with a gap, an event of another aggregate or an unknown type is a 400 naming its path, and nothing is written', async () => {
    const document = await exportOrg(source, { withHistory: true });
    const target = await newTarget();
    const gap = structuredClone(document);
    gap.orgs[0].projects[0].identityServiceHistory[2].sequence = '9';
    const foreign = structuredClone(document);
    foreign.orgs[0].userGrants[0].identityServiceHistory[1].type = 'project.changed';
    const unknown = structuredClone(document);
    unknown.orgs[0].projects[0].identityServiceHistory[0].type = 'project.application.teleported';
    await expectRefusedBeforeAnyWrite(target, [
      [gap, 'orgs[0].projects[0].identityServiceHistory[2].sequence'],
      [foreign, 'orgs[0].userGrants[0].identityServiceHistory[1].type'],
      [unknown, 'orgs[0].projects[0].identityServiceHistory[0].type'],
    ]);
    expect(await target.store.read.projects.get(projectId)).toBeUndefined();
  });
});

/** An organisation's entry without any history: what an export without `withHistory` would hold. */
function stripHistories(org: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(org, (key, value) => (key === 'identityServiceHistory' || key === 'identityServiceOrgHistory' ? undefined : value)));
}
