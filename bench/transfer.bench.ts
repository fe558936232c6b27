/**
 * Export and import of one organisation with 100,000 users (issue 6), with and without bcrypt
 * hashes, on SQLite and on PostgreSQL: wall time and peak RSS. Not a timed test.
 *
 *   npx tsx bench/transfer.bench.ts            (from the repo root; appends to BENCHMARKS.md)
 *
 * Each case runs in a fresh child process (so peak RSS is that case's alone) that builds the
 * service in-process on a fresh store, POSTs the document to /admin/v1/import through
 * `app.request`, then reads POST /admin/v1/export's streamed body to the end. Peak RSS includes
 * the 100,000-user request body the benchmark itself builds, as a client in the same process.
 * Environment: BENCH_USERS=100000, BENCH_STORES=sqlite,postgres, BENCH_NO_APPEND=1.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USERS = Number(process.env.BENCH_USERS ?? 100_000);
// A real bcrypt hash (cost 10); the import stores it as given, so one value serves every user.
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

interface CaseResult {
  store: string;
  hashes: boolean;
  users: number;
  bodyMiB: number;
  importSeconds: number;
  exportSeconds: number;
  exportMiB: number;
  peakRssMiB: number;
}

async function worker(store: string, target: string, hashes: boolean): Promise<CaseResult> {
  const { openStore } = await import('../packages/server/src/store/store.js');
  const { bootstrapInstance } = await import('../packages/server/src/domain/instance/bootstrap.js');
  const { createApp } = await import('../packages/server/src/app.js');
  const s = await openStore({ dialect: store as 'sqlite' | 'postgres', target });
  const boot = await bootstrapInstance(s, 'localhost');
  const app = createApp({ store: s, instanceId: boot.instanceId, spec: {}, maxImportBodyBytes: 512 * 1024 * 1024 });
  const headers = { authorization: `Bearer ${boot.created!.token}`, 'content-type': 'application/json' };

  const parts: string[] = ['{"timeout":"10m","dataOrgs":{"orgs":[{"orgId":"900","org":{"name":"Bench"},"humanUsers":['];
  for (let i = 0; i < USERS; i++) {
    parts.push(
      `${i ? ',' : ''}{"userId":"u${i}","user":{"userName":"user${i}","profile":{"firstName":"First${i}","lastName":"Last","displayName":"First${i} Last","preferredLanguage":"en"},"email":{"email":"user${i}@example.com","isEmailVerified":true}${hashes ? `,"hashedPassword":{"value":"${BCRYPT}"}` : ''}},"state":"USER_STATE_ACTIVE"}`,
    );
  }
  parts.push(']}]}}');
  let body: string | undefined = parts.join('');
  parts.length = 0;
  const bodyMiB = Buffer.byteLength(body) / 1048576;

  let t = performance.now();
  const res = await app.request('/admin/v1/import', { method: 'POST', headers, body });
  body = undefined;
  const result = (await res.json()) as { success?: { orgs?: { humanUserIds?: string[] }[] }; message?: string };
  if (res.status !== 200 || result.success?.orgs?.[0]?.humanUserIds?.length !== USERS) throw new Error(`import failed: ${res.status} ${JSON.stringify(result).slice(0, 300)}`);
  const importSeconds = (performance.now() - t) / 1000;

  t = performance.now();
  const exp = await app.request('/admin/v1/export', { method: 'POST', headers, body: JSON.stringify({ orgIds: ['900'], withPasswords: true, responseOutput: true, timeout: '10m' }) });
  if (exp.status !== 200 || !exp.body) throw new Error(`export failed: ${exp.status}`);
  let bytes = 0;
  for await (const chunk of exp.body) bytes += chunk.length;
  const exportSeconds = (performance.now() - t) / 1000;
  await s.close();
  return {
    store,
    hashes,
    users: USERS,
    bodyMiB,
    importSeconds,
    exportSeconds,
    exportMiB: bytes / 1048576,
    // maxRSS is in KiB on Linux.
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

async function orchestrate() {
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
  const self = fileURLToPath(import.meta.url);
  const results: CaseResult[] = [];
  let pgServer: Awaited<ReturnType<typeof import('./support/postgres.js')['startPostgres']>> | undefined;
  try {
    for (const store of stores) {
      for (const hashes of [false, true]) {
        let target: string;
        let dir: string | undefined;
        if (store === 'postgres') {
          pgServer ??= await (await import('./support/postgres.js')).startPostgres();
          target = await pgServer.createDatabase(`transfer_${hashes ? 'h' : 'n'}_${Date.now()}`);
        } else {
          dir = mkdtempSync(join(tmpdir(), 'transfer-bench-'));
          target = join(dir, 'identity.db');
        }
        const out = execFileSync(process.execPath, ['--import', 'tsx', self, 'worker', store, target, String(hashes)], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const r = JSON.parse(out.trim().split('\n').at(-1)!) as CaseResult;
        results.push(r);
        process.stderr.write(`${JSON.stringify(r)}\n`);
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await pgServer?.stop();
  }
  const f = (n: number) => n.toFixed(1);
  const table = [
    '',
    `## Export and import of one organisation with ${USERS.toLocaleString('en')} users (bench/transfer.bench.ts)`,
    '',
    `${new Date().toISOString().slice(0, 10)}, ${process.platform}/${process.arch}, Node ${process.version}. Each case is a fresh process and store;`,
    'import = POST /admin/v1/import with the inline document (validated whole, one transaction); export = POST /admin/v1/export',
    '(withPasswords, streamed body read to the end). Peak RSS is the process (server and the benchmark client holding the',
    'request body). Target: each under 60 s, peak RSS under 512 MiB.',
    '',
    '| store | bcrypt hashes | body MiB | import s | export s | export MiB | peak RSS MiB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...results.map((r) => `| ${r.store} | ${r.hashes ? 'yes' : 'no'} | ${f(r.bodyMiB)} | ${f(r.importSeconds)} | ${f(r.exportSeconds)} | ${f(r.exportMiB)} | ${f(r.peakRssMiB)} |`),
    '',
  ].join('\n');
  process.stdout.write(table);
  if (!process.env.BENCH_NO_APPEND) {
    const file = join(fileURLToPath(new URL('..', import.meta.url)), 'BENCHMARKS.md');
    appendFileSync(file, `${existsSync(file) ? '' : '# Benchmarks\n'}${table}`);
  }
}

if (process.argv[2] === 'worker') {
  const [store, target, hashes] = process.argv.slice(3);
  worker(store, target, hashes === 'true').then(
    (r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
} else {
  await orchestrate();
}
