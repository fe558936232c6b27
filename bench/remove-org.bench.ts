/**
 * Removing a large organisation while other requests are answered (issue 47, item 8): the server as
 * its own process (the build, dist/main.js, as `npm start` runs it), an organisation of N users
 * imported (POST /admin/v1/import, bcrypt hashes, each user with a grant on the organisation's
 * project), then `DELETE /management/v1/orgs/me`. Reported per store: the DELETE's answer time, the
 * removal's length (until its background worker has removed the last user: the `org_removals` row
 * is gone), and the latency of small authenticated GETs (`GET /management/v1/orgs/me` of the
 * default organisation) sent every 10 ms — for 3 s before, as the baseline, and during the removal.
 * Target: the GETs' p99 during the removal ≤ 100 ms on both stores.
 *
 *   npm run bench:remove-org          (from the repo root)
 *
 * Environment: BENCH_USERS=100000, BENCH_STORES=sqlite,postgres, BENCH_GRANTS=1 (0: users only),
 * BENCH_DEADLINE_S=1500 (the whole run is stopped past it), BENCH_KEEP=1 (keep the work folder).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, startChild, type Child } from './support/children.js';
import { startPostgres, type BenchPostgres } from './support/postgres.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
// better-sqlite3 is the server's dependency: resolved from there.
const Database = createRequire(join(SERVER_DIR, 'package.json'))('better-sqlite3') as typeof import('better-sqlite3');
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
const GRANTS = process.env.BENCH_GRANTS !== '0';
const DEADLINE = Date.now() + Number(process.env.BENCH_DEADLINE_S ?? 1500) * 1000;
const PROBE_INTERVAL_MS = 10;
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
const ORG_ID = '271828182845904523';
const PROJECT_ID = '271828182845904524';

function pastDeadline(what: string): void {
  if (Date.now() > DEADLINE) throw new Error(`deadline passed (BENCH_DEADLINE_S) while ${what}`);
}

/** The organisation's import request, in pieces. */
function* importBody(users: number): Generator<string> {
  yield `{"timeout":"30m","dataOrgs":{"orgs":[{"orgId":"${ORG_ID}","org":{"name":"Removal bench"},`;
  if (GRANTS) yield `"projects":[{"projectId":"${PROJECT_ID}","project":{"name":"portal"}}],"projectRoles":[{"projectId":"${PROJECT_ID}","roleKey":"reader","displayName":"Reader"}],`;
  const id = (i: number) => `3${String(i).padStart(17, '0')}`;
  yield '"humanUsers":[';
  for (let i = 0; i < users; i += 1000) {
    const batch: string[] = [];
    for (let j = i; j < Math.min(users, i + 1000); j++) {
      batch.push(`{"userId":"${id(j)}","user":{"userName":"user${j}","profile":{"firstName":"First${j}","lastName":"Last"},"email":{"email":"user${j}@example.com","isEmailVerified":true},"hashedPassword":{"value":"${BCRYPT}"}},"state":"USER_STATE_ACTIVE"}`);
    }
    yield (i ? ',' : '') + batch.join(',');
  }
  yield ']';
  if (GRANTS) {
    yield ',"userGrants":[';
    for (let i = 0; i < users; i += 1000) {
      const batch: string[] = [];
      for (let j = i; j < Math.min(users, i + 1000); j++) batch.push(`{"userId":"${id(j)}","projectId":"${PROJECT_ID}","roleKeys":["reader"]}`);
      yield (i ? ',' : '') + batch.join(',');
    }
    yield ']';
  }
  yield '}]}}';
}

interface Latencies {
  p50: number;
  p99: number;
  max: number;
  count: number;
  failed: number;
}

/** GETs every PROBE_INTERVAL_MS until `stop()`, each on its own (not waiting for the one before): their latencies. */
function probeWhile(url: string, headers: Record<string, string>): () => Promise<Latencies> {
  const latencies: number[] = [];
  let failed = 0;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const t = performance.now();
    const p = fetch(url, { headers, signal: AbortSignal.timeout(30_000) })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - t);
        else failed++;
      })
      .catch(() => void failed++)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, PROBE_INTERVAL_MS);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
    return { p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? NaN, count: latencies.length, failed };
  };
}

/** What the bench asks the database directly (a connection of its own): removals left, users left in the organisation. */
function databaseProbe(store: 'sqlite' | 'postgres', target: string) {
  if (store === 'sqlite') {
    const db = new Database(target, { readonly: true });
    return {
      count: async (sql: string) => Number((db.prepare(sql).get() as { n: number }).n),
      close: async () => db.close(),
    };
  }
  const client = new pg.Client({ connectionString: target });
  const connected = client.connect();
  return {
    count: async (sql: string) => {
      await connected;
      return Number((await client.query(sql)).rows[0].n);
    },
    close: async () => {
      await connected;
      await client.end();
    },
  };
}

interface Result {
  store: string;
  importSeconds: number;
  deleteMs: number;
  removalSeconds: number;
  idle: Latencies;
  during: Latencies;
}

async function runCase(store: 'sqlite' | 'postgres', postgres: BenchPostgres | undefined): Promise<Result> {
  const work = mkdtempSync(join(tmpdir(), 'identity-remove-org-'));
  const target = store === 'sqlite' ? join(work, 'identity.db') : await postgres!.createDatabase(`remove_org_${Date.now()}`);
  const port = await freePort();
  let server: Child | undefined;
  try {
    server = await startChild({
      args: ['dist/main.js'],
      cwd: SERVER_DIR,
      env: {
        PORT: String(port), HOST: '127.0.0.1', DATA_DIR: work, DATABASE_URL: target, LOG_LEVEL: 'info',
        MAX_IMPORT_BODY_BYTES: String(512 * 1024 * 1024), ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
      },
      port,
      readyPath: '/readyz',
      logFile: join(work, 'server.log'),
    });
    const token = readFileSync(join(work, 'admin.pat'), 'utf8').trim();
    const auth = { authorization: `Bearer ${token}` };

    let started = performance.now();
    const imported = await fetch(`${server.baseUrl}/admin/v1/import`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: [...importBody(USERS)].join('') });
    const answer = (await imported.json()) as { errors?: unknown[]; success?: { orgs?: { humanUserIds?: string[] }[] } };
    if (imported.status !== 200 || answer.errors?.length || answer.success?.orgs?.[0]?.humanUserIds?.length !== USERS) {
      throw new Error(`import answered ${imported.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    const importSeconds = (performance.now() - started) / 1000;
    console.log(`  ${store}: imported ${USERS.toLocaleString('en')} users${GRANTS ? ' with a grant each' : ''} in ${importSeconds.toFixed(1)} s`);
    pastDeadline('importing');

    const probeUrl = `${server.baseUrl}/management/v1/orgs/me`;
    await fetch(probeUrl, { headers: auth }); // warm: authentication, routes
    const stopIdle = probeWhile(probeUrl, auth);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = await stopIdle();

    const db = databaseProbe(store, target);
    try {
      const stopProbes = probeWhile(probeUrl, auth);
      started = performance.now();
      const removed = await fetch(`${server.baseUrl}/management/v1/orgs/me`, { method: 'DELETE', headers: { ...auth, 'x-service-orgid': ORG_ID } });
      const deleteMs = performance.now() - started;
      if (removed.status !== 200) throw new Error(`RemoveOrg answered ${removed.status}: ${await removed.text()}`);
      while ((await db.count('select count(*) as n from org_removals')) > 0) {
        pastDeadline('waiting for the removal to finish');
        await new Promise((r) => setTimeout(r, 200));
      }
      const removalSeconds = (performance.now() - started) / 1000;
      const during = await stopProbes();
      const left = await db.count(`select count(*) as n from users where org_id = '${ORG_ID}'`);
      if (left !== 0) throw new Error(`${left} users of the organisation are left`);
      return { store, importSeconds, deleteMs, removalSeconds, idle, during };
    } finally {
      await db.close();
    }
  } finally {
    await server?.stop();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
    else console.log(`  kept ${work}`);
  }
}

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: SERVER_DIR, stdio: 'inherit' });
  const postgres = STORES.includes('postgres') ? await startPostgres() : undefined;
  const results: Result[] = [];
  try {
    for (const store of STORES) results.push(await runCase(store, postgres));
  } finally {
    await postgres?.stop();
  }
  const f = (n: number) => n.toFixed(1);
  console.log(`\n${USERS.toLocaleString('en')} users${GRANTS ? ', a user grant each' : ''}; GETs every ${PROBE_INTERVAL_MS} ms\n`);
  console.log('| store | import s | DELETE answered ms | removal s | GETs before: p50 / p99 / max ms (n) | GETs during removal: p50 / p99 / max ms (n, failed) |');
  console.log('| --- | ---: | ---: | ---: | --- | --- |');
  for (const r of results) {
    console.log(`| ${r.store} | ${f(r.importSeconds)} | ${f(r.deleteMs)} | ${f(r.removalSeconds)} | ${f(r.idle.p50)} / ${f(r.idle.p99)} / ${f(r.idle.max)} (${r.idle.count}) | ${f(r.during.p50)} / ${f(r.during.p99)} / ${f(r.during.max)} (${r.during.count}, ${r.during.failed}) |`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
