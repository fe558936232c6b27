/**
 * Import jobs (issue 30): StartImportJob answers at once; GetImportJob shows the phase and the
 * progress while the job runs, and ImportData's answer at the end; ListImportJobs; CancelImportJob
 * leaves only whole organisations; a job survives its server process being killed (SIGKILL, the
 * built server) — it completes after the restart when nothing had committed, else it ends failed
 * listing exactly the organisations that are there, each whole; with two server processes on one
 * database each job runs once. Every suite on SQLite and PostgreSQL.
 *
 * Documents are slowed by plain passwords: each is hashed with argon2 before its organisation's
 * transaction, so an organisation of a dozen users takes a noticeable moment.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ImportJobWorker } from '../../src/background/import-job-worker.js';
import { type JobDocuments, jobDocuments } from '../../src/domain/transfer/import/job-documents.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, DIALECTS, describeEachStore, freshPostgresDatabase, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';
import { buildServer, type ServerProcess, startServerProcess, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';
import { BCRYPT } from '../support/transfer-documents.js';

const PASSWORD = 'Import-Job-1!';

/** One organisation of `users` humans with a bcrypt hash each (nothing to hash on import: the users themselves take the time). */
function largeOrganisation(prefix: string, users: number) {
  return {
    orgs: [
      {
        orgId: `${prefix}0000`,
        org: { name: `Large ${prefix}` },
        humanUsers: Array.from({ length: users }, (_, u) => ({
          userId: `${prefix}${String(u + 1).padStart(6, '0')}`,
          user: {
            userName: `user${u}`,
            profile: { firstName: 'Large', lastName: `User ${u}` },
            email: { email: `user${u}@large-${prefix}.example.com`, isEmailVerified: true },
            hashedPassword: { value: BCRYPT },
          },
        })),
      },
    ],
  };
}

/** `orgs` organisations of `users` humans each, with plain passwords (slow on purpose); ids start with `prefix` (digits). */
function slowDocument(prefix: string, orgs: number, users: number) {
  return {
    orgs: Array.from({ length: orgs }, (_, o) => ({
      orgId: `${prefix}${o}000`,
      org: { name: `Jobs ${prefix}-${o}` },
      humanUsers: Array.from({ length: users }, (_, u) => ({
        userId: `${prefix}${o}${String(u + 1).padStart(3, '0')}`,
        user: {
          userName: `user${u}`,
          profile: { firstName: 'Job', lastName: `User ${u}` },
          email: { email: `user${u}@jobs-${prefix}-${o}.example.com`, isEmailVerified: true },
          password: PASSWORD,
        },
      })),
    })),
  };
}

type Job = {
  id: string;
  phase: string;
  cancelRequested: boolean;
  committedOrgIds: string[];
  attempts: number;
  progress: { orgsDone: number; orgsTotal?: number; usersDone: number; usersTotal?: number };
  result?: { success: { orgs?: { orgId: string; humanUserIds?: string[] }[] }; errors?: unknown[] };
  error?: { code: number; id: string; message: string };
};
type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

const ENDED = ['done', 'failed', 'cancelled'];

/** Polls the job until `until` holds (default: it has ended), every 25 ms; returns every state seen. */
async function watch(call: Call, id: string, until: (job: Job) => boolean = (job) => ENDED.includes(job.phase), timeoutMs = 90_000): Promise<Job[]> {
  const seen: Job[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', `/admin/v1/import/jobs/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(res.body.job);
    if (until(res.body.job)) return seen;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${res.body.job.phase} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The humans of each organisation of the target (its export): organisation id → user ids. */
async function usersByOrg(call: Call): Promise<Map<string, string[]>> {
  const res = await call('POST', '/admin/v1/export', { responseOutput: true });
  expect(res.status).toBe(200);
  return new Map((res.body.orgs as { orgId: string; humanUsers?: { userId: string }[] }[]).map((o) => [o.orgId, (o.humanUsers ?? []).map((h) => h.userId)]));
}

/** Each organisation of `doc` is in the target whole (all its users) if it was committed, else not at all. */
async function expectWholeOrganisations(call: Call, doc: ReturnType<typeof slowDocument>, committed: string[]) {
  const present = await usersByOrg(call);
  for (const org of doc.orgs) {
    if (committed.includes(org.orgId)) expect(present.get(org.orgId)?.sort(), org.orgId).toEqual(org.humanUsers.map((h) => h.userId).sort());
    else expect(present.has(org.orgId), `${org.orgId} was not committed`).toBe(false);
  }
  // Nothing of an uncommitted organisation either (its users would be under another organisation only if they were imported).
  expect([...present.keys()].filter((id) => doc.orgs.some((o) => o.orgId === id)).sort()).toEqual([...committed].sort());
}

describeEachStore('import jobs', (dialect) => {
  let t: TestInstance;
  let documents: JobDocuments;
  let worker: ImportJobWorker;
  let call: Call;

  beforeAll(async () => {
    documents = jobDocuments(tempDir('identity-jobs-'), processSecretBox());
    let poke = () => undefined as void;
    t = await createTestInstance(dialect, { importJobs: { documents, onStarted: () => poke() } });
    worker = new ImportJobWorker({ store: t.store, secrets: processSecretBox(), instanceId: t.instanceId, documents, pollMs: 50, leaseMs: 3_000 });
    poke = () => worker.poke();
    worker.start();
    call = async (method, path, body) => {
      const res = await t.call(method, path, { body });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('answers at once with the id; phase and progress are seen while it runs; it ends with ImportData’s answer', async () => {
    const doc = slowDocument('71', 4, 8);
    const started = performance.now();
    const res = await call('POST', '/admin/v1/import/jobs', { timeout: '5m', dataOrgs: doc });
    const answeredMs = performance.now() - started;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(answeredMs).toBeLessThan(1000);
    expect(res.body.id).toMatch(/^\d+$/);
    expect(res.body.details.sequence).toBe('1');

    const seen = await watch(call, res.body.id);
    const last = seen.at(-1)!;
    expect(last.phase, JSON.stringify(last.error)).toBe('done');
    // Seen mid-way: importing, some users done and some not. Users done advance as each
    // organisation's users are written; organisations done only when one commits, so how many
    // organisations a poll sees done depends on timing (small ones may commit together): it is
    // only held to agree with the users done.
    const midway = seen.filter((j) => j.phase === 'importing' && j.progress.usersDone > 0 && j.progress.usersDone < 32);
    expect(midway.length, JSON.stringify(seen.map((j) => [j.phase, j.progress]))).toBeGreaterThan(0);
    expect(midway[0]!.progress).toMatchObject({ orgsTotal: 4, usersTotal: 32 });
    for (const j of midway) expect(j.progress.usersDone).toBeGreaterThanOrEqual(j.progress.orgsDone * 8);
    // Phases only go forward.
    const order = ['queued', 'reading', 'validating', 'importing', 'done'];
    const phases = seen.map((j) => order.indexOf(j.phase));
    expect(phases).toEqual([...phases].sort((a, b) => a - b));

    expect(last.progress).toEqual({ orgsDone: 4, orgsTotal: 4, usersDone: 32, usersTotal: 32 });
    expect(last.committedOrgIds).toEqual(doc.orgs.map((o) => o.orgId));
    expect(last.result?.errors).toBeUndefined();
    expect(last.result?.success.orgs?.map((o) => [o.orgId, o.humanUserIds?.length])).toEqual(doc.orgs.map((o) => [o.orgId, 8]));
    // The same answer ImportData gives for the same document (here: everything exists now).
    const again = await call('POST', '/admin/v1/import/jobs', { dataOrgs: doc });
    const sync = await call('POST', '/admin/v1/import', { dataOrgs: doc });
    const rerun = (await watch(call, again.body.id)).at(-1)!;
    expect(rerun.phase).toBe('done');
    expect(rerun.result).toEqual(sync.body);
    // Its document is gone once it has ended.
    expect(readdirSync(documents.dir).filter((f) => f !== 'node-id')).toEqual([]);
  }, 120_000);

  it("users done advance during an organisation's import, before it commits", async () => {
    const users = 6_000;
    const res = await call('POST', '/admin/v1/import/jobs', { timeout: '5m', dataOrgs: largeOrganisation('77', users) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const seen = await watch(call, res.body.id);
    expect(seen.at(-1)!.phase, JSON.stringify(seen.at(-1)!.error)).toBe('done');
    // Before issue 49, users done stayed 0 until the organisation committed, then jumped to 6,000.
    const midway = seen.filter((j) => j.phase === 'importing' && j.progress.orgsDone === 0 && j.progress.usersDone > 0 && j.progress.usersDone < users);
    expect(midway.length, JSON.stringify(seen.map((j) => [j.phase, j.progress.usersDone]))).toBeGreaterThan(0);
    expect(midway[0]!.committedOrgIds).toEqual([]);
    // Never backwards, and exact at the end.
    const done = seen.map((j) => j.progress.usersDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(seen.at(-1)!.progress).toEqual({ orgsDone: 1, orgsTotal: 1, usersDone: users, usersTotal: users });
    expect(readdirSync(documents.dir).filter((f) => f !== 'node-id')).toEqual([]);
  }, 120_000);

  it('conflictPolicy FAIL as a job: a conflict ends it failed with nothing committed; without one every organisation commits', async () => {
    const first = slowDocument('78', 2, 1);
    const clean = await call('POST', '/admin/v1/import/jobs', { dataOrgs: first, conflictPolicy: 'FAIL' });
    const done = (await watch(call, clean.body.id)).at(-1)!;
    expect(done.phase, JSON.stringify(done.error)).toBe('done');
    expect(done.committedOrgIds).toEqual(['780000', '781000']);
    // The same organisations again, beside a new one listed first: the new one is rolled back with the rest.
    const again = { orgs: [...slowDocument('68', 1, 1).orgs, ...first.orgs] };
    const conflicting = await call('POST', '/admin/v1/import/jobs', { dataOrgs: again, conflictPolicy: 'FAIL' });
    const failed = (await watch(call, conflicting.body.id)).at(-1)!;
    expect(failed).toMatchObject({ phase: 'failed', committedOrgIds: [], error: { code: 6, id: 'IMPORT-f41l0' } });
    expect((await usersByOrg(call)).has('680000')).toBe(false);
  }, 60_000);

  it('an invalid document ends the job failed with ImportData’s 400 naming the path; nothing written', async () => {
    const doc = slowDocument('72', 1, 1);
    (doc.orgs[0]!.humanUsers[0]!.user.email as { email: string }).email = 'not-an-address';
    const res = await call('POST', '/admin/v1/import/jobs', { dataOrgs: doc });
    const job = (await watch(call, res.body.id)).at(-1)!;
    expect(job.phase).toBe('failed');
    expect(job.error).toMatchObject({ code: 3 });
    expect(job.error!.message).toContain('orgs[0].humanUsers[0].user.email.email');
    expect((await usersByOrg(call)).has('720000')).toBe(false);
    const malformed = await t.call('POST', '/admin/v1/import/jobs', { body: '{"dataOrgs": {' });
    const broken = (await watch(call, (await malformed.json()).id)).at(-1)!;
    expect(broken).toMatchObject({ phase: 'failed', error: { code: 3 } });
  }, 60_000);

  it("a waiting job's request is encrypted at rest; an altered one, or another job's, fails the job and writes nothing", async () => {
    await worker.stop();
    const secret = 'Plain-Secret-Passw0rd!';
    const doc = slowDocument('79', 1, 1);
    (doc.orgs[0]!.humanUsers[0]!.user as Record<string, unknown>).password = secret;
    const ids: string[] = [];
    try {
      for (let i = 0; i < 3; i++) ids.push((await call('POST', '/admin/v1/import/jobs', { dataOrgs: doc })).body.id);
      const path = (id: string) => join(documents.dir, `${id}.json.sealed`);
      const stored = readFileSync(path(ids[0]!));
      expect(statSync(path(ids[0]!)).mode & 0o777).toBe(0o600);
      // Neither the secret nor the document's names are on disk.
      for (const clear of [secret, 'user0', '7900001', 'dataOrgs']) expect(stored.includes(clear), clear).toBe(false);
      // The second job's file altered in one byte of its ciphertext; the third's replaced by the first's.
      const altered = readFileSync(path(ids[1]!));
      altered[altered.length - 40] ^= 1;
      writeFileSync(path(ids[1]!), altered);
      writeFileSync(path(ids[2]!), stored);
    } finally {
      worker.start();
    }
    const [first, altered, swapped] = await Promise.all(ids.map(async (id) => (await watch(call, id)).at(-1)!));
    expect(first, JSON.stringify(first.error)).toMatchObject({ phase: 'done' });
    for (const job of [altered, swapped]) {
      expect(job).toMatchObject({ phase: 'failed', error: { code: 9, id: 'IMPORT-s3a1d' } });
      expect(job.error!.message).toContain('altered, or belongs to another job');
      expect(job.committedOrgIds).toEqual([]);
    }
  }, 60_000);

  it('lists jobs, oldest first or newest first', async () => {
    const a = await call('POST', '/admin/v1/import/jobs', { dataOrgs: slowDocument('73', 1, 1) });
    const b = await call('POST', '/admin/v1/import/jobs', { dataOrgs: slowDocument('74', 1, 1) });
    await watch(call, b.body.id);
    const asc = await call('POST', '/admin/v1/import/jobs/_search', {});
    expect(asc.status).toBe(200);
    const ids = asc.body.result.map((j: Job) => j.id);
    expect(ids.indexOf(a.body.id)).toBeLessThan(ids.indexOf(b.body.id));
    expect(Number(asc.body.details.totalResult)).toBe(ids.length);
    const desc = await call('POST', '/admin/v1/import/jobs/_search', { query: { asc: false, limit: 1 } });
    expect(desc.body.result.map((j: Job) => j.id)).toEqual([ids.at(-1)]);
    expect(desc.body.result[0]).toMatchObject({ phase: 'done', committedOrgIds: ['740000'] });
  }, 60_000);

  it('a cancelled job stops at its next step: only the organisations committed before are there, each whole', async () => {
    const doc = slowDocument('75', 6, 10);
    const res = await call('POST', '/admin/v1/import/jobs', { dataOrgs: doc });
    await watch(call, res.body.id, (job) => job.committedOrgIds.length >= 1 || ENDED.includes(job.phase));
    const cancel = await call('POST', `/admin/v1/import/jobs/${res.body.id}/_cancel`);
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const job = (await watch(call, res.body.id)).at(-1)!;
    expect(job.phase).toBe('cancelled');
    expect(job.cancelRequested).toBe(true);
    expect(job.error).toMatchObject({ code: 1, id: 'IMPORT-j0bc1' });
    expect(job.committedOrgIds.length).toBeGreaterThanOrEqual(1);
    expect(job.committedOrgIds.length, 'cancelled before the end').toBeLessThan(6);
    await expectWholeOrganisations(call, doc, job.committedOrgIds);
    // Ended: no second cancel; unknown ids.
    expect((await call('POST', `/admin/v1/import/jobs/${res.body.id}/_cancel`)).status).toBe(400);
    expect((await call('POST', '/admin/v1/import/jobs/404404/_cancel')).body).toMatchObject({ code: 5 });
    expect((await call('GET', '/admin/v1/import/jobs/404404')).status).toBe(404);
    const events = await call('POST', '/admin/v1/events/_search', { aggregateId: res.body.id, asc: true });
    expect(events.body.events.map((e: { type: { type: string } }) => e.type.type)).toEqual(['import.job.added', 'import.job.cancel.requested']);
  }, 120_000);

  it('a queued job cancelled ends at once, its document removed; iam.write is needed, before the body is read', async () => {
    await worker.stop();
    try {
      const res = await call('POST', '/admin/v1/import/jobs', { dataOrgs: slowDocument('76', 1, 1) });
      expect(readdirSync(documents.dir)).toContain(`${res.body.id}.json.sealed`);
      expect((await call('POST', `/admin/v1/import/jobs/${res.body.id}/_cancel`)).status).toBe(200);
      expect((await call('GET', `/admin/v1/import/jobs/${res.body.id}`)).body.job).toMatchObject({ phase: 'cancelled', committedOrgIds: [] });
      expect(readdirSync(documents.dir)).not.toContain(`${res.body.id}.json.sealed`);
    } finally {
      worker.start();
    }
    const viewer = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    for (const [method, path] of [
      ['POST', '/admin/v1/import/jobs'],
      ['POST', '/admin/v1/import/jobs/_search'],
      ['GET', '/admin/v1/import/jobs/1'],
    ]) {
      const res = await t.call(method, path, { token: viewer.token, body: path.endsWith('/jobs') ? { dataOrgs: { orgs: [] } } : method === 'POST' ? {} : undefined });
      expect(res.status, path).toBe(403);
    }
    const before = readdirSync(documents.dir).length;
    const anonymous = await t.call('POST', '/admin/v1/import/jobs', { token: null, body: { dataOrgs: { orgs: [] } } });
    expect(anonymous.status).toBe(401);
    expect(readdirSync(documents.dir).length).toBe(before);
  }, 60_000);
});

/**
 * The built server (dist/main.js, `npm start`'s) in processes of their own: killed mid-job and
 * started again on the same DATA_DIR and database; two of them sharing one.
 */
describe.each(DIALECTS)('import jobs across server processes [%s]', (dialect) => {
  const running: ServerProcess[] = [];
  // tsc over the whole server: minutes on a busy 2-core machine, nothing when dist/ is current.
  beforeAll(() => buildServer(), 600_000);
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => (s.child.exitCode === null ? stopServerProcess(s) : undefined)));
  });

  async function environment() {
    const dir = tempDir('identity-jobs-proc-');
    const database = dialect === 'postgres' ? await freshPostgresDatabase() : `file:${join(dir, 'identity.db')}`;
    return { DATA_DIR: dir, DATABASE_URL: database, ADMIN_PAT_FILE: join(dir, 'admin.pat'), IMPORT_JOB_LEASE_MS: '2000' };
  }
  async function start(env: Record<string, string>) {
    const server = await startServerProcess(env, { built: true });
    running.push(server);
    return server;
  }
  const client =
    (server: ServerProcess, token: string): Call =>
    async (method, path, body) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
  async function kill(server: ServerProcess) {
    server.child.kill('SIGKILL');
    await server.exited;
  }

  it('killed after some organisations committed: after the restart the job ends failed, listing exactly the whole organisations there', async () => {
    const env = await environment();
    const first = await start(env);
    const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
    const doc = slowDocument('81', 6, 10);
    const res = await client(first, token)('POST', '/admin/v1/import/jobs', { dataOrgs: doc });
    expect(res.status).toBe(200);
    await watch(client(first, token), res.body.id, (job) => job.committedOrgIds.length >= 1);
    await kill(first);

    const second = await start(env);
    const call = client(second, token);
    const job = (await watch(call, res.body.id)).at(-1)!;
    expect(job.phase, JSON.stringify(job)).toBe('failed');
    expect(job.error).toMatchObject({ code: 10, id: 'IMPORT-j0b1n' });
    expect(job.committedOrgIds.length).toBeGreaterThanOrEqual(1);
    expect(job.committedOrgIds.length).toBeLessThan(6);
    await expectWholeOrganisations(call, doc, job.committedOrgIds);
    expect(existsSync(join(env.DATA_DIR, 'import-jobs', `${res.body.id}.json.sealed`))).toBe(false);
  }, 180_000);

  it('killed before any organisation committed: after the restart the job runs again and completes', async () => {
    const env = await environment();
    const first = await start(env);
    const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
    const doc = slowDocument('82', 2, 10);
    const res = await client(first, token)('POST', '/admin/v1/import/jobs', { dataOrgs: doc });
    expect(res.status).toBe(200);
    // Taken by the worker (or not yet): killed before the first organisation's passwords are hashed.
    await kill(first);
    expect(statMode(join(env.DATA_DIR, 'import-jobs', `${res.body.id}.json.sealed`))).toBe(0o600);

    const second = await start(env);
    const call = client(second, token);
    const job = (await watch(call, res.body.id)).at(-1)!;
    expect(job.phase, JSON.stringify(job)).toBe('done');
    expect(job.committedOrgIds).toEqual(doc.orgs.map((o) => o.orgId));
    expect(job.result?.errors).toBeUndefined();
    await expectWholeOrganisations(call, doc, job.committedOrgIds);
  }, 180_000);

  /** A job of `doc` started at `server`, and the process killed once the job runs and before any organisation committed. */
  async function killWhileRunning(server: ServerProcess, token: string, doc: ReturnType<typeof slowDocument>): Promise<string> {
    const res = await client(server, token)('POST', '/admin/v1/import/jobs', { dataOrgs: doc });
    expect(res.status).toBe(200);
    const [running] = (await watch(client(server, token), res.body.id, (job) => ['validating', 'importing'].includes(job.phase) || ENDED.includes(job.phase))).slice(-1);
    await kill(server);
    expect(running!.committedOrgIds, 'killed before an organisation committed').toEqual([]);
    expect(running!.attempts).toBe(1);
    return res.body.id;
  }

  it("restarted on the same host after a kill, a process takes the job up at once, without waiting out the dead process's lease", async () => {
    // A lease far longer than the test waits: before issue 49 the job showed the dead run's phase until it ran out.
    const env = { ...(await environment()), IMPORT_JOB_LEASE_MS: '120000' };
    const first = await start(env);
    const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
    const doc = slowDocument('87', 3, 12);
    const id = await killWhileRunning(first, token, doc);

    const second = await start(env);
    const call = client(second, token);
    const seen = await watch(call, id, (job) => ENDED.includes(job.phase), 40_000);
    const job = seen.at(-1)!;
    expect(job.phase, JSON.stringify(job)).toBe('done');
    expect(job.attempts).toBe(2);
    await expectWholeOrganisations(call, doc, job.committedOrgIds);
    expect(second.output()).toMatch(/"msg":"import job held by a process that is gone: taken up without waiting for its lease"/);
  }, 180_000);

  it('IMPORT_JOB_MAX_ATTEMPTS: with 1, a job whose process was killed during its first run fails when taken up, naming the setting', async () => {
    const env = { ...(await environment()), IMPORT_JOB_MAX_ATTEMPTS: '1' };
    const first = await start(env);
    const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
    const doc = slowDocument('88', 3, 12);
    const id = await killWhileRunning(first, token, doc);

    const second = await start(env);
    const call = client(second, token);
    const job = (await watch(call, id)).at(-1)!;
    expect(job.phase, JSON.stringify(job)).toBe('failed');
    expect(job.error).toMatchObject({ code: 10, id: 'IMPORT-j0b1n' });
    expect(job.error!.message).toContain('IMPORT_JOB_MAX_ATTEMPTS');
    expect(job).toMatchObject({ attempts: 1, committedOrgIds: [] });
    await expectWholeOrganisations(call, doc, []);
  }, 180_000);

  it('two processes on one database: each job runs once', async () => {
    const env = await environment();
    const servers = [await start(env), await start({ ...env, ADMIN_PAT_FILE: join(env.DATA_DIR, 'admin-2.pat') })];
    const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
    const calls = servers.map((s) => client(s, token));
    const docs = ['83', '84', '85', '86'].map((prefix) => slowDocument(prefix, 2, 3));
    const ids: string[] = [];
    for (const [n, doc] of docs.entries()) ids.push((await calls[n % 2]!('POST', '/admin/v1/import/jobs', { dataOrgs: doc })).body.id);
    for (const [n, id] of ids.entries()) {
      const job = (await watch(calls[(n + 1) % 2]!, id)).at(-1)!;
      expect(job.phase, JSON.stringify(job)).toBe('done');
      expect(job.attempts).toBe(1);
      expect(job.result?.errors, 'a second run would find everything existing').toBeUndefined();
    }
    // Each job started once, in one process or the other.
    const logs = servers.map((s) => s.output()).join('\n');
    for (const id of ids) expect(logs.match(new RegExp(`"msg":"import job started".*"jobId":"${id}"`, 'g'))?.length, id).toBe(1);
    // And each ran importData once: one instance.data.imported per job.
    const events = await calls[0]!('POST', '/admin/v1/events/_search', { eventTypes: ['instance.data.imported'], limit: 100 });
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    expect(events.body.events.filter((e: { type: { type: string } }) => e.type.type === 'instance.data.imported')).toHaveLength(ids.length);
  }, 180_000);
});

function statMode(path: string): number {
  return statSync(path).mode & 0o777;
}
