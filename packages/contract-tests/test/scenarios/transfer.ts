import { type GcsEmulator, startGcsEmulator } from '@identity-service/server/test/support/gcs-emulator.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HARNESS_MAX_IMPORT_BODY_BYTES, type Harness } from '../support/harness.js';

const EXPORT = '/admin/v1/export' as const;
const IMPORT = '/admin/v1/import' as const;

const doc = {
  orgs: [
    {
      orgId: 'ct-transfer-org',
      org: { name: 'Contract transfer' },
      humanUsers: [
        {
          userId: 'ct-transfer-u1',
          user: {
            userName: 'ct',
            profile: { firstName: 'C', lastName: 'T' },
            email: { email: 'ct@example.com', isEmailVerified: true },
            hashedPassword: { value: '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy' },
          },
        },
      ],
      machineUsers: [{ userId: 'ct-transfer-m1', user: { userName: 'ct-svc', name: 'Svc' } }],
    },
  ],
};

export function transferScenarios(h: () => Harness) {
  let gcs: GcsEmulator;
  beforeAll(async () => {
    gcs = await startGcsEmulator();
  });
  afterAll(() => gcs?.stop());

  it('export/import: import, export (stream and Cloud Storage), re-import reports existing', async () => {
    const { admin } = h();
    const imported = await admin.POST(IMPORT, { body: { timeout: '1m', data_orgs: doc } });
    expect(imported.response.status).toBe(200);
    expect(imported.data?.success.orgs?.[0]).toMatchObject({ orgId: 'ct-transfer-org', humanUserIds: ['ct-transfer-u1'], machineUserIds: ['ct-transfer-m1'] });

    const exported = await admin.POST(EXPORT, { body: { org_ids: ['ct-transfer-org'], with_passwords: true, response_output: true } });
    expect(exported.response.status).toBe(200);
    expect(exported.data?.orgs?.[0]).toMatchObject({ orgId: 'ct-transfer-org' });

    const location = { bucket: 'contract', path: 'transfer.json', serviceaccount_json: gcs.serviceAccountBase64 };
    const toGcs = await admin.POST(EXPORT, { body: { orgIds: ['ct-transfer-org'], gcsOutput: location } });
    expect(toGcs.data?.gcsOutput).toMatchObject({ bucket: 'contract', path: 'transfer.json' });
    const again = await admin.POST(IMPORT, { body: { dataOrgsGcs: location } });
    expect(again.response.status).toBe(200);
    expect(again.data?.errors?.map((e) => e.type)).toEqual(expect.arrayContaining(['org', 'human_user', 'machine_user']));
    expect(again.data?.summaryByType?.org).toMatchObject({ refused: 1 });
    // All or nothing: the organisation exists, so nothing is imported.
    const failed = await admin.POST(IMPORT, { body: { dataOrgs: doc, conflictPolicy: 'FAIL' } });
    expect(failed.response.status).toBe(409);
    expect(failed.error?.message).toContain('IMPORT-f41l0');
  });

  it('export/import: 400, 401, 403, 404, 413, 504', async () => {
    const { admin, anonymous } = h();
    expect((await admin.POST(EXPORT, { body: {} })).response.status).toBe(400);
    expect((await admin.POST(IMPORT, { body: { timeout: 'later', dataOrgs: { orgs: [] } } })).response.status).toBe(400);
    const invalid = await admin.POST(IMPORT, {
      body: { dataOrgs: { orgs: [{ humanUsers: [{ userId: 'x', user: { userName: 'x', profile: { firstName: 'a', lastName: 'b' }, email: { email: 'nope' } } }] }] } },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.message).toContain('orgs[0].humanUsers[0].user.email.email');

    expect((await anonymous.POST(EXPORT, { body: { responseOutput: true } })).response.status).toBe(401);
    expect((await anonymous.POST(IMPORT, { body: { dataOrgs: { orgs: [] } } })).response.status).toBe(401);

    const { client: viewer } = await h().userWithRoles({ instance: ['IAM_OWNER_VIEWER'] });
    expect((await viewer.POST(IMPORT, { body: { dataOrgs: { orgs: [] } } })).response.status).toBe(403);
    const { client: orgOwner } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    expect((await orgOwner.POST(EXPORT, { body: { responseOutput: true } })).response.status).toBe(403);

    const unknownOrg = await admin.POST(EXPORT, { body: { orgIds: ['ct-no-such-org'], responseOutput: true } });
    expect(unknownOrg.response.status).toBe(404);
    expect(unknownOrg.error?.message).toContain('ct-no-such-org');

    const missing = await admin.POST(IMPORT, { body: { dataOrgsGcs: { bucket: 'contract', path: 'missing.json', serviceaccountJson: gcs.serviceAccountBase64 } } });
    expect(missing.response.status).toBe(404);

    const late = await admin.POST(IMPORT, { body: { timeout: '1ns', dataOrgs: { orgs: [{ orgId: 'ct-late', org: { name: 'Late' } }] } } });
    expect(late.response.status).toBe(504);

    const token = h().instance.adminToken;
    const bigExport = await h().fetch(EXPORT, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ responseOutput: true, pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(bigExport.status).toBe(413);
    // Beyond the import's own limit (the harness's: HARNESS_MAX_IMPORT_BODY_BYTES).
    const bigImport = await h().fetch(IMPORT, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: `{"dataOrgs":{"orgs":[]},"pad":"${'x'.repeat(HARNESS_MAX_IMPORT_BODY_BYTES + 16)}"}`,
    });
    expect(bigImport.status).toBe(413);
  });

  it('export/import: Cloud Storage unreachable → 503; writing to it past the timeout → 504', async () => {
    const { admin } = h();
    const location = { bucket: 'contract', path: 'unreachable.json', serviceaccountJson: gcs.serviceAccountBase64 };
    // The storage client follows STORAGE_EMULATOR_HOST: point it at a closed port for these two calls.
    const emulator = process.env.STORAGE_EMULATOR_HOST;
    process.env.STORAGE_EMULATOR_HOST = 'http://127.0.0.1:9';
    try {
      expect((await admin.POST(EXPORT, { body: { orgIds: ['ct-transfer-org'], gcsOutput: location } })).response.status).toBe(503);
      expect((await admin.POST(IMPORT, { body: { dataOrgsGcs: location } })).response.status).toBe(503);
    } finally {
      process.env.STORAGE_EMULATOR_HOST = emulator;
    }
    const late = await admin.POST(EXPORT, { body: { timeout: '1ns', orgIds: ['ct-transfer-org'], gcsOutput: location } });
    expect(late.response.status).toBe(504);
  });

  it('import: beyond the imports served at once (2 by default) → 429 before the body is read', async () => {
    const token = h().instance.adminToken;
    // Bodies that have started but not finished hold their import slots.
    const open = [0, 1].map(() => {
      let finish!: () => void;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"dataOrgs":{"orgs":['));
          finish = () => {
            controller.enqueue(new TextEncoder().encode(']}}'));
            controller.close();
          };
        },
      });
      const answer = h().fetch(IMPORT, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
      return { answer, finish: () => finish() };
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await h().fetch(IMPORT, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataOrgs: { orgs: [] } }) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    for (const upload of open) upload.finish();
    for (const upload of open) expect((await upload.answer).status).toBe(200);
  });
}
