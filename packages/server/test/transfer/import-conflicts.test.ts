/**
 * ImportData's conflict policies (REPORT, SKIP, OVERWRITE), the same document twice, and the dry
 * run (issue 30): a dry run writes nothing — every table's row count is the same after it, on
 * either store, read through a connection of its own — and predicts exactly what the real import
 * then answers.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StoreLocation } from '../../src/store/store.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { richDocument } from '../support/transfer-documents.js';

const PASSWORD = 'Plain-Passw0rd!';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** richDocument plus what it lacks: domains, a policy, metadata, a plain password, a project grant and its member, an OIDC provider. */
function document() {
  const doc = richDocument('7') as { orgs: Record<string, any>[] };
  const [a, b] = doc.orgs;
  for (const [i, org] of doc.orgs.entries()) {
    org.domains = [{ domainName: `conflicts${i}.example.com`, isVerified: true, validationType: 'DOMAIN_VALIDATION_TYPE_DNS' }];
    org.lockoutPolicy = { maxPasswordAttempts: 5, maxOtpAttempts: 3 };
    org.userMetadata = [{ id: org.humanUsers[0].userId, key: 'team', value: b64('blue') }];
    org.humanUsers.push({
      userId: `${org.orgId}9`,
      user: { userName: `plain${i}`, profile: { firstName: 'Pat', lastName: 'Plain' }, email: { email: `plain${i}@example.com`, isEmailVerified: true }, password: PASSWORD },
    });
    org.oidcIdps = [{ idpId: `${org.orgId}8`, idp: { name: 'Corp OIDC', clientId: 'corp', clientSecret: 'corp-secret', issuer: 'https://oidc.example.com', scopes: ['openid'] } }];
  }
  // Organisation A grants its project to B; a user of B manages the grant.
  a.projectGrants = [{ grantId: '7109', projectGrant: { projectId: '7103', grantedOrgId: '7200', roleKeys: ['reader'] } }];
  a.projectGrantMembers = [{ projectId: '7103', grantId: '7109', userId: '7201', roles: ['PROJECT_GRANT_OWNER'] }];
  b.userGrants.push({ userId: '7201', projectId: '7103', projectGrantId: '7109', roleKeys: ['reader'] });
  return doc;
}

/** Rows per table, read through a connection of its own (what is committed, whatever the store caches). */
async function tableCounts(location: StoreLocation): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  if (location.dialect === 'sqlite') {
    const db = new Database(location.target, { readonly: true });
    try {
      const tables = db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).all() as { name: string }[];
      for (const { name } of tables) counts[name] = (db.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n;
    } finally {
      db.close();
    }
    return counts;
  }
  const client = new pg.Client({ connectionString: location.target });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
    for (const { name } of tables.rows) counts[name] = Number((await client.query<{ n: string }>(`select count(*) as n from "${name}"`)).rows[0].n);
  } finally {
    await client.end();
  }
  return counts;
}

describeEachStore('import conflict policies and dry runs', (dialect) => {
  let t: TestInstance;
  const importDoc = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '2m', ...body } });
    const json = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  };
  const eventCount = async () => (await tableCounts(t.location)).events;
  /** The answer without what only a dry run has. */
  const report = ({ dryRun: _d, resources: _r, ...rest }: Record<string, unknown>) => rest;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  it('a dry run writes nothing (no row, no event, no mail) and predicts exactly what the import then does', async () => {
    const before = await tableCounts(t.location);
    const dry = await importDoc({ dataOrgs: document(), dryRun: true, notifyUsers: true });
    expect(await tableCounts(t.location)).toEqual(before);
    expect(dry.dryRun).toBe(true);
    expect(dry.summary).toMatchObject({ unchanged: 0, changed: 0 });
    expect(dry.summary.created).toBeGreaterThan(40);
    // Every resource is listed, in the order the import takes them; the counts are the list's.
    const outcomes = dry.resources as { type: string; id: string; outcome: string }[];
    expect(outcomes.length).toBe(dry.summary.created + dry.summary.refused);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        { type: 'org', id: '7100', outcome: 'CREATED' },
        { type: 'lockout_policy', id: '7100', outcome: 'CREATED' },
        { type: 'human_user', id: '71009', outcome: 'CREATED' },
        { type: 'project_grant', id: '7100_7103_7200', outcome: 'CREATED' },
        { type: 'project_grant_member', id: '7100_7103_7109_7201', outcome: 'CREATED' },
        { type: 'user_grant', id: '7200_7103_7201', outcome: 'CREATED' },
        { type: 'oidc_idp', id: '72008', outcome: 'CREATED' },
      ]),
    );

    const real = await importDoc({ dataOrgs: document(), notifyUsers: true });
    expect(real.dryRun).toBeUndefined();
    expect(real.resources).toBeUndefined();
    expect(report(dry)).toEqual(real);
    expect((await tableCounts(t.location)).users - before.users).toBe(6);
  });

  it('the same document again: REPORT reports what exists, SKIP and OVERWRITE find nothing to do; none writes an event or a row', async () => {
    const before = await tableCounts(t.location);
    const reported = await importDoc({ dataOrgs: document() });
    expect(reported.errors.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['org', 'human_user', 'project', 'user_grant', 'lockout_policy', 'oidc_idp', 'project_grant', 'project_grant_member']),
    );
    expect(reported.summary).toMatchObject({ created: 0, changed: 0 });

    const settled = reported.summary.refused + reported.summary.unchanged;
    for (const conflictPolicy of ['SKIP', 'OVERWRITE']) {
      const again = await importDoc({ dataOrgs: document(), conflictPolicy });
      expect(again.errors, conflictPolicy).toBeUndefined();
      // SKIP leaves what exists without looking (skipped); OVERWRITE finds it equal (unchanged).
      const [skipped, unchanged] = conflictPolicy === 'SKIP' ? [settled, 0] : [0, settled];
      expect(again.summary, conflictPolicy).toEqual({ created: 0, changed: 0, refused: 0, skipped, unchanged });
      expect(again.summaryByType.human_user, conflictPolicy).toEqual({ created: 0, changed: 0, refused: 0, skipped: skipped && 4, unchanged: unchanged && 4 });
      // And its dry run says so, resource by resource.
      const dry = await importDoc({ dataOrgs: document(), conflictPolicy, dryRun: true });
      expect(report(dry)).toEqual(again);
      expect(new Set(dry.resources.map((r: { outcome: string }) => r.outcome))).toEqual(new Set([conflictPolicy === 'SKIP' ? 'SKIPPED' : 'UNCHANGED']));
    }
    // No audit event either: an import that finds nothing to do leaves no trace.
    expect(await tableCounts(t.location)).toEqual(before);
  });

  it("OVERWRITE: what differs takes the document's values, one event per resource changed; SKIP and REPORT leave it", async () => {
    const changed = document();
    const [a, b] = changed.orgs;
    a.humanUsers[0].user.profile.firstName = 'Alicia';
    a.humanUsers[1].user.password = 'Another-Passw0rd!';
    a.machineUsers[0].user.description = 'a better robot';
    a.projects[0].project.name = 'Renamed';
    a.projectRoles[1].displayName = 'Readers';
    a.oidcApps[0].app.redirectUris = ['https://app.example.com/callback'];
    a.userGrants[0].roleKeys = ['reader'];
    a.orgMembers[0].roles = ['ORG_USER_MANAGER'];
    a.lockoutPolicy = { maxPasswordAttempts: 7, maxOtpAttempts: 3 };
    a.userMetadata[0].value = b64('green');
    a.initMessages[0].title = 'Welcome';
    a.projectGrants[0].projectGrant.roleKeys = ['reader', 'admin'];
    b.oidcIdps[0].idp.clientSecret = 'rotated';
    b.loginTexts[0].loginText.title = 'Hello';
    const expected = [
      ['human_user', '7101', ['data']],
      ['human_user', '71009', ['passwordHash']],
      ['machine_user', '7102', ['data']],
      ['project', '7103', ['name']],
      ['project_role', '7103_reader', ['displayName']],
      ['oidc_app', '7104', ['config']],
      ['oidc_idp', '72008', ['clientSecret']],
      ['user_grant', '7100_7103_7101', ['roleKeys']],
      ['org_member', '7100_7102', ['roles']],
      ['lockout_policy', '7100', ['maxPasswordAttempts']],
      ['user_metadata', '7101_team', ['value']],
      ['init_message', '7100_en', ['fields']],
      ['project_grant', '7100_7103_7200', ['roleKeys']],
      ['login_texts', '7200_en', ['screens']],
    ];

    // SKIP and REPORT change nothing.
    const events = await eventCount();
    const skipped = await importDoc({ dataOrgs: changed, conflictPolicy: 'SKIP' });
    expect(skipped.errors).toBeUndefined();
    expect(skipped.summary.changed).toBe(0);
    expect((await importDoc({ dataOrgs: changed })).summary.changed).toBe(0);
    expect(await eventCount()).toBe(events);
    expect((await t.store.read.users.get('7101'))?.data).toMatchObject({ profile: { firstName: 'Alice' } });

    const dry = await importDoc({ dataOrgs: changed, conflictPolicy: 'OVERWRITE', dryRun: true });
    const predicted = dry.resources.filter((r: { outcome: string }) => r.outcome === 'CHANGED').map((r: { type: string; id: string; fields: string[] }) => [r.type, r.id, r.fields]);
    expect(predicted).toEqual(expect.arrayContaining(expected));
    expect(predicted).toHaveLength(expected.length);
    expect(await eventCount()).toBe(events);

    const real = await importDoc({ dataOrgs: changed, conflictPolicy: 'OVERWRITE' });
    expect(report(dry)).toEqual(real);
    expect(real.errors).toBeUndefined();
    expect(real.summary.changed).toBe(expected.length);
    // One event per resource changed, plus the two organisations' and the import's audit events.
    const written = (await t.store.read.events.search({ limit: 1000, offset: 0, asc: true })).events.slice(events);
    expect(written.filter((e) => !e.type.endsWith('data.imported'))).toHaveLength(expected.length);
    expect(written.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'user.human.changed',
        'user.machine.changed',
        'project.changed',
        'project.role.changed',
        'project.application.changed',
        'org.idp.config.changed',
        'user.grant.changed',
        'org.member.changed',
        'org.policy.lockout.changed',
        'user.metadata.set',
        'org.customtext.set',
        'project.grant.changed',
        'org.customtext.login.set',
        'org.data.imported',
        'instance.data.imported',
      ]),
    );
    for (const e of written) expect(JSON.stringify(e.payload)).not.toMatch(/rotated|Another-Passw0rd|\$argon2/);
    // An overwritten provider's events name it as the API's do (idpConfigId), so its change list finds them.
    for (const e of written.filter((w) => w.type.startsWith('org.idp.config.'))) expect(Object.keys(e.payload), e.type).toContain('idpConfigId');

    // The target now holds the document's values.
    expect((await t.store.read.users.get('7101'))?.data).toMatchObject({ profile: { firstName: 'Alicia' } });
    expect((await t.store.read.projects.get('7103'))?.name).toBe('Renamed');
    expect((await t.store.read.userGrants.find('7100', '7101', '7103'))?.roleKeys).toEqual(['reader']);
    expect((await t.store.read.members.get('org', '7100', '7102'))?.roles).toEqual(['ORG_USER_MANAGER']);
    expect((await t.store.read.policies.get('7100', 'lockout'))?.settings).toMatchObject({ maxPasswordAttempts: 7 });
    expect((await t.store.read.projectGrants.get('7109'))?.roleKeys).toEqual(['reader', 'admin']);
    expect((await t.store.read.messageTexts.get('7100', 'InitCode', 'en'))?.fields).toMatchObject({ title: 'Welcome' });
    // Once more: nothing to do (the user whose plain password changed keeps the hash made for it).
    const twice = await importDoc({ dataOrgs: changed, conflictPolicy: 'OVERWRITE' });
    expect(twice.summary).toMatchObject({ created: 0, changed: 0, refused: 0 });
    expect(await eventCount()).toBe(events + written.length);
  });

  it("OVERWRITE: states take the document's, each with the API's own event; roles taken out of a project grant leave its user grants", async () => {
    await importDoc({ dataOrgs: document(), conflictPolicy: 'OVERWRITE' });
    const inactive = document();
    const [a, b] = inactive.orgs;
    a.orgState = 'ORG_STATE_INACTIVE';
    a.humanUsers[0].state = 'USER_STATE_LOCKED';
    a.machineUsers[0].state = 'USER_STATE_INACTIVE';
    a.projects[0].state = 'PROJECT_STATE_INACTIVE';
    a.oidcApps[0].state = 'APP_STATE_INACTIVE';
    a.jwtIdps[0].state = 'IDP_STATE_INACTIVE';
    a.userGrants[0].state = 'USER_GRANT_STATE_INACTIVE';
    a.projectGrants[0].state = 'PROJECT_GRANT_STATE_INACTIVE';
    a.projectGrants[0].projectGrant.roleKeys = ['admin'];
    // The user grant given through the project grant is left out: what the cascade leaves of it stays.
    b.userGrants = b.userGrants.filter((g: { projectGrantId?: string }) => !g.projectGrantId);
    const states = async () => ({
      org: (await t.store.read.orgs.get('7100'))?.state,
      human: (await t.store.read.users.get('7101'))?.state,
      machine: (await t.store.read.users.get('7102'))?.state,
      project: (await t.store.read.projects.get('7103'))?.state,
      app: (await t.store.read.oidcApps.get('7103', '7104'))?.state,
      idp: (await t.store.read.idps.get('7105'))?.state,
      userGrant: (await t.store.read.userGrants.find('7100', '7101', '7103'))?.state,
      projectGrant: (await t.store.read.projectGrants.get('7109'))?.state,
    });
    const active = {
      org: 'ORG_STATE_ACTIVE',
      human: 'USER_STATE_ACTIVE',
      machine: 'USER_STATE_ACTIVE',
      project: 'PROJECT_STATE_ACTIVE',
      app: 'APP_STATE_ACTIVE',
      idp: 'IDP_STATE_ACTIVE',
      userGrant: 'USER_GRANT_STATE_ACTIVE',
      projectGrant: 'PROJECT_GRANT_STATE_ACTIVE',
    };
    expect(await states()).toEqual(active);
    const grantedRoles = async () => (await t.store.read.userGrants.find('7200', '7201', '7103'))?.roleKeys;
    expect(await grantedRoles()).toEqual(['reader']);

    const events = await eventCount();
    const dry = await importDoc({ dataOrgs: inactive, conflictPolicy: 'OVERWRITE', dryRun: true });
    expect(await eventCount()).toBe(events);
    const real = await importDoc({ dataOrgs: inactive, conflictPolicy: 'OVERWRITE' });
    expect(report(dry)).toEqual(real);
    expect(real.errors).toBeUndefined();
    expect(await states()).toEqual({
      org: 'ORG_STATE_INACTIVE',
      human: 'USER_STATE_LOCKED',
      machine: 'USER_STATE_INACTIVE',
      project: 'PROJECT_STATE_INACTIVE',
      app: 'APP_STATE_INACTIVE',
      idp: 'IDP_STATE_INACTIVE',
      userGrant: 'USER_GRANT_STATE_INACTIVE',
      projectGrant: 'PROJECT_GRANT_STATE_INACTIVE',
    });
    expect(await grantedRoles()).toEqual([]);
    const written = (await t.store.read.events.search({ limit: 1000, offset: 0, asc: true })).events
      .slice(events)
      .map((e) => e.type)
      .filter((type) => !type.endsWith('data.imported'));
    expect(written.sort()).toEqual([
      'org.deactivated',
      'org.idp.config.deactivated',
      'project.application.deactivated',
      'project.deactivated',
      'project.grant.changed',
      'project.grant.deactivated',
      'user.deactivated',
      'user.grant.cascade.changed',
      'user.grant.deactivated',
      'user.locked',
    ]);

    // And back: the document's active resources (and the grant's role) return, with the reverse events.
    const again = await importDoc({ dataOrgs: document(), conflictPolicy: 'OVERWRITE' });
    expect(again.errors).toBeUndefined();
    expect(await states()).toEqual(active);
    expect(await grantedRoles()).toEqual(['reader']);
    const back = (await t.store.read.events.search({ limit: 1000, offset: 0, asc: true })).events.slice(events + written.length).map((e) => e.type);
    expect(back).toEqual(
      expect.arrayContaining([
        'org.reactivated',
        'user.unlocked',
        'user.reactivated',
        'project.reactivated',
        'project.application.reactivated',
        'org.idp.config.reactivated',
        'user.grant.reactivated',
        'project.grant.reactivated',
      ]),
    );
  });

  it('a clash with a different resource is refused under every policy', async () => {
    const clash = document();
    // Another user id with a user name organisation A holds; a project id of organisation A given to B.
    clash.orgs[0].humanUsers.push({ userId: '7199', user: { userName: 'alice1', profile: { firstName: 'X', lastName: 'Y' }, email: { email: 'x@example.com' } } });
    clash.orgs[1].projects.push({ projectId: '7103', project: { name: 'Stolen' } });
    for (const conflictPolicy of ['REPORT', 'SKIP', 'OVERWRITE']) {
      const res = await importDoc({ dataOrgs: clash, conflictPolicy, dryRun: true });
      expect(res.errors, conflictPolicy).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'human_user', id: '7199', message: expect.stringContaining('COMMAND-k2unb') }),
          expect.objectContaining({ type: 'project', id: '7103' }),
        ]),
      );
    }
  });

  /** Two new organisations (ids and names of their own); the second's last user takes the id of organisation A's first user. */
  function conflictingDocument() {
    const doc = richDocument('6') as { orgs: Record<string, any>[] };
    doc.orgs[1].humanUsers.push({ userId: '7101', user: { userName: 'thief', profile: { firstName: 'T', lastName: 'Hief' }, email: { email: 'thief@example.com', isEmailVerified: true } } });
    return doc;
  }

  it('FAIL: the first conflict stops the import and nothing of it is written, in any organisation (dry run: the same answer)', async () => {
    const before = await tableCounts(t.location);
    for (const dryRun of [false, true]) {
      const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '2m', dataOrgs: conflictingDocument(), conflictPolicy: 'FAIL', dryRun } });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(body).toMatchObject({
        code: 6,
        message: expect.stringMatching(/^conflictPolicy FAIL: human_user 7101 exists already, or clashes with a resource that does \(ID=COMMAND-ziuna .*nothing was imported \(IMPORT-f41l0\)$/),
      });
      expect(body.details[0].id).toBe('IMPORT-f41l0');
      // The first organisation, and the second's users before the conflicting one, were imported in the transaction: all rolled back.
      expect(await tableCounts(t.location)).toEqual(before);
      expect(await t.store.read.orgs.get('6100')).toBeUndefined();
    }
    // An organisation that exists is a conflict too (REPORT would import into it).
    const existing = await t.call('POST', '/admin/v1/import', { body: { dataOrgs: document(), conflictPolicy: 'FAIL' } });
    expect(existing.status).toBe(409);
    expect((await existing.json()).message).toContain('org 7100 exists already');
    expect(await tableCounts(t.location)).toEqual(before);
  });

  it('FAIL without a conflict imports everything, reporting what is no conflict as REPORT does', async () => {
    const doc = conflictingDocument();
    doc.orgs[1].humanUsers.pop();
    // Not a conflict: a role the project does not have (refused, reported, the rest imported).
    doc.orgs[1].userGrants.push({ userId: '6201', projectId: '6203', roleKeys: ['nonesuch'] });
    doc.orgs[1].userGrants.splice(0, 1);
    const res = await importDoc({ dataOrgs: doc, conflictPolicy: 'FAIL' });
    expect(res.errors).toEqual([expect.objectContaining({ type: 'user_grant', message: expect.stringContaining('COMMAND-mm9F4') })]);
    expect(res.success.orgs.map((o: { orgId: string }) => o.orgId)).toEqual(['6100', '6200']);
    expect(res.summary).toMatchObject({ changed: 0, skipped: 0, unchanged: 0, refused: 1 });
    expect(res.summaryByType.org).toEqual({ created: 2, changed: 0, skipped: 0, unchanged: 0, refused: 0 });
    expect((await t.store.read.users.get('6201'))?.orgId).toBe('6200');
    // The import's audit events were written with it.
    const events = (await t.store.read.events.search({ limit: 1000, offset: 0, asc: false })).events.map((e) => e.type);
    expect(events.slice(0, 3)).toEqual(expect.arrayContaining(['instance.data.imported', 'org.data.imported']));
  });

  it('refuses an unknown conflict policy with 400, writing nothing', async () => {
    const before = await tableCounts(t.location);
    const res = await t.call('POST', '/admin/v1/import', { body: { dataOrgs: document(), conflictPolicy: 'MERGE' } });
    expect(res.status).toBe(400);
    expect(await tableCounts(t.location)).toEqual(before);
  });
});
