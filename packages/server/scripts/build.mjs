// The server's build: tsc into dist/, the SQL migrations copied beside the compiled store, and a
// stamp whose time is when the build started.
//
// `--if-changed` (what `npm start` runs) compiles only when an input is newer than the stamp. tsc's
// own incremental mode still loads and checks the whole program to find that nothing changed (about
// 7 s of CPU, 12–20 s on a 2-core machine, on every start); comparing file times takes milliseconds.
// A checkout or an edit gives a file a new time, so any change to the sources, the migrations or
// the build settings rebuilds.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
const INPUTS = ['src', 'tsconfig.build.json', 'tsconfig.json', '../../tsconfig.base.json', 'package.json', 'scripts/build.mjs'];

function newest(path) {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), info.mtimeMs);
}

if (process.argv.includes('--if-changed')) {
  const built = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (Math.max(...INPUTS.map((p) => newest(join(root, p)))) < built) process.exit(0);
  process.stdout.write('building the server: its sources changed since the last build\n');
}

// Taken before compiling: a file saved while tsc runs is newer than the stamp and rebuilds next time.
const started = new Date();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
} catch {
  process.exit(1); // tsc printed the errors
}
// tsc copies only what is imported: the compiled server applies the same SQL migrations as the sources.
const migrations = join(root, 'dist', 'store', 'migrations');
rmSync(migrations, { recursive: true, force: true });
cpSync(join(root, 'src', 'store', 'migrations'), migrations, { recursive: true });
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
