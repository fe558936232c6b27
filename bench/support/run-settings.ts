/**
 * The settings of one `npm run bench` run (bench/run.bench.ts), read from the environment once:
 * how long and how wide each measurement is, which stores and which targets, and how the servers
 * are started. The environment variables are listed in bench/run.bench.ts.
 */
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadSettings } from './load.js';

/** bench/: the helper servers (bare-server.ts, floor-server.ts, …) are started from here. */
export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = join(BENCH_DIR, '..');
/** Another checkout's packages/server can be measured against this one (A/B of a change). */
export const SERVER_DIR = process.env.BENCH_SERVER_DIR || join(REPO, 'packages', 'server');

/** A non-negative number from the environment, or `fallback` when unset. */
export const int = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
  return n;
};

export const settings: LoadSettings = {
  connections: int('BENCH_CONNECTIONS', 50),
  duration: int('BENCH_DURATION', 10),
  warmup: int('BENCH_WARMUP', 2),
};
export const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
export const targets = new Set((process.env.BENCH_TARGETS ?? 'bare,floor,bounds,write,write2,read,tokens,oauth,jwtprofile,rpc,grants,signin,node20').split(',').map((s) => s.trim()));
export const logLevel = process.env.BENCH_LOG_LEVEL || 'warn';
export const serverNodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown';
  return `${cpus().length} CPUs (${cpu}), Node ${process.version}`;
}
