/**
 * User ids of every shape a migration brings (issue 49): ZITADEL's 18-digit ids, UUIDs (Keycloak),
 * `auth0|…` strings and 64-character ids each import inline, through Cloud Storage and as a job,
 * on both stores, with grants and memberships naming users of the other organisation both ways
 * (the import's order and its deferred references key the ids: import-order.ts). And what the
 * first pass keeps per user does not grow with the length of the ids: 18-digit ids kept the whole
 * document alive (V8 slices of the text read), so that 70,000 such users ran a 48 MiB reader out
 * where short ids imported at 350,000. The million-user runs live in bench/import-memory.bench.ts.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportJobWorker } from '../../src/background/import-job-worker.js';
import type { RequestContext } from '../../src/domain/context.js';
import { AnswerSpill } from '../../src/domain/transfer/answer-lists.js';
import { type JobDocuments, jobDocuments } from '../../src/domain/transfer/import/job-documents.js';
import { newOutcomeSink, OrgImport } from '../../src/domain/transfer/import/report.js';
import { createSpool } from '../../src/domain/transfer/spool.js';
import { spoolDocument } from '../../src/domain/transfer/spooled-document.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { writeGcsObject } from '../../src/storage/gcs.js';
import { type GcsEmulator, startGcsEmulator } from '../support/gcs-emulator.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { BCRYPT, TOTP } from '../support/transfer-documents.js';

/** An id of each shape for a number (`seed` keeps the ids of different runs apart). */
export const ID_SHAPES = {
  zitadel: (n: number) => String(219387465738291000n + BigInt(n)),
  uuid: (n: number) => `6f1c2e4a-9b7d-4c3e-8a2f-${n.toString(16).padStart(12, '0')}`,
  auth0: (n: number) => `auth0|5f7c8ec7c33c6c${n.toString(16).padStart(10, '0')}`,
  sha256: (n: number) => createHash('sha256').update(String(n)).digest('hex'),
} as const;
type Shape = keyof typeof ID_SHAPES;

/**
 * Two organisations whose ids (organisations, users, projects) have `shape`; the first grants its
 * project to a user of the second and makes one its member, the second the other way round: one
 * of the two must wait for the other's users (a deferred reference).
 */
function shapedDocument(shape: Shape, seed: number, users = 5) {
  const id = (n: number) => ID_SHAPES[shape](seed * 100_000 + n);
  const org = (o: number, other: number) => ({
    orgId: id(o * 30_000),
    org: { name: `Shapes ${shape} ${seed}-${o}` },
    humanUsers: Array.from({ length: users }, (_, u) => ({
      userId: id(o * 30_000 + 10 + u),
      user: {
        userName: `user${u}`,
        profile: { firstName: 'Id', lastName: `Shape ${u}` },
        email: { email: `user${u}@shapes-${seed}-${o}.example.com`, isEmailVerified: true },
        hashedPassword: { value: BCRYPT },
        ...(u === 0 ? { otpCode: TOTP } : {}),
      },
      state: 'USER_STATE_ACTIVE',
    })),
    machineUsers: [{ userId: id(o * 30_000 + 1), user: { userName: 'svc', name: 'Service' } }],
    projects: [{ projectId: id(o * 30_000 + 2), project: { name: 'App' } }],
    projectRoles: [{ projectId: id(o * 30_000 + 2), roleKey: 'reader', displayName: 'Reader' }],
    userGrants: [
      { projectId: id(o * 30_000 + 2), userId: id(o * 30_000 + 10), roleKeys: ['reader'] },
      { projectId: id(o * 30_000 + 2), userId: id(other * 30_000 + 10 + users - 1), roleKeys: ['reader'] },
    ],
    orgMembers: [{ userId: id(other * 30_000 + 1), roles: ['ORG_USER_MANAGER'] }],
  });
  return { orgs: [org(1, 2), org(2, 1)] };
}

type Answer = { errors?: unknown[]; warnings?: unknown[]; success: { orgs: { orgId: string; humanUserIds: string[]; machineUserIds: string[]; userGrants: unknown[]; orgMembers: string[] }[] } };

describeEachStore('imports: user ids of every shape, by every path', (dialect) => {
  let t: TestInstance;
  let gcs: GcsEmulator;
  let documents: JobDocuments;
  let worker: ImportJobWorker;

  beforeAll(async () => {
    gcs = await startGcsEmulator();
    documents = jobDocuments(mkdtempSync(join(tmpdir(), 'identity-shapes-jobs-')), processSecretBox());
    let poke = () => undefined as void;
    t = await createTestInstance(dialect, { gcsEndpoint: gcs.endpoint, importJobs: { documents, onStarted: () => poke() } });
    worker = new ImportJobWorker({ store: t.store, secrets: processSecretBox(), instanceId: t.instanceId, documents, gcs: { endpoint: gcs.endpoint }, pollMs: 50 });
    poke = () => worker.poke();
    worker.start();
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await gcs?.stop();
    rmSync(documents.dir, { recursive: true, force: true });
  });

  /** ImportData's answer for `body`, by the path named. */
  async function importBy(path: 'inline' | 'Cloud Storage' | 'job', doc: ReturnType<typeof shapedDocument>, name: string): Promise<Answer> {
    let body: Record<string, unknown> = { timeout: '2m', dataOrgs: doc };
    if (path === 'Cloud Storage') {
      const location = { bucket: 'migrations', path: `${dialect}/${name}.json`, serviceaccountJson: gcs.serviceAccountBase64 };
      await writeGcsObject(location, [JSON.stringify(doc)], { endpoint: gcs.endpoint });
      body = { timeout: '2m', dataOrgsGcs: location };
    }
    if (path !== 'job') {
      const res = await t.call('POST', '/admin/v1/import', { body });
      const answer = await res.json();
      expect(res.status, JSON.stringify(answer)).toBe(200);
      return answer;
    }
    const started = await (await t.call('POST', '/admin/v1/import/jobs', { body })).json();
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const { job } = await (await t.call('GET', `/admin/v1/import/jobs/${started.id}`)).json();
      if (job.phase === 'done') return job.result;
      expect(job.phase, JSON.stringify(job.error)).not.toBe('failed');
    }
    throw new Error(`job ${started.id} did not end`);
  }

  it('an answer listing more ids than the lists keep in memory (20,000 of 64 characters) lists every one in order, inline and from a job', async () => {
    const users = 20_000;
    for (const [p, path] of (['inline', 'job'] as const).entries()) {
      const doc = shapedDocument('sha256', (dialect === 'sqlite' ? 30 : 40) + p, users);
      doc.orgs = [doc.orgs[0]];
      doc.orgs[0].userGrants = [doc.orgs[0].userGrants[0]];
      doc.orgs[0].orgMembers = [];
      const answer = await importBy(path, doc, `many-${p}`);
      expect(answer.errors ?? [], path).toEqual([]);
      expect(answer.success.orgs[0].humanUserIds, path).toEqual(doc.orgs[0].humanUsers.map((h) => h.userId));
    }
  }, 300_000);

  const paths = ['inline', 'Cloud Storage', 'job'] as const;
  for (const shape of Object.keys(ID_SHAPES) as Shape[]) {
    it(`${shape} ids (${ID_SHAPES[shape](1)}): every user, grant and membership arrives, by every path`, async () => {
      for (const [p, path] of paths.entries()) {
        const doc = shapedDocument(shape, (dialect === 'sqlite' ? 10 : 20) + p);
        const answer = await importBy(path, doc, `${shape}-${p}`);
        expect(answer.errors ?? [], path).toEqual([]);
        expect(answer.warnings ?? [], path).toEqual([]);
        const byId = new Map(answer.success.orgs.map((o) => [o.orgId, o]));
        for (const org of doc.orgs) {
          const imported = byId.get(org.orgId)!;
          expect(imported.humanUserIds, path).toEqual(org.humanUsers.map((h) => h.userId));
          expect(imported.machineUserIds, path).toEqual(org.machineUsers.map((m) => m.userId));
          // Both grants and the membership, one of each naming the other organisation's user.
          expect(imported.userGrants, path).toHaveLength(2);
          expect(imported.orgMembers, path).toEqual([org.orgMembers[0].userId]);
          for (const h of org.humanUsers) expect(await t.store.read.users.get(h.userId), `${path} ${h.userId}`).toMatchObject({ orgId: org.orgId, passwordHash: BCRYPT });
        }
      }
    }, 120_000);
  }
});

describe('the first pass of an import', () => {
  let gc: () => void;
  beforeAll(() => {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  });

  /** Bytes of the heap in use after a full collection, with `keep` alive. */
  function heapUsedWith(keep: unknown): number {
    gc();
    gc();
    void keep;
    return process.memoryUsage().heapUsed;
  }

  it('keeps a few bytes per user, not the document: 20,000 users with 64-character ids read as a stream leave < 1 MiB on the heap', async () => {
    const users = 20_000;
    const dir = mkdtempSync(join(tmpdir(), 'identity-pass1-'));
    const spool = await createSpool(dir);
    try {
      const file = join(dir, 'document.json');
      const parts = ['{"orgs":[{"orgId":"', ID_SHAPES.zitadel(1), '","org":{"name":"Pass one"},"humanUsers":['];
      for (let i = 0; i < users; i++) {
        parts.push(
          `${i ? ',' : ''}{"userId":"${ID_SHAPES.sha256(i)}","user":{"userName":"user${i}","profile":{"firstName":"F","lastName":"L"},"email":{"email":"u${i}@example.com"},"hashedPassword":{"value":"${BCRYPT}"}}}`,
        );
      }
      parts.push(']}]}');
      writeFileSync(file, parts.join(''));
      const before = heapUsedWith(undefined);
      const read = await spoolDocument({ file: { path: file }, shape: 'document', spool });
      const after = heapUsedWith(read);
      expect(read.problems.count).toBe(0);
      expect(read.orgs[0].users).toBe(users);
      // The document is ~5 MiB; ids alone are 1.3 MiB of text (as objects with strings, ~2.5 MiB).
      expect(after - before).toBeLessThan(1024 * 1024);
    } finally {
      await spool.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("and the second keeps no id per user either: an organisation's 100,000 users with 64-character ids leave < 2 MiB of its import's report on the heap", async () => {
    const users = 100_000;
    const spool = await createSpool();
    try {
      // Lists written out every 4 KiB: what stays is what the report keeps beside them.
      const spill = new AnswerSpill(spool.sealed('answer.records'), 4096);
      spool.onRemove(() => spill.close());
      const importer = { instanceId: 'i', caller: { userId: 'admin', orgId: 'o' }, orgId: 'o' } as RequestContext;
      const run = new OrgImport(ID_SHAPES.zitadel(1), new Date(), spill.list(), { orgId: ID_SHAPES.zitadel(1) }, () => {}, new Map(), 'REPORT', newOutcomeSink(), importer);
      // As importOrgEntry does: the users its metadata, links and keys name (here one).
      run.watchUsers([ID_SHAPES.sha256(7)]);
      const before = heapUsedWith(undefined);
      for (let i = 0; i < users; i++) run.imported('humanUserIds', ID_SHAPES.sha256(i));
      const after = heapUsedWith(run);
      // A set of every created user's id held ~10 MiB here (tens of MiB at a million users).
      expect(after - before).toBeLessThan(2 * 1024 * 1024);
      expect(run.ok.humanUserIds?.length).toBe(users);
    } finally {
      await spool.remove();
    }
  });
});
