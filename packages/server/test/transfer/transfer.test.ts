import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IMPORT_EVENT, ORG_IMPORT_EVENT } from '../../src/domain/transfer/import/import-data.js';
import { type GcsEmulator, startGcsEmulator } from '../support/gcs-emulator.js';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';
import { richDocument } from '../support/transfer-documents.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

describeEachStore('export and import (description §4.4, §4.5)', (dialect) => {
  let a: TestInstance;
  let b: TestInstance;
  beforeAll(async () => {
    a = await createTestInstance(dialect);
    b = await createTestInstance(dialect, { maxImportBodyBytes: 256 * 1024 });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const exportJson = async (t: TestInstance, body: Record<string, unknown>) => {
    const res = await t.call('POST', '/admin/v1/export', { body: { response_output: true, ...body } });
    expect(res.status).toBe(200);
    return res.json();
  };

  it('round trip: export with passwords and OTP, import into a fresh instance, export again gives the same document', async () => {
    const doc = richDocument();
    const imported = await a.call('POST', '/admin/v1/import', { body: { timeout: '1m', data_orgs: doc } });
    expect(imported.status).toBe(200);
    const result = await imported.json();
    expect(result.errors).toBeUndefined();
    expect(result.success.orgs.map((o: { orgId: string }) => o.orgId)).toEqual(['1100', '1200']);
    expect(result.success.orgs[0]).toMatchObject({ humanUserIds: ['1101'], machineUserIds: ['1102'], projectIds: ['1103'], oidcAppIds: ['1104'], jwtIdps: ['1105'], orgMembers: ['1102'] });

    const orgIds = ['1100', '1200'];
    const first = await exportJson(a, { org_ids: orgIds, with_passwords: true, with_otp: true });
    expect(first.orgs).toHaveLength(2);
    const o = first.orgs[0];
    expect(o.humanUsers[0]).toEqual({ ...doc.orgs[0].humanUsers[0], user: { ...doc.orgs[0].humanUsers[0].user } });
    expect(o.machineUsers[0]).toEqual(doc.orgs[0].machineUsers[0]); // id and accessTokenType kept
    expect(o.projectRoles).toEqual(doc.orgs[0].projectRoles);
    expect(o.oidcApps[0].app).toMatchObject({ name: 'web', clockSkew: '2s', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    // Each grant with its id, this service's extension (minted here: the document gave none).
    expect(o.userGrants).toEqual(doc.orgs[0].userGrants.map((g) => ({ ...g, identityServiceGrantId: expect.stringMatching(/^\d+$/) })));
    expect(o.jwtIdps).toEqual(doc.orgs[0].jwtIdps);
    for (const list of ['loginTexts', 'initMessages', 'verifyEmailMessages', 'verifyPhoneMessages', 'verifySmsOtpMessages', 'inviteUserMessages'] as const) {
      expect(o[list], list).toEqual(doc.orgs[0][list]);
    }

    const again = await b.call('POST', '/admin/v1/import', { body: { dataOrgs: first } });
    expect(again.status).toBe(200);
    expect((await again.json()).errors).toBeUndefined();
    const second = await exportJson(b, { orgIds, withPasswords: true, withOtp: true });
    expect(second).toEqual(first);

    // Without the flags, no secrets leave the instance.
    const plain = await exportJson(b, { orgIds });
    expect(plain.orgs[0].humanUsers[0].user.hashedPassword).toBeUndefined();
    expect(plain.orgs[0].humanUsers[0].user.otpCode).toBeUndefined();
  });

  it('writes one audit event per import and one per organisation, in its own transaction, and none per resource; texts go to the imported organisation', async () => {
    const events = await b.store.read.events.search({ limit: 100, offset: 0, asc: true });
    const imports = events.events.filter((e) => e.type === IMPORT_EVENT);
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatchObject({ creator: b.adminUserId, payload: expect.objectContaining({ orgIds: ['1100', '1200'], humanUsers: 2 }) });
    // Each organisation carries its own record, committed with it: a crash after it keeps it.
    const perOrg = events.events.filter((e) => e.type === ORG_IMPORT_EVENT);
    expect(perOrg.map((e) => [e.aggregateType, e.aggregateId])).toEqual([
      ['org', '1100'],
      ['org', '1200'],
    ]);
    expect(perOrg[0]).toMatchObject({ creator: b.adminUserId, resourceOwner: '1100', payload: expect.objectContaining({ humanUsers: 1, machineUsers: 1, projects: 1, oidcApps: 1, userGrants: 1 }) });
    expect(events.events.filter((e) => ['1100', '1101', '1102', '1103'].includes(e.aggregateId) && e.type !== ORG_IMPORT_EVENT)).toEqual([]);
    expect(await b.store.read.messageTexts.get('1100', 'InitCode', 'en')).toBeDefined();
    expect(await b.store.read.messageTexts.get(b.defaultOrgId, 'InitCode', 'en')).toBeUndefined();
  });

  it('importing the same document twice reports everything as existing and changes nothing', async () => {
    const before = await exportJson(b, { orgIds: ['1100', '1200'], withPasswords: true, withOtp: true });
    const res = await b.call('POST', '/admin/v1/import', { body: { timeout: '30s', dataOrgs: richDocument() } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success.orgs).toEqual([{ orgId: '1100' }, { orgId: '1200' }]);
    const types = body.errors.map((e: { type: string }) => e.type);
    for (const type of [
      'org',
      'human_user',
      'machine_user',
      'project',
      'project_role',
      'oidc_app',
      'jwt_idp',
      'user_grant',
      'org_member',
      'project_member',
      'login_texts',
      'init_message',
      'verify_email_message',
    ]) {
      expect(types, type).toContain(type);
    }
    expect(body.errors.find((e: { type: string }) => e.type === 'human_user').message).toBe('ID=COMMAND-ziuna Message=Errors.User.AlreadyExisting');
    expect(await exportJson(b, { orgIds: ['1100', '1200'], withPasswords: true, withOtp: true })).toEqual(before);
  });

  it('imports both fixtures as they are, with their users and hashes', async () => {
    const docs = fixture('zitadel-docs-bulk-import.json');
    const r1 = await b.call('POST', '/admin/v1/import', { body: docs });
    expect(r1.status).toBe(200);
    expect((await r1.json()).success.orgs[0].humanUserIds).toEqual(['104133391271651848', '120080115081209416', '145195347319252359']);
    const road = await b.store.read.users.get('104133391271651848');
    expect(road).toMatchObject({ orgId: '104133391254874632', userName: 'test9@test9', passwordHash: docs.data_orgs.orgs[0].humanUsers[0].user.hashedPassword.value, state: 'USER_STATE_ACTIVE' });
    expect((await b.store.read.users.get('145195347319252359'))?.state).toBe('USER_STATE_INITIAL');

    const auth0 = fixture('zitadel-tools-auth0-import.json');
    const r2 = await b.call('POST', '/admin/v1/import', { body: auth0 });
    expect(r2.status).toBe(200);
    const body = await r2.json();
    expect(body.errors).toBeUndefined();
    expect(body.success.orgs[0].humanUserIds).toEqual(['auth0|6437e9c2b7add15a89b4915b', 'auth0|6437fa205c7266dc77f88a6c']);
    expect((await b.store.read.users.get('auth0|6437fa205c7266dc77f88a6c'))?.passwordHash).toMatch(/^\$2b\$10\$/);
    expect((await b.store.read.orgs.get('123'))?.name).toBe('123');
  });

  it('one invalid user among 1,000 → 400 naming it; nothing written', async () => {
    const humanUsers = Array.from({ length: 1000 }, (_, i) => ({
      userId: `bulk-${i}`,
      user: { userName: `bulk${i}`, profile: { firstName: 'B', lastName: 'U' }, email: { email: `bulk${i}@example.com` } },
    }));
    humanUsers[421].user.email.email = 'broken@';
    const res = await a.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: { orgs: [{ orgId: 'bulk-org', org: { name: 'Bulk' }, humanUsers }] } } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe(3);
    expect(body.message).toContain('orgs[0].humanUsers[421].user.email.email');
    expect(await a.store.read.orgs.get('bulk-org')).toBeUndefined();
    expect(await a.store.read.users.get('bulk-0')).toBeUndefined();
  });

  it('a number where the document wants a string → 400 saying so, as docs/api.md ("Errors") promises', async () => {
    const res = await a.call('POST', '/admin/v1/import', { body: { dataOrgs: { orgs: [{ orgId: 1, org: { name: 'Typed' } }] } } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe('invalid orgs[0].orgId: expected string, got number (IMPORT-V4l1d)');
  });

  it('timeout: invalid → 400, a missing one takes the default, an elapsed one writes nothing → 504', async () => {
    const doc = { orgs: [{ orgId: 't-org', org: { name: 'T' } }] };
    const bad = await a.call('POST', '/admin/v1/import', { body: { timeout: '10', dataOrgs: doc } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('timeout');
    const late = await a.call('POST', '/admin/v1/import', { body: { timeout: '1ns', dataOrgs: doc } });
    expect(late.status).toBe(504);
    expect((await late.json()).code).toBe(4);
    expect(await a.store.read.orgs.get('t-org')).toBeUndefined();
    const none = await a.call('POST', '/admin/v1/import', { body: { dataOrgs: doc } });
    expect(none.status).toBe(200);
    expect(await a.store.read.orgs.get('t-org')).toBeDefined();
    expect((await a.call('POST', '/admin/v1/export', { body: { responseOutput: true, timeout: 'soon' } })).status).toBe(400);
  });

  it('accepts a version-1 document as an object or as a string', async () => {
    const v1 = {
      orgs: [
        {
          orgId: 'v1-org',
          org: { name: 'V1' },
          iamPolicy: { userLoginMustBeDomain: true },
          humanUsers: [{ userId: 'v1-u', user: { userName: 'old', profile: { firstName: 'O', lastName: 'L' }, email: { email: 'o@l.io' } } }],
        },
      ],
    };
    const res = await a.call('POST', '/admin/v1/import', { body: { data_orgsv1: JSON.stringify(v1) } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success.orgs[0].humanUserIds).toEqual(['v1-u']);
    // The iamPolicy became the organisation's own domain policy.
    expect(body.errors ?? []).toEqual([]);
    const policy = await a.call('GET', '/management/v1/policies/domain', { headers: { 'x-service-orgid': 'v1-org' } });
    expect((await policy.json()).policy).toMatchObject({ userLoginMustBeDomain: true, isDefault: false });
  });

  it('request errors: no data, two data sources, no output, excluded ids, body limit, permissions', async () => {
    expect((await b.call('POST', '/admin/v1/import', { body: { timeout: '1m' } })).status).toBe(400);
    expect((await b.call('POST', '/admin/v1/import', { body: { dataOrgs: { orgs: [] }, dataOrgsv1: { orgs: [] } } })).status).toBe(400);
    expect((await b.call('POST', '/admin/v1/export', { body: {} })).status).toBe(400);
    const excluded = await exportJson(b, { excluded_org_ids: ['1100', 'nope'] });
    expect(excluded.orgs.map((o: { orgId: string }) => o.orgId)).not.toContain('1100');
    expect(excluded.orgs.map((o: { orgId: string }) => o.orgId)).toContain('1200');

    const big = { dataOrgs: { orgs: [{ orgId: 'x', org: { name: 'x'.repeat(300 * 1024) } }] } };
    expect((await b.call('POST', '/admin/v1/import', { body: big })).status).toBe(413);

    const viewer = await insertMachineUserWithToken(b, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect((await b.call('POST', '/admin/v1/export', { token: viewer.token, body: { responseOutput: true } })).status).toBe(200);
    expect((await b.call('POST', '/admin/v1/import', { token: viewer.token, body: { dataOrgs: { orgs: [] } } })).status).toBe(403);
    const orgOwner = await insertMachineUserWithToken(b, { orgRoles: ['ORG_OWNER'] });
    expect((await b.call('POST', '/admin/v1/export', { token: orgOwner.token, body: { responseOutput: true } })).status).toBe(403);
  });
});

describeEachStore('export to and import from Cloud Storage', (dialect) => {
  let gcs: GcsEmulator;
  let a: TestInstance;
  let b: TestInstance;
  beforeAll(async () => {
    gcs = await startGcsEmulator();
    a = await createTestInstance(dialect, { gcsEndpoint: gcs.endpoint });
    b = await createTestInstance(dialect, { gcsEndpoint: gcs.endpoint });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await gcs?.stop();
  });

  it('exports to a bucket and imports from it', async () => {
    await a.call('POST', '/admin/v1/import', { body: { dataOrgs: richDocument('7') } });
    const location = { bucket: 'migrations', path: `${dialect}/export.json`, serviceaccount_json: gcs.serviceAccountBase64 };
    const res = await a.call('POST', '/admin/v1/export', { body: { org_ids: ['7100', '7200'], with_passwords: true, with_otp: true, gcs_output: location } });
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out.gcsOutput).toMatchObject({ bucket: 'migrations', path: `${dialect}/export.json` });
    expect(Number(out.gcsOutput.bytes)).toBeGreaterThan(1000);
    expect(out.orgs).toBeUndefined();

    const imported = await b.call('POST', '/admin/v1/import', { body: { timeout: '1m', data_orgs_gcs: location } });
    expect(imported.status).toBe(200);
    expect((await imported.json()).success.orgs.map((o: { orgId: string }) => o.orgId)).toEqual(['7100', '7200']);
    const both = await b.call('POST', '/admin/v1/export', {
      body: { orgIds: ['7100', '7200'], withPasswords: true, withOtp: true, responseOutput: true, gcsOutput: { ...location, path: 'again.json' } },
    });
    const bothBody = await both.json();
    expect(bothBody.gcsOutput.path).toBe('again.json');
    const original = await (await a.call('POST', '/admin/v1/export', { body: { orgIds: ['7100', '7200'], withPasswords: true, withOtp: true, responseOutput: true } })).json();
    expect(bothBody.orgs).toEqual(original.orgs);
  });

  it('a missing object → 404 and bad credentials → 400, quickly', async () => {
    const started = Date.now();
    const missing = await b.call('POST', '/admin/v1/import', { body: { dataOrgsGcs: { bucket: 'migrations', path: 'nope.json', serviceaccountJson: gcs.serviceAccountBase64 } } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toContain('gs://migrations/nope.json');
    const creds = await b.call('POST', '/admin/v1/import', { body: { dataOrgsGcs: { bucket: 'migrations', path: 'x.json', serviceaccountJson: 'not-base64-json' } } });
    expect(creds.status).toBe(400);
    expect((await creds.json()).message).toContain('serviceaccountJson');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
