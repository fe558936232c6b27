/**
 * Worker threads of the service's own modules (password checks, an import's document reader):
 * started the same way from the sources and from the build, and run at a lower priority than
 * the thread that answers requests.
 */
import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker running the module `name` (without extension) beside `base` (the caller's
 * `import.meta.url`). Compiled: the .js file. From source (tests, `tsx`), a worker's own module
 * loader knows no TypeScript (`--import` in a worker's execArgv does not reach its entry point), so a
 * small script registers tsx's loader in the worker first and then imports the .ts module.
 */
export function startModuleWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), options);
  // tsx's ESM API (its package exports map `tsx/esm/api` to this file for `import`).
  const tsxApi = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  const entry = new URL(`./${name}.ts`, base).href;
  // Without tsx's disk cache: it would make a folder under the worker's os.tmpdir(), where an
  // import's spool goes (and a test looks for what an import leaves behind). The worker starts with
  // a copy of this thread's environment (node's default); the switch is set in that copy, before
  // tsx loads, so no module but config.ts reads this process's environment.
  const script = `process.env.TSX_DISABLE_CACHE = '1'; import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(script, { ...options, eval: true });
}

/**
 * Lowers the calling thread's priority (nice `niceness`): work in a worker must not take its core
 * from the event loop that answers everyone else. On Linux a thread's id is a valid target of
 * setpriority, so only this thread is lowered. Elsewhere (no /proc/thread-self) nothing changes.
 */
export function lowerThisThreadsPriority(niceness: number): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), niceness);
  } catch {
    // not Linux, or not allowed: the work still runs, at normal priority
  }
}
