/**
 * A user's clone has nothing beside it: no test and no source may read a file outside the
 * repository (the CI checkout has a `shared/` folder next to it, which hid this once).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts|js|mjs|cjs|json|sh)$/.test(name)) out.push(path);
  }
  return out;
}

describe('the repository is self-contained', () => {
  it('no source, test or script names a path outside the repository', () => {
    const files = [...sourceFiles(join(root, 'packages')), ...sourceFiles(join(root, 'bench'))];
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.filter((file) => /(\.\.\/)+shared\//.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
