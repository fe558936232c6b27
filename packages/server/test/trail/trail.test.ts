/**
 * Reading the audit trail as ZITADEL offers it (issue 51): admin ListEventTypes and
 * ListAggregateTypes, management ListUserChanges, ListOrgChanges, ListProjectChanges and
 * ListAppChanges — their filters, order, limits and cursor, ZITADEL's permissions, the context
 * organisation's limits, no secret in anything read back, and the calls over gRPC with ZITADEL's
 * own Node SDK — over a real port on both stores.
 */
import { createAccessTokenInterceptor, createAdminClient, createManagementClient } from '@zitadel/node/dist/api/index.js';
import { Metadata } from 'nice-grpc-common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOtpEnrolment } from '../../src/domain/users/otp-enrolment.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { describeEachStore, insertMachineUserWithToken, insertOrg } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

interface Change {
  changeDate: string;
  eventType: { key: string; localizedMessage: string };
  sequence: string;
  editorId: string;
  editorDisplayName?: string;
  editorPreferredLoginName?: string;
  resourceOwnerId: string;
}

const typesOf = (result: Change[]) => result.map((c) => c.eventType.key.replace(/^EventTypes\./, ''));
const sequencesOf = (result: Change[]) => result.map((c) => Number(c.sequence));

describeEachStore('the audit trail as ZITADEL offers it', (dialect) => {
  let s: OidcTestServer;
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}-${Date.now().toString(36)}`;
  const api = (method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>) => s.api(method, path, body, token, headers);
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await api(method, path, body, undefined, headers);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const importHuman = async (extra: Record<string, unknown> = {}, headers?: Record<string, string>) => {
    const userName = unique('gigi');
    const body = { userName, profile: { firstName: 'Gigi', lastName: 'Giraffe' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, ...extra };
    return (await ok('POST', '/management/v1/users/human/_import', body, headers)).userId as string;
  };
  const userChanges = (userId: string, query?: unknown, token?: string, headers?: Record<string, string>) =>
    api('POST', `/management/v1/users/${userId}/changes/_search`, query === undefined ? {} : { query }, token, headers);
  const expectPermissionDenied = (res: { status: number; body: any }, permission: string) => {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      code: 7,
      message: `No matching permissions found (${permission}) (AUTH-5mWD2)`,
      details: [{ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: 'AUTH-5mWD2', message: `No matching permissions found (${permission})`, requestId: expect.any(String) }],
    });
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
  }, 60_000);
  afterAll(() => s?.close());

  it('ListEventTypes and ListAggregateTypes: every type the log can hold, sorted, with its text; events.read', async () => {
    const { eventTypes } = await ok('POST', '/admin/v1/events/types/_search', {});
    const types = eventTypes.map((e: { type: string }) => e.type);
    expect(types).toEqual([...types].sort());
    expect(eventTypes).toContainEqual({ type: 'user.human.profile.changed', localized: { key: 'EventTypes.user.human.profile.changed', localizedMessage: 'Profile changed' } });
    expect(types).toEqual(expect.arrayContaining(['org.added', 'project.application.added', 'user.grant.added', 'instance.added', 'import.job.added']));
    const { aggregateTypes } = await ok('POST', '/admin/v1/aggregates/types/_search', {});
    expect(aggregateTypes.map((a: { type: string }) => a.type)).toEqual(['import_job', 'instance', 'org', 'project', 'user', 'usergrant']);
    expect(aggregateTypes).toContainEqual({ type: 'usergrant', localized: { key: 'AggregateTypes.usergrant', localizedMessage: 'Authorization' } });
    // Whatever the log holds is listed (the store refuses to append an unlisted type).
    const { events } = await ok('POST', '/admin/v1/events/_search', { limit: 1000 });
    for (const event of events) {
      expect(types).toContain(event.type.type);
      expect(aggregateTypes.map((a: { type: string }) => a.type)).toContain(event.aggregate.type.type);
    }

    const viewer = await insertMachineUserWithToken(s.t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect((await api('POST', '/admin/v1/events/types/_search', {}, viewer.token)).status).toBe(200);
    const orgOwner = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_OWNER'] });
    expectPermissionDenied(await api('POST', '/admin/v1/events/types/_search', {}, orgOwner.token), 'events.read');
    expectPermissionDenied(await api('POST', '/admin/v1/aggregates/types/_search', {}, orgOwner.token), 'events.read');
    expect((await api('POST', '/admin/v1/aggregates/types/_search', {}, 'not-a-token')).status).toBe(401);
    expect((await api('POST', '/admin/v1/events/types/_search', { unknown: 1 })).status).toBe(400);
  });

  it("ListEvents: the sequence cursor, `from` as where the reading starts, localized types and the editor's name", async () => {
    const userId = await importHuman();
    const search = (body: Record<string, unknown>) => ok('POST', '/admin/v1/events/_search', { aggregateTypes: ['user'], aggregateId: userId, ...body });
    const imported = (await search({})).events.length;
    for (const firstName of ['A', 'B', 'C']) await ok('PUT', `/management/v1/users/${userId}/profile`, { firstName, lastName: 'Giraffe' });
    const sequences = (events: { sequence: string }[]) => events.map((e) => Number(e.sequence));
    const all = (await search({ asc: true })).events;
    const n = imported + 3;
    expect(sequences(all)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(all[n - 1]).toMatchObject({
      type: { type: 'user.human.profile.changed', localized: { key: 'EventTypes.user.human.profile.changed', localizedMessage: 'Profile changed' } },
      aggregate: { id: userId, type: { type: 'user', localized: { key: 'AggregateTypes.user', localizedMessage: 'User' } }, resourceOwner: s.t.defaultOrgId },
      editor: { userId: s.t.adminUserId, displayName: expect.any(String) },
    });
    // After a sequence ascending (a string or a number, as uint64 may come), before it descending.
    expect(sequences((await search({ asc: true, sequence: String(n - 2) })).events)).toEqual([n - 1, n]);
    expect(sequences((await search({ sequence: n - 1, limit: 2 })).events)).toEqual([n - 2, n - 3]);
    // `from` (and its deprecated twin `creationDate`) is where the reading starts: at or after it ascending, at or before it descending.
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await search({ from: future })).events).toHaveLength(n);
    expect((await search({ from: future, asc: true })).events).toEqual([]);
    expect((await search({ creationDate: future, asc: true })).events).toEqual([]);
    expect((await search({ from: all[0].creationDate, asc: true })).events).toHaveLength(n);
    expect(sequences((await search({ from: all[0].creationDate })).events)).toEqual(
      all
        .filter((e: { creationDate: string }) => e.creationDate === all[0].creationDate)
        .map((e: { sequence: string }) => Number(e.sequence))
        .reverse(),
    );
    expect((await api('POST', '/admin/v1/events/_search', { from: future, creationDate: future })).status).toBe(400);
    expect((await api('POST', '/admin/v1/events/_search', { sequence: 'one' })).status).toBe(400);
  });

  it("ListUserChanges: the user's history newest first or oldest first, limited, paged by sequence, editor named; a removed user's stays", async () => {
    const userId = await importHuman();
    await ok('PUT', `/management/v1/users/${userId}/profile`, { firstName: 'Gina', lastName: 'Giraffe' });
    await ok('PUT', `/management/v1/users/${userId}/phone`, { phone: '+41 79 123 45 67' });
    await ok('POST', `/management/v1/users/${userId}/_lock`, {});
    await ok('POST', `/management/v1/users/${userId}/_unlock`, {});

    const newest = await userChanges(userId);
    expect(newest.status, JSON.stringify(newest.body)).toBe(200);
    const result: Change[] = newest.body.result;
    expect(typesOf(result).slice(0, 4)).toEqual(['user.unlocked', 'user.locked', 'user.human.phone.changed', 'user.human.profile.changed']);
    expect(typesOf(result).at(-1)).toBe('user.human.added');
    expect(sequencesOf(result)).toEqual(sequencesOf(result).map((_, i) => result.length - i));
    const { editorPreferredLoginName: _login, ...first } = result[0];
    expect(first).toEqual({
      changeDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      eventType: { key: 'EventTypes.user.unlocked', localizedMessage: 'User unlocked' },
      sequence: String(result.length),
      editorId: s.t.adminUserId,
      editorDisplayName: expect.any(String),
      resourceOwnerId: s.t.defaultOrgId,
    });
    expect(result[0].editorPreferredLoginName).toMatch(/@/);

    const oldest: Change[] = (await userChanges(userId, { asc: true })).body.result;
    expect(oldest).toEqual([...result].reverse());
    // A limit, and the last sequence of a page as the cursor of the next (uint64 as a string or a number).
    const page1: Change[] = (await userChanges(userId, { limit: 2 })).body.result;
    expect(sequencesOf(page1)).toEqual([result.length, result.length - 1]);
    const page2: Change[] = (await userChanges(userId, { limit: 2, sequence: page1[1].sequence })).body.result;
    expect(sequencesOf(page2)).toEqual([result.length - 2, result.length - 3]);
    expect(sequencesOf((await userChanges(userId, { asc: true, limit: 2, sequence: 2 })).body.result)).toEqual([3, 4]);
    expect((await userChanges(userId, { asc: true, sequence: '18446744073709551615' })).body.result).toEqual([]);
    // ZITADEL's gateway sends an empty body when there is no query.
    expect((await api('POST', `/management/v1/users/${userId}/changes/_search`)).body.result).toHaveLength(result.length);

    for (const query of [{ limit: 1001 }, { sequence: 'abc' }, { sequence: '18446744073709551616' }, { asc: 'yes' }]) {
      const refused = await userChanges(userId, query);
      expect(refused.status, JSON.stringify(query)).toBe(400);
      expect(refused.body.code).toBe(3);
    }

    // An id without events answers an empty list (as ZITADEL); a removed user's history stays readable.
    expect((await userChanges('123456789012345678')).body.result).toEqual([]);
    await ok('DELETE', `/management/v1/users/${userId}`);
    const removed: Change[] = (await userChanges(userId)).body.result;
    expect(typesOf(removed)[0]).toBe('user.removed');
    expect(removed).toHaveLength(result.length + 1);
  });

  it("permissions: user.read, org.read, project.read, project.app.read (or a role on the project); an organisation's caller sees only its organisation's changes", async () => {
    const userId = await importHuman();
    const project = (await ok('POST', '/management/v1/projects', { name: unique('p') })).id as string;
    const other = (await ok('POST', '/management/v1/projects', { name: unique('q') })).id as string;
    const app = (await ok('POST', `/management/v1/projects/${project}/apps/api`, { name: 'api', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' })).appId as string;

    const settings = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_SETTINGS_MANAGER'] });
    expectPermissionDenied(await userChanges(userId, undefined, settings.token), 'user.read');
    expect((await api('POST', '/management/v1/orgs/me/changes/_search', {}, settings.token)).status).toBe(200);
    expectPermissionDenied(await api('POST', `/management/v1/projects/${project}/changes/_search`, {}, settings.token), 'project.read');

    const userManager = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_USER_MANAGER'] });
    expect((await userChanges(userId, undefined, userManager.token)).status).toBe(200);
    expect((await api('POST', `/management/v1/projects/${project}/changes/_search`, {}, userManager.token)).status).toBe(200);
    expectPermissionDenied(await api('POST', `/management/v1/projects/${project}/apps/${app}/changes/_search`, {}, userManager.token), 'project.app.read');

    // A role on one project: that project's changes and its applications', not another project's, not the organisation's.
    const projectOwner = await insertMachineUserWithToken(s.t, { projectRoles: [{ projectId: project, roles: ['PROJECT_OWNER'] }] });
    expect((await api('POST', `/management/v1/projects/${project}/changes/_search`, {}, projectOwner.token)).status).toBe(200);
    expect((await api('POST', `/management/v1/projects/${project}/apps/${app}/changes/_search`, {}, projectOwner.token)).status).toBe(200);
    expectPermissionDenied(await api('POST', `/management/v1/projects/${other}/changes/_search`, {}, projectOwner.token), 'project.read');
    expectPermissionDenied(await api('POST', `/management/v1/projects/${other}/apps/${app}/changes/_search`, {}, projectOwner.token), 'project.app.read');
    expectPermissionDenied(await api('POST', '/management/v1/orgs/me/changes/_search', {}, projectOwner.token), 'org.read');
    expect((await api('POST', '/management/v1/orgs/me/changes/_search', {}, 'not-a-token')).status).toBe(401);

    // The owner of another organisation: its own organisation's changes only.
    const { orgId: orgB } = await insertOrg(s.t, unique('Org B'));
    const inB = { 'x-service-orgid': orgB };
    await ok('POST', '/management/v1/orgs/me/domains', { domain: `${unique('b')}.example.com` }, inB);
    const userB = await importHuman({}, inB);
    const ownerB = await insertMachineUserWithToken(s.t, { orgId: orgB, orgRoles: ['ORG_OWNER'] });
    const orgChanges: Change[] = (await api('POST', '/management/v1/orgs/me/changes/_search', {}, ownerB.token)).body.result;
    expect(typesOf(orgChanges)).toEqual(['org.domain.added', 'org.added']);
    expect(new Set(orgChanges.map((c) => c.resourceOwnerId))).toEqual(new Set([orgB]));
    expect((await userChanges(userB, undefined, ownerB.token)).body.result.length).toBeGreaterThan(0);
    // A user, project or application of the default organisation: nothing in its own organisation, and no entry to the other.
    expect((await userChanges(userId, undefined, ownerB.token)).body.result).toEqual([]);
    expect((await api('POST', `/management/v1/projects/${project}/changes/_search`, {}, ownerB.token)).body.result).toEqual([]);
    expect((await api('POST', `/management/v1/projects/${project}/apps/${app}/changes/_search`, {}, ownerB.token)).body.result).toEqual([]);
    expect((await userChanges(userId, undefined, ownerB.token, { 'x-service-orgid': s.t.defaultOrgId })).status).toBe(403);
    // The instance's owner names the organisation.
    expect((await userChanges(userB, undefined, undefined, inB)).body.result.length).toBeGreaterThan(0);
    expect((await userChanges(userB)).body.result).toEqual([]);
  });

  it("ListProjectChanges and ListAppChanges: the project's events, an application's own; the query in the URL as ZITADEL's gateway sends it, or in the body", async () => {
    const project = (await ok('POST', '/management/v1/projects', { name: unique('shop') })).id as string;
    await ok('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'reader', displayName: 'Reader' });
    const web = await ok('POST', `/management/v1/projects/${project}/apps/oidc`, { name: 'web', redirectUris: ['https://app.example.com/cb'] });
    const api2 = (await ok('POST', `/management/v1/projects/${project}/apps/api`, { name: 'api', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' })).appId as string;
    await ok('PUT', `/management/v1/projects/${project}/apps/${web.appId}`, { name: 'web shop' });
    await ok('POST', `/management/v1/projects/${project}/apps/${web.appId}/oidc_config/_generate_client_secret`, {});
    await ok('PUT', `/management/v1/projects/${project}/apps/${api2}`, { name: 'api 2' });

    const projectChanges: Change[] = (await ok('POST', `/management/v1/projects/${project}/changes/_search`, { query: { asc: true } })).result;
    expect(typesOf(projectChanges).slice(0, 3)).toEqual(['project.added', 'project.member.added', 'project.role.added']);
    expect(typesOf(projectChanges)).toContain('project.application.config.api.added');
    expect(new Set(projectChanges.map((c) => c.resourceOwnerId))).toEqual(new Set([s.t.defaultOrgId]));

    const webChanges: Change[] = (await ok('POST', `/management/v1/projects/${project}/apps/${web.appId}/changes/_search`, {})).result;
    expect(typesOf(webChanges)).toEqual(['project.application.config.oidc.secret.changed', 'project.application.changed', 'project.application.config.oidc.added', 'project.application.added']);
    expect(typesOf((await ok('POST', `/management/v1/projects/${project}/apps/${api2}/changes/_search`, {})).result)).toEqual([
      'project.application.changed',
      'project.application.config.api.added',
      'project.application.added',
    ]);
    // The application must be the project's: another project's id finds nothing.
    const elsewhere = (await ok('POST', '/management/v1/projects', { name: unique('elsewhere') })).id as string;
    expect((await ok('POST', `/management/v1/projects/${elsewhere}/apps/${web.appId}/changes/_search`, {})).result).toEqual([]);

    // ZITADEL's REST gateway reads these two calls' query from the URL.
    const inUrl = await ok('POST', `/management/v1/projects/${project}/changes/_search?query.limit=2&query.asc=true`);
    expect(typesOf(inUrl.result)).toEqual(['project.added', 'project.member.added']);
    const next = await ok('POST', `/management/v1/projects/${project}/changes/_search?query.limit=1&query.asc=true&query.sequence=2`);
    expect(typesOf(next.result)).toEqual(['project.role.added']);
    const appInUrl = await ok('POST', `/management/v1/projects/${project}/apps/${web.appId}/changes/_search?query.limit=1`);
    expect(typesOf(appInUrl.result)).toEqual(['project.application.config.oidc.secret.changed']);
    const both = await api('POST', `/management/v1/projects/${project}/changes/_search?query.limit=1`, { query: { limit: 1 } });
    expect(both.status).toBe(400);
    expect(both.body.details[0].id).toBe('CHANGE-qu3ry');
    expect((await api('POST', `/management/v1/projects/${project}/changes/_search?query.limit=-1`)).status).toBe(400);
    expect((await api('POST', `/management/v1/projects/${project}/changes/_search?query.asc=yes`)).status).toBe(400);
  });

  it("a project grant's member removed with its user: the project's history says so", async () => {
    const project = (await ok('POST', '/management/v1/projects', { name: unique('granted') })).id as string;
    await ok('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'reader', displayName: 'Reader' });
    const { orgId: grantedOrgId } = await insertOrg(s.t, unique('Partner'));
    const { grantId } = await ok('POST', `/management/v1/projects/${project}/grants`, { grantedOrgId, roleKeys: ['reader'] });
    const member = await importHuman({}, { 'x-service-orgid': grantedOrgId });
    await ok('POST', `/management/v1/projects/${project}/grants/${grantId}/members`, { userId: member, roles: ['PROJECT_GRANT_OWNER_VIEWER'] });
    await ok('DELETE', `/management/v1/users/${member}`, undefined, { 'x-service-orgid': grantedOrgId });
    const changes: Change[] = (await ok('POST', `/management/v1/projects/${project}/changes/_search`, { query: { limit: 2 } })).result;
    expect(typesOf(changes)).toEqual(['project.grant.member.cascade.removed', 'project.grant.member.added']);
    expect(changes[0].resourceOwnerId).toBe(s.t.defaultOrgId);
    const { events } = await ok('POST', '/admin/v1/events/_search', { aggregateId: project, eventTypes: ['project.grant.member.cascade.removed'] });
    expect(events[0].payload).toEqual({ grantId, userId: member });
  });

  it('no secret is read back: passwords, a TOTP secret, a machine secret, a PAT, a key, client secrets, an SMTP password', async () => {
    const secrets: string[] = [];
    const password = 'S3cret-Passw0rd!';
    const otpCode = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const userId = await importHuman({ password, otpCode });
    secrets.push(password, otpCode);
    const newPassword = 'An0ther-Passw0rd!';
    await ok('POST', `/management/v1/users/${userId}/password`, { password: newPassword, noChangeRequired: true });
    secrets.push(newPassword);
    // A TOTP secret made for a person setting up an app (what AddMyAuthFactorOTP runs).
    const person = await importHuman();
    const enrolment = await startOtpEnrolment(s.t.store, processSecretBox(), { instanceId: s.t.instanceId, userId: person, issuerName: 'localhost' });
    secrets.push(enrolment.secret);

    const machine = (await ok('POST', '/management/v1/users/machine', { userName: unique('robot'), name: 'Robot' })).userId as string;
    secrets.push((await ok('PUT', `/management/v1/users/${machine}/secret`)).clientSecret);
    secrets.push((await ok('POST', `/management/v1/users/${machine}/pats`, {})).token);
    const key = await ok('POST', `/management/v1/users/${machine}/keys`, { type: 'KEY_TYPE_JSON' });
    secrets.push(JSON.parse(Buffer.from(key.keyDetails, 'base64').toString()).key);

    const idpSecret = `idp-${unique('secret')}`;
    await ok('POST', '/management/v1/idps/oidc', { name: unique('partner'), clientId: 'partner-client', clientSecret: idpSecret, issuer: 'https://partner.example.com' });
    secrets.push(idpSecret);
    const smtpPassword = `smtp-${unique('password')}`;
    await ok('POST', '/admin/v1/smtp', { senderAddress: 'noreply@example.com', senderName: 'Trail', host: '127.0.0.1:2525', user: 'mailer', password: smtpPassword });
    secrets.push(smtpPassword);

    const project = (await ok('POST', '/management/v1/projects', { name: unique('secrets') })).id as string;
    const web = await ok('POST', `/management/v1/projects/${project}/apps/oidc`, { name: 'web', redirectUris: ['https://app.example.com/cb'] });
    secrets.push(web.clientSecret);
    secrets.push((await ok('POST', `/management/v1/projects/${project}/apps/${web.appId}/oidc_config/_generate_client_secret`, {})).clientSecret);
    const apiApp = await ok('POST', `/management/v1/projects/${project}/apps/api`, { name: 'api', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' });
    secrets.push(apiApp.clientSecret);
    expect(secrets.every((secret) => typeof secret === 'string' && secret.length >= 8)).toBe(true);

    const readBack = JSON.stringify([
      await ok('POST', '/admin/v1/events/_search', { limit: 1000 }),
      await ok('POST', '/admin/v1/events/_search', { limit: 1000, asc: true }),
      ...(await Promise.all([userId, person, machine].map(async (id) => (await userChanges(id)).body))),
      await ok('POST', '/management/v1/orgs/me/changes/_search', {}),
      await ok('POST', `/management/v1/projects/${project}/changes/_search`, {}),
      await ok('POST', `/management/v1/projects/${project}/apps/${web.appId}/changes/_search`, {}),
    ]);
    expect(readBack).toContain('user.human.password.changed');
    expect(readBack).toContain('user.machine.secret.set');
    for (const secret of secrets) expect(readBack, 'a secret was read back').not.toContain(secret);
    // Nor is any written: the log itself holds none of them.
    const { events } = await s.t.store.read.events.search({ limit: 100_000, offset: 0, asc: true });
    const stored = JSON.stringify(events.map((e) => e.payload));
    for (const secret of secrets) expect(stored, 'a secret was written to the log').not.toContain(secret);
  });

  it('a payload field named like a secret reads back redacted (the second line of defence), flags and look-alikes stay', async () => {
    const { userId } = await insertMachineUserWithToken(s.t);
    await s.t.store.transaction((tx) =>
      tx.events.append({
        aggregateType: 'user',
        aggregateId: userId,
        type: 'user.metadata.set',
        creator: 'TEST',
        resourceOwner: s.t.defaultOrgId,
        payload: { key: 'k', client_secret: 'leak-1', nested: [{ passwordHash: 'leak-2', tokenId: 't1' }], passwordSet: true, publicKey: 'pk' },
      }),
    );
    const { events } = await ok('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: ['user.metadata.set'] });
    expect(events[0].payload).toEqual({ key: 'k', client_secret: '[redacted]', nested: [{ passwordHash: '[redacted]', tokenId: 't1' }], passwordSet: true, publicKey: 'pk' });
  });

  it("over gRPC with ZITADEL's Node SDK (@zitadel/node): ListUserChanges, ListProjectChanges (its query in the URL), ListEventTypes; PERMISSION_DENIED", async () => {
    const userId = await importHuman();
    await ok('PUT', `/management/v1/users/${userId}/profile`, { firstName: 'Grpc', lastName: 'Giraffe' });
    const management = createManagementClient(s.issuer, createAccessTokenInterceptor(s.t.adminToken));
    // A fresh Metadata per call: the SDK's token interceptor writes the token into the one it is given.
    const inOrg = () => ({ metadata: Metadata({ 'x-zitadel-orgid': s.t.defaultOrgId }) });
    const { result } = await management.listUserChanges({ userId, query: { limit: 1 } }, inOrg());
    expect(result).toHaveLength(1);
    expect(result[0]).toMatchObject({
      eventType: { key: 'EventTypes.user.human.profile.changed', localizedMessage: 'Profile changed' },
      editorId: s.t.adminUserId,
      resourceOwnerId: s.t.defaultOrgId,
    });
    const viaRest: Change[] = (await userChanges(userId)).body.result;
    expect(String(result[0].sequence)).toBe(viaRest[0].sequence);
    expect(result[0].changeDate).toBeInstanceOf(Date);
    const oldest = await management.listUserChanges({ userId, query: { asc: true } }, inOrg());
    expect(oldest.result.map((c) => c.eventType?.key)).toEqual(viaRest.map((c) => c.eventType.key).reverse());
    expect(oldest.result[0].eventType?.key).toBe('EventTypes.user.human.added');

    const project = (await ok('POST', '/management/v1/projects', { name: unique('grpc') })).id as string;
    await ok('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'reader', displayName: 'Reader' });
    const projectChanges = await management.listProjectChanges({ projectId: project, query: { limit: 2, asc: true } }, inOrg());
    expect(projectChanges.result.map((c) => c.eventType?.key)).toEqual(['EventTypes.project.added', 'EventTypes.project.member.added']);

    const admin = createAdminClient(s.issuer, createAccessTokenInterceptor(s.t.adminToken));
    expect((await admin.listEventTypes({})).eventTypes.map((e) => e.type)).toContain('user.human.profile.changed');

    const settings = await insertMachineUserWithToken(s.t, { orgRoles: ['ORG_SETTINGS_MANAGER'] });
    const denied = await createManagementClient(s.issuer, createAccessTokenInterceptor(settings.token))
      .listUserChanges({ userId }, inOrg())
      .then(
        () => undefined,
        (e: { code: number; details: string }) => e,
      );
    expect(denied).toMatchObject({ code: 7 });
    expect(denied?.details).toMatch(/No matching permissions found/);
  });
});
