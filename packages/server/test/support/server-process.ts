/**
 * The server as a user starts it: `src/main.ts` in a process of its own (through tsx), configured
 * by the environment. For tests of the process itself and of several processes on one database.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { tempDir } from './temp-dir.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');
const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Compiles the server to dist/ when a source is newer than the last build (what `npm start` does);
 * then `startServerProcess(env, { built: true })` runs dist/main.js, as `npm start` does, which
 * starts in a fraction of tsx's time (for tests that start and kill the server repeatedly).
 */
export function buildServer(): void {
  execFileSync(process.execPath, [join(PACKAGE, 'scripts/build.mjs'), '--if-changed'], { cwd: PACKAGE, stdio: 'pipe' });
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts main.ts with `env` over the test's own; resolves once it listens (its log says so).
 * `node`: the runtime to start it with (default: the one running the tests, the project's own);
 * `built`: run dist/main.js, as `npm start` does, instead of the sources.
 */
export function startServerProcess(env: Record<string, string>, options: { built?: boolean; node?: string } = {}): Promise<ServerProcess> {
  // The operator key beside the test's data, not in ./data of the package.
  const keyFile = join(env.ADMIN_PAT_FILE ? dirname(env.ADMIN_PAT_FILE) : tempDir('identity-proc-'), 'encryption.key');
  const child = spawn(options.node ?? process.execPath, options.built ? [join(PACKAGE, 'dist/main.js')] : ['--import', 'tsx', MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ENCRYPTION_KEY_FILE: keyFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"msg":"listening".*?"port":(\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]), output: () => out, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then((code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
}

export async function stopServerProcess(server: ServerProcess): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

/**
 * Starts main.ts on a port chosen beforehand, with EXTERNAL_URL (its issuer) naming it: a sign-in
 * then runs wholly in the process it began in. The port was free a moment ago; should another
 * program take it meanwhile, the start is tried again on another.
 */
export async function startServerProcessWithIssuer(env: Record<string, string>): Promise<{ server: ServerProcess; base: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    try {
      return { server: await startServerProcess({ ...env, PORT: String(port), EXTERNAL_URL: base }), base };
    } catch (error) {
      if (attempt < 3 && /EADDRINUSE/.test((error as Error).message)) continue;
      throw error;
    }
  }
}
