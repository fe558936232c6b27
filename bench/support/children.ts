/** Child processes on loopback: a free port, start, wait until answering, stop. */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const HOST = '127.0.0.1';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface Child {
  proc: ChildProcess;
  baseUrl: string;
  /** CPU seconds (user + system) the process has used so far; undefined where /proc is missing. */
  cpuSeconds: () => number | undefined;
  /** SIGTERM, then wait for the exit (a --cpu-prof profile is written on exit). */
  stop: () => Promise<void>;
}

export interface StartOptions {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
  /** Path that answers 2xx once the process is ready. */
  readyPath: string;
  /** stdout and stderr go to this file: the server's log is part of its cost, a pipe nobody reads would block it. */
  logFile: string;
  /** The Node binary to run (default: the one running the bench, the project's own). */
  node?: string;
}

export async function startChild(opts: StartOptions): Promise<Child> {
  const out = openSync(opts.logFile, 'a');
  const proc = spawn(opts.node ?? process.execPath, opts.args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', out, out],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const baseUrl = `http://${HOST}:${opts.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(r, 100, 'running'))]);
    if (early !== 'running') throw new Error(`child exited with ${String(early)} before it was ready; see ${opts.logFile}`);
    try {
      const res = await fetch(baseUrl + opts.readyPath);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`child not ready after 60 s; see ${opts.logFile}`);
    }
  }
  return {
    proc,
    baseUrl,
    cpuSeconds: () => cpuSeconds(proc.pid),
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Linux: utime + stime from /proc/<pid>/stat, in clock ticks of 1/100 s (USER_HZ on Linux). */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which is in parentheses and may contain spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
