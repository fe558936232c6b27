/**
 * `npm run bench` on a fresh clone (issue 48.6): its `node20` target died when better-sqlite3 had no
 * build for that Node, after the other targets had run, and every figure measured before was lost.
 * Now a target that cannot run says why and is skipped, the others go on, and each row's figures are
 * printed as they are measured. Runs the real bench (bench/run.bench.ts) for one short
 * read on SQLite beside a `node20` that cannot run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteBuildFor } from '../../src/store/sqlite-native.js';
import { tempDir } from '../support/temp-dir.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** A Node of this machine of another ABI than this one, for which better-sqlite3 has no build (as on a fresh clone), if there is one. */
function nodeWithoutBuild(): string | undefined {
  for (const path of [join(REPO, 'node_modules/.bin/node'), '/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const abi = execFileSync(path, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
    if (abi !== process.versions.modules && !existsSync(sqliteBuildFor(join(REPO, 'node_modules'), abi))) return path;
  }
  return undefined;
}

async function runBench(node20: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.bench.ts'], {
    cwd: REPO,
    env: { ...process.env, BENCH_STORES: 'sqlite', BENCH_TARGETS: 'read,node20', BENCH_DURATION: '1', BENCH_WARMUP: '0', BENCH_CONNECTIONS: '2', BENCH_NODE20: node20 },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

const unbuilt = nodeWithoutBuild();
const cases = [
  { name: 'no Node at BENCH_NODE20', node20: () => join(tempDir('identity-bench-test-'), 'no-such-node'), reason: /no Node at \S+no-such-node \(BENCH_NODE20\)/ },
  ...(unbuilt
    ? [{ name: 'a Node better-sqlite3 has no build for', node20: () => unbuilt, reason: /better-sqlite3 has no build for Node v[\d.]+ \(.+\): run `.+ scripts\/sqlite-for-this-node\.mjs` once/ }]
    : []),
];

describe('npm run bench with a target that cannot run', () => {
  it.each(cases)(
    '$name: node20 is skipped with its reason, the read is measured and its figures printed as measured',
    async ({ node20, reason }) => {
      const { code, stdout, stderr } = await runBench(node20());
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      const skippedLine = /^ {2}target node20 skipped: (.*)$/m.exec(stdout);
      expect(skippedLine, stdout).not.toBeNull();
      expect(skippedLine![1]).toMatch(reason);
      // The read's row, printed with its figures before the table.
      const row = /^ {2}sqlite: GET \S+ \(auth \+ read\): \d+ req\/s, p50 [\d.]+ ms, p99 [\d.]+ ms(, server CPU \d+ µs\/req)?$/m.exec(stdout);
      expect(row, stdout).not.toBeNull();
      const table = stdout.indexOf('| target |');
      expect(table).toBeGreaterThan(row!.index);
      expect(stdout.slice(table)).toMatch(/\| GET \S+ \(auth \+ read\) \| sqlite \| [\d,]+ \|/);
      expect(stdout.slice(table)).toContain('skipped targets (they could not run):\n  node20: ');
    },
    120_000,
  );
});
