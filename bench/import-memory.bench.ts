/**
 * Import memory and responsiveness against the document's size (issues 14, 30): the server as its
 * own process, an organisation of N users (bcrypt hashes, as a migration carries them),
 * `POST /admin/v1/import` inline or through Cloud Storage (`data_orgs_gcs`, a GCS emulator over
 * HTTP). Reported per case: the server's peak RSS (VmHWM of a process started fresh for each
 * import, on a fresh SQLite file), its RSS before, the time, the document's size, and the latency
 * of authenticated GETs sent every 10 ms while the import runs (p50, p99, max, count).
 *
 * Targets (issue 30): peak − before ≤ 256 MiB for 350,000 users through Cloud Storage, ≤ 128 MiB
 * for a 64 MiB document inline; p99 of the GETs during the 64 MiB import ≤ 100 ms.
 *
 *   npm run bench:import-memory          (from the repo root)
 *
 * 350,000 rather than 1,000,000: the Cloud Storage emulator (firebase-tools') accepts uploads up
 * to 130 MB, and 350,000 users are 117 MiB.
 * Environment: BENCH_CASES=10000:inline,190000:inline,350000:gcs (190,000 users are 64 MiB),
 * BENCH_KEEP=1, BENCH_HISTORY=1 (each user carries three events of its source's history: issue 51).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGcsEmulator } from '../packages/server/test/support/gcs-emulator.js';
import { writeGcsObject } from '../packages/server/src/storage/gcs.js';
import { freePort, startChild, type Child } from './support/children.js';
import { probeWhile } from './support/probes.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const CASES = (process.env.BENCH_CASES ?? '10000:inline,190000:inline,350000:gcs').split(',').map((c) => {
  const [users, via] = c.split(':');
  return { users: Number(users), inline: via !== 'gcs' };
});
/** Interval of the authenticated GETs sent while an import runs. */
const PROBE_INTERVAL_MS = 10;
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
/** With BENCH_HISTORY=1: the user's history as an export `withHistory` writes it. */
const history = (i: number) =>
  process.env.BENCH_HISTORY === '1'
    ? `,"identityServiceHistory":[{"type":"user.human.added","sequence":"1","createdAt":"2025-01-01T00:00:00.000Z","editorId":"100","payload":{"userName":"user${i}"}},{"type":"user.human.profile.changed","sequence":"2","createdAt":"2025-02-01T00:00:00.000Z","editorId":"100","payload":{"lastName":"Last"}},{"type":"user.human.password.changed","sequence":"3","createdAt":"2025-03-01T00:00:00.000Z","editorId":"u${i}"}]`
    : '';

/** A /proc/<pid>/status field in MiB (VmHWM: peak resident set; VmRSS: now). */
function procMiB(pid: number | undefined | 'self', field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/** The organisation's document (`dataOrgs`), in pieces, so the client never holds it whole for Cloud Storage. */
function* documentParts(users: number): Generator<string> {
  yield '{"orgs":[{"orgId":"900","org":{"name":"Import memory"},"humanUsers":[';
  const batch: string[] = [];
  for (let i = 0; i < users; i++) {
    batch.push(
      `${i ? ',' : ''}{"userId":"u${i}","user":{"userName":"user${i}","profile":{"firstName":"First${i}","lastName":"Last","displayName":"First${i} Last","preferredLanguage":"en"},"email":{"email":"user${i}@example.com","isEmailVerified":true},"hashedPassword":{"value":"${BCRYPT}"}},"state":"USER_STATE_ACTIVE"${history(i)}}`,
    );
    if (batch.length === 1000) yield batch.splice(0).join('');
  }
  yield batch.join('');
  yield ']}]}';
}

/**
 * The server as `npm start` runs it: the build (dist/), compiled first if its sources changed.
 * Not from the sources through tsx: tsx compiles every module again in each worker thread (the
 * import's reader, the checkpointer), memory a deployed server never spends.
 */
async function startServer(work: string, gcsEndpoint: string): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: ['dist/main.js'],
    cwd: SERVER_DIR,
    env: {
      PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: join(work, 'identity.db'), ADMIN_PAT_FILE: join(work, 'admin.pat'), LOG_LEVEL: 'warn',
      ENCRYPTION_KEY_FILE: join(work, 'encryption.key'), STORAGE_EMULATOR_HOST: gcsEndpoint,
    },
    port,
    readyPath: '/readyz',
    logFile: join(work, 'server.log'),
  });
}

interface Result {
  users: number;
  via: 'inline' | 'Cloud Storage';
  mib: number;
  seconds: number;
  before: number;
  peak: number;
  probes: { p50: number; p99: number; max: number; count: number; failed: number };
}

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: SERVER_DIR, stdio: 'inherit' });
  const gcs = await startGcsEmulator();
  const results: Result[] = [];
  try {
    for (const { users: size, inline } of CASES) {
      const work = mkdtempSync(join(tmpdir(), 'identity-import-mem-'));
      try {
        let bytes = 0;
        for (const part of documentParts(size)) bytes += Buffer.byteLength(part);
        let body: string;
        if (inline) {
          body = `{"timeout":"30m","dataOrgs":${[...documentParts(size)].join('')}}`;
        } else {
          const location = { bucket: 'migrations', path: `org-${size}.json`, serviceaccountJson: gcs.serviceAccountBase64 };
          await writeGcsObject(location, documentParts(size), { endpoint: gcs.endpoint, contentType: 'application/json' });
          body = JSON.stringify({ timeout: '30m', data_orgs_gcs: location });
        }
        const server = await startServer(work, gcs.endpoint);
        try {
          const headers = { authorization: `Bearer ${readFileSync(join(work, 'admin.pat'), 'utf8').trim()}`, 'content-type': 'application/json' };
          await fetch(`${server.baseUrl}/admin/v1/languages`, { headers }); // warm: authentication, routes
          const before = procMiB(server.proc.pid, 'VmRSS');
          const t = performance.now();
          const stopProbes = probeWhile(`${server.baseUrl}/admin/v1/languages`, { authorization: headers.authorization }, PROBE_INTERVAL_MS);
          const res = await fetch(`${server.baseUrl}/admin/v1/import`, { method: 'POST', headers, body });
          const answer = (await res.json()) as { success?: { orgs?: { humanUserIds?: string[] }[] } };
          const probes = await stopProbes();
          if (res.status !== 200 || answer.success?.orgs?.[0]?.humanUserIds?.length !== size) {
            throw new Error(`import of ${size} answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
          }
          const seconds = (performance.now() - t) / 1000;
          const peak = procMiB(server.proc.pid, 'VmHWM');
          const result: Result = { users: size, via: inline ? 'inline' : 'Cloud Storage', mib: bytes / 1048576, seconds, before, peak, probes };
          results.push(result);
          console.log(`  import of ${size.toLocaleString('en')} users (${result.via}, ${result.mib.toFixed(1)} MiB): ${seconds.toFixed(1)} s; server RSS before ${before.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB; GETs meanwhile p99 ${probes.p99.toFixed(1)} ms (${probes.count})`);
        } finally {
          await server.stop();
        }
      } finally {
        if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
      }
    }
  } finally {
    await gcs.stop();
  }
  console.log('\n| users | via | document MiB | import s | server RSS before MiB | server peak RSS MiB | peak − before MiB | GETs during import: p50 / p99 / max ms (n, failed) |');
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of results) {
    const p = r.probes;
    console.log(`| ${r.users.toLocaleString('en')} | ${r.via} | ${r.mib.toFixed(1)} | ${r.seconds.toFixed(1)} | ${r.before.toFixed(1)} | ${r.peak.toFixed(1)} | ${(r.peak - r.before).toFixed(1)} | ${p.p50.toFixed(1)} / ${p.p99.toFixed(1)} / ${p.max.toFixed(1)} (${p.count}, ${p.failed}) |`);
  }
  console.log(`\nclient (this process) peak RSS: ${procMiB('self', 'VmHWM').toFixed(1)} MiB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
