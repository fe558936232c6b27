/**
 * Export memory against the organisation's size (issue 14): the server as its own process, an
 * organisation of 10,000, 100,000 and 1,000,000 users, `POST /admin/v1/export` read to the end
 * by a client that keeps nothing. Reported per size: the server's peak RSS (VmHWM of its process,
 * started fresh for each export, so the peak is that export's), its RSS before the export, the
 * client's (this process's) peak RSS separately, time and size of the document.
 * Target: the server's peak at 1,000,000 users within 64 MiB of its peak at 10,000.
 *
 *   npm run bench:export-memory          (from the repo root)
 *
 * The users are written straight into the store (the import's own bulk insert, in transactions of
 * 10,000), not through an import: a 1,000,000-user import document is over the request body limit,
 * and the import's memory is not what this measures. SQLite only (the export reads in keyset
 * pages on either store). Environment: BENCH_SIZES=10000,100000,1000000, BENCH_KEEP=1, BENCH_HISTORY=1
 * (each user gets three events, and the export is asked `withHistory`: issue 51).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Repositories } from '../packages/server/src/store/store.js';
import { type Child, freePort, startChild } from './support/children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const BATCH = 10_000;
const HISTORY = process.env.BENCH_HISTORY === '1';
/** With BENCH_HISTORY: each seeded user's events, as the users API would have appended them. */
const HISTORY_EVENTS = ['user.human.added', 'user.human.profile.changed', 'user.human.password.changed'];
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

/** A /proc/<pid>/status field in MiB (VmHWM: peak resident set; VmRSS: now). */
function procMiB(pid: number | undefined | 'self', field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

async function startServer(work: string, databaseUrl: string, patFile: string, n: number): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: SERVER_DIR,
    env: { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, ADMIN_PAT_FILE: patFile, LOG_LEVEL: 'warn', ENCRYPTION_KEY_FILE: join(work, 'encryption.key') },
    port,
    readyPath: '/readyz',
    logFile: join(work, `server-${n}.log`),
  });
}

/** Adds users to the organisation until it has `total` (ids and names numbered from `from`). */
async function seedUsers(databaseUrl: string, orgId: string, from: number, total: number) {
  const { openStore } = await import('../packages/server/src/store/store.js');
  const store = await openStore({ dialect: 'sqlite', target: databaseUrl });
  try {
    const at = new Date();
    for (let start = from; start < total; start += BATCH) {
      const rows: Parameters<Repositories['transfer']['insertUsers']>[0] = [];
      for (let i = start; i < Math.min(total, start + BATCH); i++) {
        rows.push({
          id: `u${i}`,
          orgId,
          type: 'human',
          userName: `user${i}`,
          userNameKey: `user${i}`,
          state: 'USER_STATE_ACTIVE',
          data: { profile: { firstName: `First${i}`, lastName: 'Last', displayName: `First${i} Last`, preferredLanguage: 'en' }, email: { email: `user${i}@example.com`, isEmailVerified: true } },
          passwordHash: BCRYPT,
          passwordChangeRequired: false,
          sequence: 0,
          createdAt: at,
          changedAt: at,
        });
      }
      await store.transaction(async (tx) => {
        await tx.transfer.insertUsers(rows);
        for (const type of HISTORY ? HISTORY_EVENTS : []) {
          await tx.events.appendAll(
            rows.map((r) => ({ aggregateType: 'user', aggregateId: r.id, type, payload: type === 'user.human.added' ? { userName: r.userName } : {}, creator: 'bench', resourceOwner: orgId })),
            at,
          );
        }
      });
    }
  } finally {
    await store.close();
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'identity-export-mem-'));
  const databaseUrl = join(work, 'identity.db');
  const patFile = join(work, 'admin.pat');
  const results: { users: number; seconds: number; mib: number; before: number; peak: number }[] = [];
  try {
    // First start: bootstrap, and the organisation the users go to.
    let server = await startServer(work, databaseUrl, patFile, 0);
    const headers = { authorization: `Bearer ${readFileSync(patFile, 'utf8').trim()}`, 'content-type': 'application/json' };
    const org = await (await fetch(`${server.baseUrl}/management/v1/orgs`, { method: 'POST', headers, body: JSON.stringify({ name: 'Export memory' }) })).json();
    await server.stop();
    let seeded = 0;
    for (const size of SIZES) {
      const t0 = performance.now();
      await seedUsers(databaseUrl, org.id, seeded, size);
      seeded = size;
      console.log(`  ${size.toLocaleString('en')} users in the store (${((performance.now() - t0) / 1000).toFixed(1)} s to add)`);
      // A fresh server process per size, so its peak RSS is this export's.
      server = await startServer(work, databaseUrl, patFile, size);
      try {
        await fetch(`${server.baseUrl}/admin/v1/languages`, { headers }); // warm: authentication, routes
        const before = procMiB(server.proc.pid, 'VmRSS');
        const t = performance.now();
        const res = await fetch(`${server.baseUrl}/admin/v1/export`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ orgIds: [org.id], withPasswords: true, ...(HISTORY ? { withHistory: true } : {}), timeout: '30m', responseOutput: true }),
        });
        if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
        let bytes = 0;
        for await (const chunk of res.body!) bytes += chunk.byteLength;
        const seconds = (performance.now() - t) / 1000;
        const peak = procMiB(server.proc.pid, 'VmHWM');
        results.push({ users: size, seconds, mib: bytes / 1048576, before, peak });
        console.log(
          `  export of ${size.toLocaleString('en')} users: ${seconds.toFixed(1)} s, ${(bytes / 1048576).toFixed(1)} MiB; server RSS before ${before.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB`,
        );
      } finally {
        await server.stop();
      }
    }
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
  const first = results[0];
  console.log('\n| users | export s | document MiB | server RSS before MiB | server peak RSS MiB | peak − peak at first size MiB |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(`| ${r.users.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${r.mib.toFixed(1)} | ${r.before.toFixed(1)} | ${r.peak.toFixed(1)} | ${(r.peak - first.peak).toFixed(1)} |`);
  }
  console.log(`\nclient (this process) peak RSS: ${procMiB('self', 'VmHWM').toFixed(1)} MiB`);
  const last = results[results.length - 1];
  if (last && first && last !== first) {
    const ok = last.peak - first.peak <= 64;
    console.log(`target (peak at ${last.users.toLocaleString('en')} within 64 MiB of the peak at ${first.users.toLocaleString('en')}): ${ok ? 'met' : 'NOT met'}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
