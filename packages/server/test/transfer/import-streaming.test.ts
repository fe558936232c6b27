/**
 * Imports read as a stream from a private spool (issue 30, ARCHITECTURE.md "Imports in bounded
 * memory"): a document of several user batches imports whole, inline and from Cloud Storage; an
 * error anywhere (the last organisation's last user) refuses it whole with nothing written; the
 * spool's files are 0600 while they exist and gone afterwards; a body over the limit is 413.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_IMPORT_EVENT } from '../../src/domain/transfer/import/import-data.js';
import { USER_BATCH } from '../../src/domain/transfer/spooled-document.js';
import { writeGcsObject } from '../../src/storage/gcs.js';
import { type GcsEmulator, startGcsEmulator } from '../support/gcs-emulator.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';
import { BCRYPT } from '../support/transfer-documents.js';

/** More users than two batches, a policy the users are checked against, and references naming the last user. */
function bigOrg(prefix: string, users: number) {
  const last = `${prefix}-u${users - 1}`;
  return {
    // Users before the organisation's own fields: the reader must not depend on the order of keys.
    humanUsers: Array.from({ length: users }, (_, i) => ({
      userId: `${prefix}-u${i}`,
      user: {
        userName: `user${i}`,
        profile: { firstName: `First${i}`, lastName: 'Last', displayName: `First${i} Last`, preferredLanguage: 'en' },
        email: { email: `user${i}@example.com`, isEmailVerified: true },
        hashedPassword: { value: BCRYPT },
      },
      state: 'USER_STATE_ACTIVE',
    })),
    orgId: `${prefix}-org`,
    org: { name: `Streamed ${prefix}` },
    domainPolicy: { userLoginMustBeDomain: true, validateOrgDomains: false, smtpSenderAddressMatchesInstanceDomain: false },
    machine_users: [{ userId: `${prefix}-svc`, user: { userName: 'svc', name: 'Service' } }],
    projects: [{ projectId: `${prefix}-p`, project: { name: 'App' } }],
    projectRoles: [{ projectId: `${prefix}-p`, roleKey: 'reader', displayName: 'Reader' }],
    userGrants: [{ projectId: `${prefix}-p`, userId: last, roleKeys: ['reader'] }],
    orgMembers: [{ userId: `${prefix}-u0`, roles: ['ORG_OWNER'] }],
  };
}

const USERS = 2 * USER_BATCH + 17;

describeEachStore('imports read as a stream from a private spool', (dialect) => {
  let gcs: GcsEmulator;
  let t: TestInstance;
  let spoolParent: string;
  const previousTmp = process.env.TMPDIR;
  beforeAll(async () => {
    gcs = await startGcsEmulator();
    t = await createTestInstance(dialect, { gcsEndpoint: gcs.endpoint });
  });
  afterAll(async () => {
    await t?.close();
    await gcs?.stop();
  });
  // The spool goes under os.tmpdir(): a folder of this test's own, to look into.
  beforeEach(() => {
    spoolParent = mkdtempSync(join(tmpdir(), 'spool-test-'));
    process.env.TMPDIR = spoolParent;
  });
  afterEach(() => {
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    rmSync(spoolParent, { recursive: true, force: true });
  });

  const expectImported = async (prefix: string, answer: any) => {
    expect(answer.errors ?? []).toEqual([]);
    const [org] = answer.success.orgs;
    expect(org.orgId).toBe(`${prefix}-org`);
    expect(org.humanUserIds).toHaveLength(USERS);
    expect(org.humanUserIds.at(-1)).toBe(`${prefix}-u${USERS - 1}`);
    expect(org.machineUserIds).toEqual([`${prefix}-svc`]);
    expect(org.userGrants).toEqual([{ projectId: `${prefix}-p`, userId: `${prefix}-u${USERS - 1}` }]);
    expect(org.orgMembers).toEqual([`${prefix}-u0`]);
    expect(await t.store.read.users.get(`${prefix}-u${USERS - 1}`)).toMatchObject({ orgId: `${prefix}-org`, userName: `user${USERS - 1}`, passwordHash: BCRYPT });
    // One organisation, one transaction, one audit record for all its batches.
    const { events } = await t.store.read.events.search({ aggregateId: `${prefix}-org`, limit: 100, offset: 0, asc: true });
    const imported = events.filter((e) => e.type === ORG_IMPORT_EVENT);
    expect(imported).toHaveLength(1);
    expect(imported[0].payload).toMatchObject({ humanUsers: USERS, machineUsers: 1, userGrants: 1, errors: 0 });
  };

  it(`a document of ${USERS} users (three batches) imports whole, inline; the spool's files are 0600 while they exist and gone afterwards`, async () => {
    const seen = new Map<string, number>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        for (const dir of readdirSync(spoolParent)) {
          try {
            seen.set(dir, statSync(join(spoolParent, dir)).mode & 0o777);
            for (const f of readdirSync(join(spoolParent, dir))) seen.set(`${dir}/${f}`, statSync(join(spoolParent, dir, f)).mode & 0o777);
          } catch {
            // removed between readdir and stat: the end of the import
          }
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '5m', dataOrgs: { orgs: [bigOrg('in', USERS)] } } });
    watching = false;
    await watch;
    expect(res.status).toBe(200);
    await expectImported('in', await res.json());

    const files = [...seen].filter(([name]) => name.includes('/'));
    expect(files.map(([name]) => name.split('/')[1])).toContain('request.json');
    for (const [name, mode] of seen) expect([name, mode.toString(8)]).toEqual([name, name.includes('/') ? '600' : '700']);
    expect(readdirSync(spoolParent)).toEqual([]);
  });

  it('the same document from Cloud Storage imports the same way; the spool is gone afterwards', async () => {
    const location = { bucket: 'migrations', path: `${dialect}/streamed.json`, serviceaccountJson: gcs.serviceAccountBase64 };
    await writeGcsObject(location, [JSON.stringify({ orgs: [bigOrg('gcs', USERS)] })], { endpoint: gcs.endpoint });
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '5m', data_orgs_gcs: location } });
    expect(res.status).toBe(200);
    await expectImported('gcs', await res.json());
    expect(readdirSync(spoolParent)).toEqual([]);
  });

  it("an error in the last organisation's last user refuses the document whole: the first organisation is not written", async () => {
    const second = bigOrg('bad2', USERS);
    second.humanUsers[USERS - 1].user.email.email = 'not an address';
    for (const [via, body] of [
      ['inline', { dataOrgs: { orgs: [bigOrg('bad1', USERS), second] } }],
      ['gcs', { dataOrgsGcs: { bucket: 'migrations', path: `${dialect}/bad.json`, serviceaccountJson: gcs.serviceAccountBase64 } }],
    ] as const) {
      if (via === 'gcs') await writeGcsObject(body.dataOrgsGcs, [JSON.stringify({ orgs: [bigOrg('bad1', USERS), second] })], { endpoint: gcs.endpoint });
      const res = await t.call('POST', '/admin/v1/import', { body });
      expect(res.status, via).toBe(400);
      const error = await res.json();
      expect(error).toMatchObject({ code: 3, details: [expect.objectContaining({ '@type': expect.any(String), id: expect.any(String) })] });
      expect(error.message).toContain(`invalid orgs[1].humanUsers[${USERS - 1}].user.email.email`);
      expect(await t.store.read.orgs.get('bad1-org')).toBeUndefined();
      expect(await t.store.read.users.get('bad1-u0')).toBeUndefined();
      expect(readdirSync(spoolParent)).toEqual([]);
    }
  });

  it('a document naming a list twice (both spellings) is refused, naming it', async () => {
    const org = { ...bigOrg('twice', 3), human_users: [] };
    const res = await t.call('POST', '/admin/v1/import', { body: { dataOrgs: { orgs: [org] } } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('invalid orgs[0].humanUsers: given more than once');
    expect(await t.store.read.orgs.get('twice-org')).toBeUndefined();
  });

  it('a body that is not JSON → 400 in the error body; the spool is gone', async () => {
    const res = await t.call('POST', '/admin/v1/import', { body: '{"dataOrgs": {"orgs": [ {"orgId": "x"' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 3, message: expect.stringContaining('not a JSON document') });
    expect(readdirSync(spoolParent)).toEqual([]);
  });

  it("a body broken inside an organisation's users, or nesting a value 5,000 deep → 400 at once; its open files closed, the spool gone, nothing written", async () => {
    const users = JSON.stringify(bigOrg('cut', 300).humanUsers).slice(1, -1);
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    for (const [body, reason] of [
      [`{"dataOrgs":{"orgs":[{"orgId":"cut-org","org":{"name":"Cut"},"humanUsers":[${users},{"userId": }]}]}}`, /not a JSON document/],
      [`{"dataOrgs":{"orgs":[{"orgId":"cut-org","org":{"name":"Cut"},"humanUsers":[${users},${deep}]}]}}`, /nests deeper than 64 levels/],
      [deep, /nests deeper than 64 levels/],
    ] as const) {
      const res = await t.call('POST', '/admin/v1/import', { body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 3, message: expect.stringMatching(reason) });
      expect(readdirSync(spoolParent)).toEqual([]);
      expect(await t.store.read.orgs.get('cut-org')).toBeUndefined();
    }
  });
});

// No store is reached: the document is refused while it is read, before anything is written.
describe('an organisation whose parts other than its users are more than the reader may hold', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance('sqlite');
  });
  afterAll(() => t?.close());

  it('→ 413 saying what to do, not 429 (which tells the caller to retry what can never succeed); nothing written', async () => {
    const org = bigOrg('heavy', 3);
    const grant = { projectId: 'heavy-p', userId: 'heavy-u0', roleKeys: ['reader'] };
    const grants = JSON.stringify(grant);
    // 300,000 user grants (~20 MiB): held whole while the organisation is imported.
    const body = JSON.stringify({ timeout: '5m', dataOrgs: { orgs: [{ ...org, userGrants: [] }] } }).replace('"userGrants":[]', `"userGrants":[${Array(300_000).fill(grants).join(',')}]`);
    const res = await t.call('POST', '/admin/v1/import', { body });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer).slice(0, 300)).toBe(413);
    expect(answer).toMatchObject({ code: 3, details: [expect.objectContaining({ id: 'IMPORT-r34d3r' })] });
    expect(answer.message).toContain('split the organisation');
    expect(await t.store.read.orgs.get('heavy-org')).toBeUndefined();
  }, 180_000);
});

describeEachStore('the import body limit over the network', (dialect) => {
  let s: OidcTestServer;
  const LIMIT = 256 * 1024;
  beforeAll(async () => {
    s = await startOidcServer(dialect, { maxImportBodyBytes: LIMIT });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a body over the limit → 413 in the error body, declared or streamed without a length; nothing written', async () => {
    const body = JSON.stringify({ dataOrgs: { orgs: [bigOrg('limit', 1200)] } });
    expect(body.length).toBeGreaterThan(LIMIT);
    const headers = { authorization: `Bearer ${s.t.adminToken}`, 'content-type': 'application/json' };
    const declared = await fetch(`${s.issuer}/admin/v1/import`, { method: 'POST', headers, body });
    const streamed = await fetch(`${s.issuer}/admin/v1/import`, {
      method: 'POST',
      headers,
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < body.length; i += 16 * 1024) controller.enqueue(new TextEncoder().encode(body.slice(i, i + 16 * 1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    for (const res of [declared, streamed]) {
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ code: 8, message: expect.stringContaining(String(LIMIT)), details: [expect.objectContaining({ id: 'API-B0dy5' })] });
    }
    expect(await s.t.store.read.orgs.get('limit-org')).toBeUndefined();
  });
});

describeEachStore('a large body streamed without a declared length', (dialect) => {
  let s: OidcTestServer;
  let dir: string;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    dir = mkdtempSync(join(tmpdir(), 'identity-big-body-'));
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Hono's body limit read such a body whole into memory before the route ran (the CLI streams
  // its documents so), and node-server's web body queued what the disk had not yet taken.
  it('goes to disk as it arrives: 48 MiB to StartImportJob and to ImportData are never held in memory', async () => {
    const file = join(dir, 'body.json');
    // Padding the import skips as it reads (a field of the document it does not know).
    const kib = `"${'x'.repeat(1022)}"`;
    writeFileSync(
      file,
      `{"dataOrgs":{"orgs":[],"padding":[${Array(48 * 1024)
        .fill(kib)
        .join(',')}]}}`,
    );
    // What is held, not garbage not yet collected: buffers alive after a full collection, every
    // 1.5 s of an upload held to 12 MiB/s (a collection takes a while in this process).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // (Twice, a turn apart: V8 frees the memory of dead buffers after the collection, concurrently.)
    const held = async () => {
      gc();
      await new Promise((r) => setTimeout(r, 20));
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    for (const path of ['/admin/v1/import/jobs', '/admin/v1/import']) {
      const before = await held();
      let peak = before;
      let uploading = true;
      const sampler = (async () => {
        while (uploading) {
          await new Promise((r) => setTimeout(r, 1500));
          if (uploading) peak = Math.max(peak, await held());
        }
      })();
      // curl in a process of its own: what it holds is not this process's.
      const curl = spawn('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--limit-rate',
        '12M',
        '-X',
        'POST',
        '-H',
        `authorization: Bearer ${s.t.adminToken}`,
        '-H',
        'content-type: application/json',
        '-H',
        'transfer-encoding: chunked',
        '--data-binary',
        `@${file}`,
        `${s.issuer}${path}`,
      ]);
      let status = '';
      curl.stdout.on('data', (d) => (status += String(d)));
      await once(curl, 'exit');
      uploading = false;
      await sampler;
      // The job is queued (no worker runs here); the import has nothing to import.
      expect(status, path).toBe('200');
      expect((peak - before) / 1048576, path).toBeLessThan(16);
    }
  }, 120_000);
});
