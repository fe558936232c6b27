/**
 * Import memory against the organisation's size (issue 14): the server as its own process, an
 * organisation of 10,000, 100,000 and 350,000 users (bcrypt hashes, as a migration carries them),
 * `POST /admin/v1/import`: inline while the document fits the import body limit
 * (MAX_IMPORT_BODY_BYTES, 64 MiB by default), through Cloud Storage (`data_orgs_gcs`, a GCS emulator
 * over HTTP) beyond it. Reported per size: the server's peak RSS (VmHWM of a process started fresh
 * for each import, on a fresh SQLite file), its RSS before, the time, the document's size and the
 * client's (this process's) peak RSS separately. No target: the import validates the document
 * whole and writes it in one transaction, so its memory grows with the document (BENCHMARKS.md).
 *
 *   npm run bench:import-memory          (from the repo root)
 *
 * 350,000 rather than 1,000,000: the Cloud Storage emulator (firebase-tools') accepts uploads up to
 * 130 MB, and 350,000 users are 116 MiB, beyond the 64 MiB body limit.
 * Environment: BENCH_SIZES=10000,100000,350000, BENCH_KEEP=1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGcsEmulator } from '../packages/server/test/support/gcs-emulator.js';
import { writeGcsObject } from '../packages/server/src/storage/gcs.js';
import { freePort, startChild, type Child } from './support/children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,350000').split(',').map(Number);
/** The server's default import body limit (MAX_IMPORT_BODY_BYTES). */
const BODY_LIMIT = 64 * 1024 * 1024;
/** What the operator sets to import a larger document from Cloud Storage (the limit applies to those reads too). */
const GCS_LIMIT = 1024 * 1024 * 1024;
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

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
      `${i ? ',' : ''}{"userId":"u${i}","user":{"userName":"user${i}","profile":{"firstName":"First${i}","lastName":"Last","displayName":"First${i} Last","preferredLanguage":"en"},"email":{"email":"user${i}@example.com","isEmailVerified":true},"hashedPassword":{"value":"${BCRYPT}"}},"state":"USER_STATE_ACTIVE"}`,
    );
    if (batch.length === 1000) yield batch.splice(0).join('');
  }
  yield batch.join('');
  yield ']}]}';
}

async function startServer(work: string, gcsEndpoint: string, limit: number): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: SERVER_DIR,
    env: {
      PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: join(work, 'identity.db'), ADMIN_PAT_FILE: join(work, 'admin.pat'), LOG_LEVEL: 'warn',
      ENCRYPTION_KEY_FILE: join(work, 'encryption.key'), STORAGE_EMULATOR_HOST: gcsEndpoint, MAX_IMPORT_BODY_BYTES: String(limit),
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
}

async function main() {
  const gcs = await startGcsEmulator();
  const results: Result[] = [];
  try {
    for (const size of SIZES) {
      const work = mkdtempSync(join(tmpdir(), 'identity-import-mem-'));
      try {
        // Inline up to the default body limit (with room for the request's envelope), Cloud Storage beyond.
        let bytes = 0;
        for (const part of documentParts(size)) bytes += Buffer.byteLength(part);
        const inline = bytes + 1024 <= BODY_LIMIT;
        let body: string;
        if (inline) {
          body = `{"timeout":"30m","dataOrgs":${[...documentParts(size)].join('')}}`;
        } else {
          const location = { bucket: 'migrations', path: `org-${size}.json`, serviceaccountJson: gcs.serviceAccountBase64 };
          await writeGcsObject(location, documentParts(size), { endpoint: gcs.endpoint, contentType: 'application/json' });
          body = JSON.stringify({ timeout: '30m', data_orgs_gcs: location });
        }
        const server = await startServer(work, gcs.endpoint, inline ? BODY_LIMIT : GCS_LIMIT);
        try {
          const headers = { authorization: `Bearer ${readFileSync(join(work, 'admin.pat'), 'utf8').trim()}`, 'content-type': 'application/json' };
          await fetch(`${server.baseUrl}/admin/v1/languages`, { headers }); // warm: authentication, routes
          const before = procMiB(server.proc.pid, 'VmRSS');
          const t = performance.now();
          const res = await fetch(`${server.baseUrl}/admin/v1/import`, { method: 'POST', headers, body });
          const answer = (await res.json()) as { success?: { orgs?: { humanUserIds?: string[] }[] } };
          if (res.status !== 200 || answer.success?.orgs?.[0]?.humanUserIds?.length !== size) {
            throw new Error(`import of ${size} answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
          }
          const seconds = (performance.now() - t) / 1000;
          const peak = procMiB(server.proc.pid, 'VmHWM');
          const result: Result = { users: size, via: inline ? 'inline' : 'Cloud Storage', mib: bytes / 1048576, seconds, before, peak };
          results.push(result);
          console.log(`  import of ${size.toLocaleString('en')} users (${result.via}, ${result.mib.toFixed(1)} MiB): ${seconds.toFixed(1)} s; server RSS before ${before.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB`);
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
  console.log('\n| users | via | document MiB | import s | server RSS before MiB | server peak RSS MiB | peak − before MiB |');
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(`| ${r.users.toLocaleString('en')} | ${r.via} | ${r.mib.toFixed(1)} | ${r.seconds.toFixed(1)} | ${r.before.toFixed(1)} | ${r.peak.toFixed(1)} | ${(r.peak - r.before).toFixed(1)} |`);
  }
  console.log(`\nclient (this process) peak RSS: ${procMiB('self', 'VmHWM').toFixed(1)} MiB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
