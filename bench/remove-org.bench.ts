/**
 * Removing a large organisation while other requests are answered (issue 47, item 8): the server as
 * its own process (the build, dist/main.js, as `npm start` runs it), an organisation of N users
 * imported (POST /admin/v1/import, bcrypt hashes, each user with a grant on the organisation's
 * project), then `DELETE /management/v1/orgs/me`. Reported per store: the DELETE's answer time, the
 * removal's length (until its background worker has removed the last user: the `org_removals` row
 * is gone), and the latency of small authenticated GETs (`GET /management/v1/orgs/me` of the
 * default organisation) sent every 10 ms — for BENCH_BASELINE_S before, as the baseline, and during
 * the removal. Target: the GETs' p99 during the removal ≤ 100 ms on both stores. On a machine shared
 * with other work the baseline's p99 shows what the machine alone costs the GETs.
 *
 *   npm run bench:remove-org          (from the repo root)
 *
 * Environment: BENCH_USERS=100000, BENCH_STORES=sqlite,postgres, BENCH_GRANTS=1 (0: users only), BENCH_BASELINE_S=30,
 * BENCH_DEADLINE_S=1500 (the whole run is stopped past it), BENCH_KEEP=1 (keep the work folder).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type Child, freePort, startChild } from './support/children.js';
import { type BenchPostgres, startPostgres } from './support/postgres.js';
import { type ProbeLatencies, probeWhile } from './support/probes.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
// better-sqlite3 is the server's dependency: resolved from there.
const Database = createRequire(join(SERVER_DIR, 'package.json'))('better-sqlite3') as typeof import('better-sqlite3');
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
const GRANTS = process.env.BENCH_GRANTS !== '0';
const DEADLINE = Date.now() + Number(process.env.BENCH_DEADLINE_S ?? 1500) * 1000;
const PROBE_INTERVAL_MS = 10;
const BASELINE_MS = Number(process.env.BENCH_BASELINE_S ?? 30) * 1000;
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
const ORG_ID = '271828182845904523';
const PROJECT_ID = '271828182845904524';

function pastDeadline(what: string): void {
  if (Date.now() > DEADLINE) throw new Error(`deadline passed (BENCH_DEADLINE_S) while ${what}`);
}

const userId = (i: number) => `3${String(i).padStart(17, '0')}`;

/**
 * The organisation's users `from`…`to` as an import request, in pieces; the first also brings the
 * organisation (and the project their grants are on), the others import into it (SKIP).
 */
function* usersBody(from: number, to: number): Generator<string> {
  yield `{"timeout":"30m","conflictPolicy":"SKIP","dataOrgs":{"orgs":[{"orgId":"${ORG_ID}","org":{"name":"Removal bench"},`;
  if (GRANTS && from === 0) yield `"projects":[{"projectId":"${PROJECT_ID}","project":{"name":"portal"}}],"projectRoles":[{"projectId":"${PROJECT_ID}","roleKey":"reader","displayName":"Reader"}],`;
  yield '"humanUsers":[';
  for (let i = from; i < to; i += 1000) {
    const batch: string[] = [];
    for (let j = i; j < Math.min(to, i + 1000); j++) {
      batch.push(
        `{"userId":"${userId(j)}","user":{"userName":"user${j}","profile":{"firstName":"First${j}","lastName":"Last"},"email":{"email":"user${j}@example.com","isEmailVerified":true},"hashedPassword":{"value":"${BCRYPT}"}},"state":"USER_STATE_ACTIVE"}`,
      );
    }
    yield (i > from ? ',' : '') + batch.join(',');
  }
  yield ']}]}}';
}

/** A user grant for users `from`…`to`, into the organisation imported before (SKIP: it exists). */
function grantsBody(from: number, to: number): string {
  const grants: string[] = [];
  for (let j = from; j < to; j++) grants.push(`{"userId":"${userId(j)}","projectId":"${PROJECT_ID}","roleKeys":["reader"]}`);
  return `{"timeout":"30m","conflictPolicy":"SKIP","dataOrgs":{"orgs":[{"orgId":"${ORG_ID}","org":{"name":"Removal bench"},"userGrants":[${grants.join(',')}]}]}}`;
}

interface ImportAnswer {
  errors?: unknown[];
  success?: { orgs?: { humanUserIds?: string[]; userGrants?: unknown[] }[] };
}

/**
 * Users, and user grants, per import: 100,000 users in one organisation's document ran the import's
 * reader out of its heap here (IMPORT-r34d3r), and an organisation's lists other than its users are
 * held whole by it.
 */
const CHUNK = 20_000;

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
  idle: ProbeLatencies;
  during: ProbeLatencies;
}

async function runCase(store: 'sqlite' | 'postgres', postgres: BenchPostgres | undefined): Promise<Result> {
  const work = mkdtempSync(join(tmpdir(), 'identity-remove-org-'));
  const target = store === 'sqlite' ? join(work, 'identity.db') : await postgres!.createDatabase(`remove_org_${Date.now()}`);
  const port = await freePort();
  let server: Child | undefined;
  try {
    server = await startChild({
      args: [...(process.env.BENCH_NODE_ARGS?.split(' ') ?? []), 'dist/main.js'],
      cwd: SERVER_DIR,
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: work,
        DATABASE_URL: target,
        LOG_LEVEL: 'info',
        MAX_IMPORT_BODY_BYTES: String(512 * 1024 * 1024),
        ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
      },
      port,
      readyPath: '/readyz',
      logFile: join(work, 'server.log'),
    });
    const token = readFileSync(join(work, 'admin.pat'), 'utf8').trim();
    const auth = { authorization: `Bearer ${token}` };

    let started = performance.now();
    const importing = async (body: string, check: (answer: ImportAnswer) => boolean) => {
      const res = await fetch(`${server!.baseUrl}/admin/v1/import`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
      const answer = (await res.json()) as ImportAnswer;
      if (res.status !== 200 || answer.errors?.length || !check(answer)) throw new Error(`import answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    };
    for (let from = 0; from < USERS; from += CHUNK) {
      const to = Math.min(USERS, from + CHUNK);
      await importing([...usersBody(from, to)].join(''), (a) => a.success?.orgs?.[0]?.humanUserIds?.length === to - from);
      pastDeadline('importing the users');
    }
    for (let from = 0; GRANTS && from < USERS; from += CHUNK) {
      const to = Math.min(USERS, from + CHUNK);
      await importing(grantsBody(from, to), (a) => a.success?.orgs?.[0]?.userGrants?.length === to - from);
      pastDeadline('importing the grants');
    }
    const importSeconds = (performance.now() - started) / 1000;
    console.log(`  ${store}: imported ${USERS.toLocaleString('en')} users${GRANTS ? ' with a grant each' : ''} in ${importSeconds.toFixed(1)} s`);
    pastDeadline('importing');

    const probeUrl = `${server.baseUrl}/management/v1/orgs/me`;
    await fetch(probeUrl, { headers: auth }); // warm: authentication, routes
    const stopIdle = probeWhile(probeUrl, auth, PROBE_INTERVAL_MS);
    await new Promise((r) => setTimeout(r, BASELINE_MS));
    const idle = await stopIdle();

    const db = databaseProbe(store, target);
    try {
      const stopProbes = probeWhile(probeUrl, auth, PROBE_INTERVAL_MS);
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
    console.log(
      `| ${r.store} | ${f(r.importSeconds)} | ${f(r.deleteMs)} | ${f(r.removalSeconds)} | ${f(r.idle.p50)} / ${f(r.idle.p99)} / ${f(r.idle.max)} (${r.idle.count}) | ${f(r.during.p50)} / ${f(r.during.p99)} / ${f(r.during.max)} (${r.during.count}, ${r.during.failed}) |`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
