/**
 * Imports at scale (issues 14, 30, 49): the server as its own process (`dist/main.js`, as `npm
 * start` runs it) on a fresh store, one import per case, by any path a migration takes:
 *   inline       POST /admin/v1/import with the document in the body (streamed from a file)
 *   gcs          POST /admin/v1/import naming a Cloud Storage object (`dataOrgsGcs`)
 *   job          POST /admin/v1/import/jobs with the document in the body, then GetImportJob until done
 *   cli-import   `identity-transfer import FILE` (a job where the target has them)
 *   cli-migrate  `identity-transfer migrate` from a second server holding the users (imported there first)
 * Reported per case: the import's duration and users per second, the server's RSS before it and its
 * peak (VmHWM of a process started fresh for the case) and their difference, the latency of small
 * authenticated GETs sent every 10 ms meanwhile (p50, p99, max); for the CLI its own peak RSS and its
 * start-up footprint (the peak of `identity-transfer --help`), and for migrate the source server's
 * RSS before and peak while it answers the export (restarted on its store after the users were
 * imported there, so its peak is the export's, not that import's).
 * Users carry bcrypt hashes (a migration carries them; nothing is hashed). Targets (issue 49): peak −
 * before ≤ 256 MiB on every path, p99 ≤ 100 ms, ≥ 2,000 users/s.
 *
 *   npm run bench:import-memory          (from the repo root)
 *
 * BENCH_CASES: comma-separated `users:path[:ids[:orgs[:store]]]`, e.g. `1000000:gcs:zitadel:1:postgres`;
 * ids short (`u123`), zitadel (18 digits), uuid, auth0 (`auth0|…`), hex64 (64 characters), default
 * zitadel; orgs: how many organisations the users are spread over (default 1); store sqlite
 * (default) or postgres. Cloud Storage is a file server of this process (bench/support/gcs-file-server.ts):
 * the emulator takes 130 MB at most. BENCH_KEEP=1 keeps the work folders; BENCH_HISTORY=1 gives each user three events of its source's history; BENCH_PROF=<folder> writes
 * the servers' CPU profiles there (--cpu-prof); BENCH_SERVER_NODE_ARGS gives the servers node options (`--trace-gc`); BENCH_LAG=<path prefix> writes `<prefix>.<pid>`, a line per stretch in which
 * the server's event loop turned more than 50 ms late, with the thread's CPU time in it (support/loop-lag.mjs: much CPU is
 * the service's own work, little is a machine whose cores are busy elsewhere).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dummyServiceAccountBase64 } from '../packages/server/test/support/gcs-emulator.js';
import { type Child, freePort, startChild } from './support/children.js';
import { type GcsFileServer, startGcsFileServer } from './support/gcs-file-server.js';
import { type BenchPostgres, startPostgres } from './support/postgres.js';
import { type ProbeLatencies, probeWhile } from './support/probes.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const SERVER_DIR = join(ROOT, 'packages', 'server');
const CLI = join(ROOT, 'packages', 'client', 'bin', 'identity-transfer.mjs');
const PEAK_RSS_ON_EXIT = join(HERE, 'support', 'peak-rss-on-exit.mjs');
const PATHS = ['inline', 'gcs', 'job', 'cli-import', 'cli-migrate'] as const;
type Path = (typeof PATHS)[number];
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
/** With BENCH_HISTORY=1: the user's history as an export `withHistory` writes it (three events; issue 51). */
const history = (n: number, userId: string) =>
  process.env.BENCH_HISTORY === '1'
    ? `,"identityServiceHistory":[{"type":"user.human.added","sequence":"1","createdAt":"2025-01-01T00:00:00.000Z","editorId":"100","payload":{"userName":"user${n}"}},{"type":"user.human.profile.changed","sequence":"2","createdAt":"2025-02-01T00:00:00.000Z","editorId":"100","payload":{"lastName":"Last"}},{"type":"user.human.password.changed","sequence":"3","createdAt":"2025-03-01T00:00:00.000Z","editorId":"${userId}"}]`
    : '';
/** Interval of the authenticated GETs sent while an import runs. */
const PROBE_INTERVAL_MS = 10;

const ID_SHAPES = {
  short: (n: number) => `u${n}`,
  zitadel: (n: number) => String(219387465738291000n + BigInt(n)),
  uuid: (n: number) => `6f1c2e4a-9b7d-4c3e-8a2f-${n.toString(16).padStart(12, '0')}`,
  auth0: (n: number) => `auth0|5f7c8ec7c33c6c${n.toString(16).padStart(10, '0')}`,
  hex64: (n: number) => `${n.toString(16).padStart(16, '0')}9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c`,
};
type Shape = keyof typeof ID_SHAPES;

interface Case {
  users: number;
  path: Path;
  ids: Shape;
  orgs: number;
  store: 'sqlite' | 'postgres';
}

const CASES: Case[] = (process.env.BENCH_CASES ?? '10000:inline,190000:inline,350000:gcs').split(',').map((spec) => {
  const [users, path = 'inline', ids = 'zitadel', orgs = '1', store = 'sqlite'] = spec.split(':');
  if (!PATHS.includes(path as Path) || !(ids in ID_SHAPES) || (store !== 'sqlite' && store !== 'postgres')) throw new Error(`bad case ${spec}`);
  return { users: Number(users), path: path as Path, ids: ids as Shape, orgs: Number(orgs), store };
});

/** A /proc/<pid>/status field in MiB (VmHWM: peak resident set; VmRSS: now). */
function procMiB(pid: number | undefined | 'self', field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/** The document (`{"orgs": […]}`) written to `file` as it is generated: `users` spread over `orgs` organisations. */
async function writeDocument(file: string, c: Case): Promise<number> {
  const out = createWriteStream(file);
  const id = ID_SHAPES[c.ids];
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{"orgs":[');
  const perOrg = Math.ceil(c.users / c.orgs);
  for (let o = 0, n = 0; o < c.orgs; o++) {
    await write(`${o ? ',' : ''}{"orgId":"${id(900_000_000 + o)}","org":{"name":"Bench ${o}"},"humanUsers":[`);
    const batch: string[] = [];
    for (let i = 0; i < perOrg && n < c.users; i++, n++) {
      batch.push(
        `${i ? ',' : ''}{"userId":"${id(n)}","user":{"userName":"user${n}","profile":{"firstName":"First${n}","lastName":"Last","displayName":"First${n} Last","preferredLanguage":"en"},"email":{"email":"user${n}@example.com","isEmailVerified":true},"hashedPassword":{"value":"${BCRYPT}"}},"state":"USER_STATE_ACTIVE"${history(n, id(n))}}`,
      );
      if (batch.length === 1000) await write(batch.splice(0).join(''));
    }
    await write(`${batch.join('')}]}`);
  }
  await write(']}');
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

/** A fresh store for server `name`: a database of the bench's PostgreSQL or a SQLite file. */
async function freshStore(work: string, name: string, c: Case, pg?: BenchPostgres): Promise<string> {
  return c.store === 'postgres' ? pg!.createDatabase(`bench_${name}_${Date.now()}`) : join(work, `${name}.db`);
}

/** BENCH_PROF: CPU profiles (--cpu-prof); BENCH_LAG=<path prefix>: the server's late turns of its event loop, with its CPU time in each (support/loop-lag.mjs). */
function serverNodeOptions(): { NODE_OPTIONS?: string; LAG_LOG?: string } {
  const options = [process.env.BENCH_PROF ? `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROF}` : '', process.env.BENCH_LAG ? `--import=${join(HERE, 'support', 'loop-lag.mjs')}` : ''].filter(
    Boolean,
  );
  return { ...(options.length ? { NODE_OPTIONS: options.join(' ') } : {}), ...(process.env.BENCH_LAG ? { LAG_LOG: process.env.BENCH_LAG } : {}) };
}

async function startServer(work: string, name: string, database: string, gcsEndpoint: string): Promise<Child> {
  const port = await freePort();
  return startChild({
    // BENCH_SERVER_NODE_ARGS: node's own options for the servers (--trace-gc is not allowed in NODE_OPTIONS).
    args: [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/main.js'],
    cwd: SERVER_DIR,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database,
      DATA_DIR: join(work, `${name}-data`),
      ADMIN_PAT_FILE: join(work, `${name}.pat`),
      ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
      LOG_LEVEL: 'warn',
      STORAGE_EMULATOR_HOST: gcsEndpoint,
      TMPDIR: work,
      MAX_IMPORT_BODY_BYTES: String(1024 * 1024 * 1024),
      // The probes open a connection each while earlier ones wait (100 per address by default).
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1000',
      ...serverNodeOptions(),
    },
    port,
    readyPath: '/readyz',
    logFile: join(work, `${name}.log`),
  });
}

/** A request without client-side time limits (fetch gives up on headers after 300 s); the body from `body`, the answer as text. */
function post(url: string, token: string, body: AsyncIterable<Buffer | string> | string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (typeof body === 'string') return void req.end(body);
    (async () => {
      for await (const chunk of body) if (!req.write(chunk)) await once(req, 'drain');
      req.end();
    })().catch(reject);
  });
}

/** `{"timeout":…,"dataOrgs":<the file>}`, streamed. */
async function* inlineBody(file: string) {
  yield '{"timeout":"2h","dataOrgs":';
  yield* createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>;
  yield '}';
}

/** Runs the CLI to its end: its exit code, output and peak RSS (VmHWM as it exits, written by a preload). */
async function runCli(args: string[]): Promise<{ code: number | null; output: string; peakMiB: number }> {
  const child = spawn(process.execPath, ['--import', PEAK_RSS_ON_EXIT, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const [code] = (await once(child, 'close')) as [number | null];
  const kib = /^peak-rss-kib (\d+)$/m.exec(output)?.[1];
  return { code, output, peakMiB: kib ? Number(kib) / 1024 : NaN };
}

/** A server process's RSS just before something is asked of it, and the sampler of its peak since (VmHWM reset where the kernel lets us). */
function watchRss(pid: number | undefined): { before: number; peak: () => number } {
  let reset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // 5: reset the peak resident set to the current one
    reset = true;
  } catch {
    // not ours to reset: the peak is sampled instead
  }
  const before = procMiB(pid, 'VmRSS');
  let sampled = before;
  const sampler = reset ? undefined : setInterval(() => (sampled = Math.max(sampled, procMiB(pid, 'VmRSS'))), 100);
  return {
    before,
    peak: () => {
      if (sampler) clearInterval(sampler);
      return reset ? procMiB(pid, 'VmHWM') : sampled;
    },
  };
}

/** Polls the job until it ends (a poll every 500 ms, as the CLI's): its answer. */
async function awaitJob(base: string, token: string, id: string): Promise<{ phase: string; result?: ImportAnswer; error?: unknown }> {
  for (;;) {
    const res = await fetch(`${base}/admin/v1/import/jobs/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const { job } = (await res.json()) as { job: { phase: string; result?: ImportAnswer; error?: unknown } };
    if (['done', 'failed', 'cancelled'].includes(job.phase)) return job;
    await new Promise((r) => setTimeout(r, 500));
  }
}

type ImportAnswer = { success?: { orgs?: { humanUserIds?: string[] }[] }; errors?: unknown[] };
const importedUsers = (answer: ImportAnswer) => (answer.success?.orgs ?? []).reduce((n, o) => n + (o.humanUserIds?.length ?? 0), 0);

interface Result extends Case {
  mib: number;
  seconds: number;
  before: number;
  peak: number;
  cliPeak?: number;
  /** The CLI's start-up footprint: the peak RSS of `identity-transfer --help`. */
  cliStart?: number;
  /** migrate: the source server's RSS before and its peak while it answered the export. */
  source?: { before: number; peak: number };
  probes: ProbeLatencies;
  /** The machine's 1-minute load average as the import started and as it ended (a shared machine: 2 cores). */
  load: [number, number];
}

/** One case: a fresh server (and for migrate a source server holding the users), the import, the figures. */
async function runCase(c: Case, gcs: GcsFileServer, pg?: BenchPostgres): Promise<Result> {
  const work = mkdtempSync(join(tmpdir(), 'identity-import-bench-'));
  const servers: Child[] = [];
  try {
    const file = join(work, 'document.json');
    const bytes = await writeDocument(file, c);
    const object = `doc-${c.users}-${c.ids}-${c.orgs}.json`;
    gcs.serve('migrations', object, file);
    const location = { bucket: 'migrations', path: object, serviceaccountJson: dummyServiceAccountBase64() };
    const token = (name: string) => readFileSync(join(work, `${name}.pat`), 'utf8').trim();

    let source: Child | undefined;
    if (c.path === 'cli-migrate') {
      const database = await freshStore(work, 'source', c, pg);
      const loading = await startServer(work, 'source', database, gcs.endpoint);
      try {
        const res = await post(`${loading.baseUrl}/admin/v1/import`, token('source'), JSON.stringify({ timeout: '2h', dataOrgsGcs: location }));
        if (res.status !== 200) throw new Error(`the source's import answered ${res.status}: ${res.text.slice(0, 300)}`);
      } finally {
        await loading.stop();
      }
      // A fresh process on the store holding the users: what it grows by answering the export is its own.
      source = await startServer(work, 'source', database, gcs.endpoint);
      servers.push(source);
      await fetch(`${source.baseUrl}/admin/v1/languages`, { headers: { authorization: `Bearer ${token('source')}` } });
    }
    const server = await startServer(work, 'target', await freshStore(work, 'target', c, pg), gcs.endpoint);
    servers.push(server);
    const admin = token('target');
    const headers = { authorization: `Bearer ${admin}` };
    await fetch(`${server.baseUrl}/admin/v1/languages`, { headers }); // warm: authentication, routes
    const before = procMiB(server.proc.pid, 'VmRSS');
    const loadBefore = loadavg()[0];
    const t = performance.now();
    const stopProbes = probeWhile(`${server.baseUrl}/admin/v1/languages`, headers, PROBE_INTERVAL_MS);
    let imported = 0;
    let cliPeak: number | undefined;
    let cliStart: number | undefined;
    let sourceRss: Result['source'];
    if (c.path === 'inline' || c.path === 'gcs') {
      const body = c.path === 'inline' ? inlineBody(file) : JSON.stringify({ timeout: '2h', dataOrgsGcs: location });
      const res = await post(`${server.baseUrl}/admin/v1/import`, admin, body);
      if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text.slice(0, 300)}`);
      imported = importedUsers(JSON.parse(res.text) as ImportAnswer);
    } else if (c.path === 'job') {
      const res = await post(`${server.baseUrl}/admin/v1/import/jobs`, admin, inlineBody(file));
      if (res.status !== 200) throw new Error(`StartImportJob answered ${res.status}: ${res.text.slice(0, 300)}`);
      const job = await awaitJob(server.baseUrl, admin, (JSON.parse(res.text) as { id: string }).id);
      if (job.phase !== 'done') throw new Error(`the job ended ${job.phase}: ${JSON.stringify(job.error)}`);
      imported = importedUsers(job.result!);
    } else {
      const args =
        c.path === 'cli-import'
          ? ['import', '--url', server.baseUrl, '--token', admin, '--timeout', '2h', file]
          : [
              'migrate',
              '--from-url',
              source!.baseUrl,
              '--from-token',
              token('source'),
              '--to-url',
              server.baseUrl,
              '--to-token',
              admin,
              '--with-passwords',
              '--timeout',
              '2h',
              // The bench's organisations, not the source's default one (the target has its own "Default").
              ...Array.from({ length: c.orgs }, (_, o) => ['--org', ID_SHAPES[c.ids](900_000_000 + o)]).flat(),
            ];
      cliStart = (await runCli(['--help'])).peakMiB;
      const sourceWatch = source ? watchRss(source.proc.pid) : undefined;
      const cli = await runCli(args);
      if (cli.code !== 0) throw new Error(`the CLI exited with ${cli.code}: ${cli.output.slice(-500)}`);
      cliPeak = cli.peakMiB;
      if (sourceWatch) sourceRss = { before: sourceWatch.before, peak: sourceWatch.peak() };
      // The CLI's summary: a line per kind of resource, "human_user  <created>  <updated>  …".
      imported = Number(/^human_user\s+(\d+)/m.exec(cli.output)?.[1] ?? 0);
    }
    const seconds = (performance.now() - t) / 1000;
    const probes = await stopProbes();
    const peak = procMiB(server.proc.pid, 'VmHWM');
    if (imported !== c.users) throw new Error(`${imported} users imported of ${c.users}`);
    return { ...c, mib: bytes / 1048576, seconds, before, peak, cliPeak, cliStart, source: sourceRss, probes, load: [loadBefore, loadavg()[0]] };
  } finally {
    for (const s of servers) await s.stop();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

/** A case's row of the table. */
function row(r: Result): string {
  const p = r.probes;
  return `| ${r.users.toLocaleString('en')} | ${r.ids} | ${r.orgs.toLocaleString('en')} | ${r.path} | ${r.store} | ${r.mib.toFixed(1)} | ${r.seconds.toFixed(1)} | ${Math.round(r.users / r.seconds).toLocaleString('en')} | ${r.before.toFixed(1)} | ${r.peak.toFixed(1)} | ${(r.peak - r.before).toFixed(1)} | ${p.p50.toFixed(1)} / ${p.p99.toFixed(1)} / ${p.max.toFixed(1)} (${p.count}, ${p.failed}) | ${r.cliPeak === undefined ? '–' : `${r.cliStart?.toFixed(1)} → ${r.cliPeak.toFixed(1)}`} | ${r.source ? `${r.source.before.toFixed(1)} → ${r.source.peak.toFixed(1)}` : '–'} | ${r.load.map((l) => l.toFixed(2)).join(' → ')} |`;
}

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: SERVER_DIR, stdio: 'inherit' });
  const gcs = await startGcsFileServer();
  const pg = CASES.some((c) => c.store === 'postgres') ? await startPostgres() : undefined;
  const results: Result[] = [];
  try {
    for (const c of CASES) {
      let r: Result;
      try {
        r = await runCase(c, gcs, pg);
      } catch (error) {
        // A long series goes on: the failure is reported with its case.
        console.log(`  ${c.users.toLocaleString('en')} users (${c.ids} ids, ${c.orgs} org(s), ${c.path}, ${c.store}) FAILED: ${(error as Error).message}`);
        continue;
      }
      results.push(r);
      console.log(
        `  ${r.users.toLocaleString('en')} users (${r.ids} ids, ${r.orgs} org(s), ${r.path}, ${r.store}): ${r.seconds.toFixed(1)} s, ${Math.round(r.users / r.seconds)} users/s; server RSS +${(r.peak - r.before).toFixed(1)} MiB; GETs p99 ${r.probes.p99.toFixed(1)} ms; load ${r.load.map((l) => l.toFixed(2)).join(' → ')}`,
      );
      // The case's whole row at once: a long series cut short keeps the rows of the cases it ran.
      console.log(`  ${row(r)}`);
    }
  } finally {
    await gcs.stop();
    await pg?.stop();
  }
  console.log(
    '\n| users | ids | orgs | path | store | document MiB | import s | users/s | server RSS before MiB | peak MiB | peak − before MiB | GETs meanwhile p50 / p99 / max ms (n, failed) | CLI start-up → peak RSS MiB | source before → peak MiB | load avg (1 min) start → end |',
  );
  console.log('| ---: | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |');
  for (const r of results) console.log(row(r));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
