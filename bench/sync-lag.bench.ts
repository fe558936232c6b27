/**
 * How far a target followed by `identity-transfer sync` trails its source (issue 51): two servers
 * as their own processes (the build, dist/main.js, as `npm start` runs it) on 127.0.0.1, an
 * organisation of BENCH_USERS users at the source copied to the target by the sync CLI (its own
 * process, bin/identity-transfer.mjs, as a person runs it), then the source takes BENCH_RATE writes
 * per second for BENCH_SECONDS: nine in ten change a user's first name to the write's number
 * (PUT …/profile), one in ten adds a user (POST …/human/_import, no password). Meanwhile the target
 * is read every BENCH_POLL_MS (its users, POST /management/v1/users/_search); a write is visible
 * when the target shows its number (or a later one) on that user, or the new user. Its lag: from
 * the source's answer to the write until the answer of the first read of the target that shows it
 * (so the lag includes up to one read's period and length: the resolution). Printed: p50, p95, p99
 * and max of the lags, per pair of stores.
 *
 *   npm run bench:sync-lag          (from the repo root)
 *
 * Environment: BENCH_PAIRS=sqlite:sqlite,postgres:postgres (source:target), BENCH_SECONDS=60,
 * BENCH_RATE=100, BENCH_USERS=200 (the users whose profiles change), BENCH_SYNC_INTERVAL (sync's
 * --interval; unset: the CLI's default), BENCH_POLL_MS=100, BENCH_KEEP=1 (keep the work folders).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, freePort, startChild } from './support/children.js';
import { type BenchPostgres, startPostgres } from './support/postgres.js';

type Store = 'sqlite' | 'postgres';
const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const CLI = join(HERE, '..', 'packages', 'client', 'bin', 'identity-transfer.mjs');
const PAIRS = (process.env.BENCH_PAIRS ?? 'sqlite:sqlite,postgres:postgres').split(',').map((p) => p.split(':') as [Store, Store]);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const USERS = Number(process.env.BENCH_USERS ?? 200);
const INTERVAL = process.env.BENCH_SYNC_INTERVAL;
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 100);
/** Writes under way at once at most: a source slower than the rate falls behind the schedule (reported), not into a pile of requests. */
const MAX_IN_FLIGHT = 20;
const ORG_ID = '314159265358979323';
const userId = (i: number) => `3141592653${String(i).padStart(8, '0')}`;

interface Server {
  child: Child;
  url: string;
  token: string;
  work: string;
}

async function startServer(store: Store, postgres: BenchPostgres | undefined, name: string): Promise<Server> {
  const work = mkdtempSync(join(tmpdir(), `identity-sync-lag-${name}-`));
  const database = store === 'sqlite' ? join(work, 'identity.db') : await postgres!.createDatabase(`sync_lag_${name}_${Date.now()}`);
  const port = await freePort();
  const child = await startChild({
    args: [...(process.env.BENCH_NODE_ARGS?.split(' ') ?? []), 'dist/main.js'],
    cwd: SERVER_DIR,
    env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: work, DATABASE_URL: database, LOG_LEVEL: 'warn', ENCRYPTION_KEY_FILE: join(work, 'encryption.key') },
    port,
    readyPath: '/readyz',
    logFile: join(work, 'server.log'),
  });
  return { child, url: child.baseUrl, token: readFileSync(join(work, 'admin.pat'), 'utf8').trim(), work };
}

async function call(s: Server, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(s.url + path, {
    method,
    headers: { authorization: `Bearer ${s.token}`, ...(path.startsWith('/management/') ? { 'x-zitadel-orgid': ORG_ID } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The organisation's users at the target: user name → first name (pages of 1,000). */
async function usersAt(s: Server): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  for (let offset = 0; ; offset += 1000) {
    const page = await call(s, 'POST', '/management/v1/users/_search', { query: { offset: String(offset), limit: 1000 } });
    for (const u of page.result ?? []) seen.set(u.userName, u.human?.profile?.firstName ?? '');
    if ((page.result ?? []).length < 1000) return seen;
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

interface Result {
  pair: string;
  writes: number;
  rate: number;
  lags: number[];
  unseen: number;
  rounds: number;
  /** The time from one applying round's end to the next's, sorted. */
  roundMs: number[];
}

async function runPair(from: Store, to: Store, postgres: BenchPostgres | undefined): Promise<Result> {
  const source = await startServer(from, postgres, 'source');
  const target = await startServer(to, postgres, 'target');
  let sync: ReturnType<typeof spawn> | undefined;
  try {
    const humans = Array.from({ length: USERS }, (_, i) => ({
      userId: userId(i),
      user: { userName: `p${i}`, profile: { firstName: 'w-1', lastName: 'Lag' }, email: { email: `p${i}@lag.example.com`, isEmailVerified: true } },
    }));
    await call(source, 'POST', '/admin/v1/import', { timeout: '5m', dataOrgs: { orgs: [{ orgId: ORG_ID, org: { name: 'Sync lag' }, humanUsers: humans }] } });

    const args = [
      'sync',
      '--from-url',
      source.url,
      '--from-token',
      source.token,
      '--to-url',
      target.url,
      '--to-token',
      target.token,
      '--org',
      ORG_ID,
      '--checkpoint',
      join(target.work, 'follow.json'),
    ];
    sync = spawn(process.execPath, [CLI, ...args, ...(INTERVAL ? ['--interval', INTERVAL] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    // When each round that applied something ended (its `checkpoint N` line): their spacing is the interval plus a round's work.
    let roundEnds: number[] = [];
    let syncErr = '';
    sync.stdout!.on('data', (d: Buffer) => {
      for (const _ of String(d).match(/^checkpoint \d+/gm) ?? []) roundEnds.push(performance.now());
    });
    sync.stderr!.on('data', (d: Buffer) => (syncErr += d));
    // The first copy: every user at the target.
    // (Until the first round has imported it, the target does not know the organisation: refused.)
    for (const started = Date.now(); ((await usersAt(target).catch(() => undefined))?.size ?? 0) < USERS; ) {
      if (Date.now() - started > 120_000) throw new Error(`first copy not done after 120 s: ${syncErr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    roundEnds = [];

    // Each write: what makes it visible at the target, and when the source answered it.
    const writes: { user: string; index: number; acked?: number; seen?: number }[] = [];
    let stopPolling = false;
    const polling = (async () => {
      for (;;) {
        const done = stopPolling;
        const seen = await usersAt(target);
        const now = performance.now();
        for (const w of writes) {
          if (w.seen !== undefined || w.acked === undefined) continue;
          const value = seen.get(w.user);
          if (value === undefined) continue;
          // A profile write is visible once the user shows its number or a later one (a later write on the same user supersedes it).
          if (w.user.startsWith('n') || Number(value.slice(1)) >= w.index) w.seen = now;
        }
        if (done) return;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();

    const started = performance.now();
    const total = Math.round(SECONDS * RATE);
    let inFlight = 0;
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      while (performance.now() < due || inFlight >= MAX_IN_FLIGHT) await new Promise((r) => setTimeout(r, Math.max(1, Math.min(5, due - performance.now()))));
      const newUser = i % 10 === 9;
      const write = { user: newUser ? `n${i}` : `p${i % USERS}`, index: i } as (typeof writes)[number];
      writes.push(write);
      inFlight++;
      const request = newUser
        ? call(source, 'POST', '/management/v1/users/human/_import', {
            userName: write.user,
            profile: { firstName: `w${i}`, lastName: 'Lag' },
            email: { email: `${write.user}@lag.example.com`, isEmailVerified: true },
          })
        : call(source, 'PUT', `/management/v1/users/${userId(i % USERS)}/profile`, { firstName: `w${i}`, lastName: 'Lag' });
      pending.push(request.then(() => void (write.acked = performance.now())).finally(() => inFlight--));
    }
    await Promise.all(pending);
    const rate = total / ((performance.now() - started) / 1000);
    // Until every write is seen at the target (at most 60 s more).
    for (const waitStart = Date.now(); writes.some((w) => w.seen === undefined) && Date.now() - waitStart < 60_000; ) await new Promise((r) => setTimeout(r, 200));
    stopPolling = true;
    await polling;
    if (syncErr) console.log(`  sync said: ${syncErr.trim().slice(0, 500)}`);
    return {
      pair: `${from} → ${to}`,
      writes: total,
      rate,
      rounds: roundEnds.length,
      roundMs: roundEnds
        .slice(1)
        .map((t, i) => t - roundEnds[i])
        .sort((a, b) => a - b),
      lags: writes
        .filter((w) => w.seen !== undefined)
        .map((w) => w.seen! - w.acked!)
        .sort((a, b) => a - b),
      unseen: writes.filter((w) => w.seen === undefined).length,
    };
  } finally {
    sync?.kill('SIGTERM');
    await source.child.stop();
    await target.child.stop();
    for (const s of [source, target]) {
      if (!process.env.BENCH_KEEP) rmSync(s.work, { recursive: true, force: true });
      else console.log(`  kept ${s.work}`);
    }
  }
}

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: SERVER_DIR, stdio: 'inherit' });
  const postgres = PAIRS.flat().includes('postgres') ? await startPostgres() : undefined;
  const results: Result[] = [];
  try {
    for (const [from, to] of PAIRS) {
      results.push(await runPair(from, to, postgres));
      const r = results.at(-1)!;
      console.log(`  ${r.pair}: ${r.writes} writes at ${r.rate.toFixed(1)}/s, ${r.rounds} sync rounds applied changes`);
    }
  } finally {
    await postgres?.stop();
  }
  const ms = (n: number) => Math.round(n).toLocaleString('en');
  console.log(
    `\n${SECONDS} s of ${RATE} writes/s at the source (9 in 10 profile changes of ${USERS} users, 1 in 10 new users); sync --interval ${INTERVAL ?? 'default (1s)'}; target read every ${POLL_MS} ms\n`,
  );
  console.log('| source → target | writes (rate/s) | lag p50 ms | p95 ms | p99 ms | max ms | not seen | rounds: end to end p50 / max ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(
      `| ${r.pair} | ${r.writes} (${r.rate.toFixed(1)}) | ${ms(percentile(r.lags, 50))} | ${ms(percentile(r.lags, 95))} | ${ms(percentile(r.lags, 99))} | ${ms(r.lags.at(-1) ?? NaN)} | ${r.unseen} | ${ms(percentile(r.roundMs, 50))} / ${ms(r.roundMs.at(-1) ?? NaN)} |`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
