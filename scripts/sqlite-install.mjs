#!/usr/bin/env node
/**
 * `npm ci`'s build of better-sqlite3 (the root `prepare`, before the server is compiled): for the
 * Node that runs npm's scripts, which is the Node `npm start` and `npm test` run on
 * (docs/runtime.md). better-sqlite3's own install script is not run (package.json `allowScripts`): it
 * would compile against whatever `nodedir` the machine configures. Kept when it already runs here
 * (an npm that ran the package's script anyway, or a second `npm install`).
 */
import { buildIn, packageDir, runsHere } from './better-sqlite3.mjs';

const before = runsHere();
if (before.ok) {
  console.log(`better-sqlite3 runs on Node ${process.version} (ABI ${process.versions.modules}): kept`);
  process.exit(0);
}
const how = buildIn(packageDir);
const after = runsHere();
if (!after.ok) {
  console.error(`better-sqlite3 ${how} for Node ${process.version} does not load: ${after.error}`);
  process.exit(1);
}
console.log(`better-sqlite3 ${how} for Node ${process.version} (ABI ${process.versions.modules})`);
