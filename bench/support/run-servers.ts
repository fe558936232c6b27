/**
 * The processes of one `npm run bench` run: the service (src/main.ts) on a store, and the helper
 * servers it is compared with (bench/*-server.ts, the bare oidc-provider), each its own process on
 * 127.0.0.1 with its log in the run's temp folder. Every process started is stopped at the end
 * (stopAll), the temp folder removed unless BENCH_KEEP or a failure asks to keep it (cleanup).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, freePort, startChild } from './children.js';
import { type BenchPostgres, startPostgres } from './postgres.js';
import { BENCH_DIR, logLevel, REPO, SERVER_DIR, serverNodeArgs } from './run-settings.js';

/** The run's temp folder: databases, PAT files, every process's log. */
export const work = mkdtempSync(join(tmpdir(), 'identity-bench-'));
const children: Child[] = [];
let postgres: BenchPostgres | undefined;

/** The PostgreSQL every `postgres` service of the run gets a fresh database of. */
export async function startRunPostgres(): Promise<void> {
  postgres = await startPostgres();
}

export interface HelperOptions {
  /** The log's file name in the run's folder. */
  log: string;
  env?: Record<string, string>;
  readyPath?: string;
  /** Node flags before the script (BENCH_NODE_ARGS for the helpers a profile should see beside the service). */
  nodeArgs?: string[];
}

/** One of bench/'s own servers (`file`, e.g. bare-server.ts) as its own process, on a free port, stopped with the others at the end. */
export async function startHelper(file: string, { log, env = {}, readyPath = '/', nodeArgs = [] }: HelperOptions): Promise<Child> {
  const port = await freePort();
  const child = await startChild({
    args: [...nodeArgs, '--import', 'tsx', join(BENCH_DIR, file)],
    cwd: REPO,
    env: { PORT: String(port), ...env },
    port,
    readyPath,
    logFile: join(work, log),
  });
  children.push(child);
  return child;
}

/** The service (src/main.ts) as its own process on `databaseUrl`, stopped with the others at the end. */
export async function startServer(databaseUrl: string, patFile: string, logName: string, node?: string, serverDir = SERVER_DIR, env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const child = await startChild({
    node,
    args: [...serverNodeArgs, '--import', 'tsx', 'src/main.ts'],
    cwd: serverDir,
    env: { PORT: String(port), HOST: '127.0.0.1', EXTERNAL_URL: `http://127.0.0.1:${port}`, DATABASE_URL: databaseUrl, ADMIN_PAT_FILE: patFile, LOG_LEVEL: logLevel, ...env },
    port,
    readyPath: '/readyz',
    logFile: join(work, logName),
  });
  children.push(child);
  return child;
}

/** The headers of a JSON request with the PAT an admin bootstrapped into `patFile`. */
export function patHeaders(patFile: string): Record<string, string> {
  return { authorization: `Bearer ${readFileSync(patFile, 'utf8').trim()}`, 'content-type': 'application/json' };
}

/** The service on one store, with its admin's PAT. */
export interface Service {
  store: string;
  /** A BENCH_VARIANTS build's name; none for this checkout's server. */
  variant?: string;
  child: Child;
  databaseUrl: string;
  patFile: string;
  headers: Record<string, string>;
}

export async function startService(store: string, serverDir = SERVER_DIR, name = store, env: Record<string, string> = {}): Promise<Service> {
  const dir = join(work, name);
  const patFile = join(dir, 'admin.pat');
  const databaseUrl = store === 'postgres' ? await postgres!.createDatabase(`bench_${Date.now()}`) : join(dir, 'identity.db');
  const child = await startServer(databaseUrl, patFile, `server-${name}.log`, undefined, serverDir, env);
  return { store, child, databaseUrl, patFile, headers: patHeaders(patFile) };
}

/** Stops every process started so far (once the measurements are done). */
export async function stopAll(): Promise<void> {
  for (const child of children) await child.stop();
}

/** Whatever happened: every process stopped, the temp folder removed unless BENCH_KEEP or a failure keeps it. */
export async function cleanup(): Promise<void> {
  for (const child of children) await child.stop().catch(() => undefined);
  if (postgres) await postgres.stop().catch(() => undefined);
  if (process.env.BENCH_KEEP || process.exitCode) process.stdout.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
