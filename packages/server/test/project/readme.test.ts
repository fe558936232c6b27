/**
 * What the docs say about ZITADEL's clients holds (issue 48.7): the AuthService RPCs the clients guide
 * (docs/clients.md, the README's section before issue 50 split it into guides) lists are those offered,
 * and the install line of its @zitadel/node example names every package the example needs, including
 * what @zitadel/node's own code imports without declaring it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rpcTable } from '../../src/rpc/offered-rpcs.js';

const CLIENTS_GUIDE = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../../docs/clients.md'), 'utf8');
const require = createRequire(import.meta.url);

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Every bare specifier the .js files under `dir` import or require. */
function importsUnder(dir: string): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const code = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const [, specifier] of code.matchAll(/(?:from\s+|require\(\s*|import\(\s*)["']([^"'.][^"']*)["']/g)) found.add(specifier);
  }
  return found;
}

describe('the clients guide on ZITADEL clients', () => {
  it('lists the AuthService RPCs that are offered', () => {
    const offered = rpcTable()
      .filter((entry) => entry.service.typeName === 'zitadel.auth.v1.AuthService' && entry.twin)
      .map((entry) => entry.method.name)
      .sort();
    expect(offered.length).toBeGreaterThan(0);
    const listed = /`zitadel\.auth\.v1\.AuthService` \(([^)]*)\)/.exec(CLIENTS_GUIDE);
    expect(listed, 'the clients guide names AuthService with its RPCs in parentheses').not.toBeNull();
    expect(
      [...listed![1].matchAll(/\b[A-Z][A-Za-z]+\b/g)]
        .map(([name]) => name)
        .filter((name) => name !== 'OTP')
        .sort(),
    ).toEqual(offered);
  });

  it("the @zitadel/node example's install line names what the example and the SDK's code import", () => {
    const example = /With ZITADEL's Node SDK[\s\S]*?```sh\n(npm install [^\n]+)\n```\s*\n```js\n([\s\S]*?)```/.exec(CLIENTS_GUIDE);
    expect(example, 'an `npm install …` block right before the example').not.toBeNull();
    const installed = example![1]
      .split(/\s+/)
      .slice(2)
      .map((arg) => arg.replace(/(.)@[^@/]*$/, '$1'));
    const exampleImports = [...example![2].matchAll(/from '([^']+)'/g)].map(([, specifier]) => packageOf(specifier));

    // What @zitadel/node's code imports but its package.json does not declare: npm installs it only by luck.
    const sdkDir = dirname(require.resolve('@zitadel/node/package.json'));
    const sdk = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
    const declared = new Set([...Object.keys(sdk.dependencies ?? {}), ...Object.keys(sdk.peerDependencies ?? {})]);
    const undeclared = [...new Set([...importsUnder(join(sdkDir, 'dist'))].map(packageOf))].filter(
      (name) => !declared.has(name) && !builtinModules.includes(name.replace(/^node:/, '')) && name !== '@zitadel/node',
    );
    expect(undeclared).toContain('@bufbuild/protobuf');
    for (const name of new Set([...exampleImports, ...undeclared])) expect(installed, name).toContain(name);
    // @zitadel/node imports `@bufbuild/protobuf/wire`, which version 2 has.
    expect(example![1]).toContain('@bufbuild/protobuf@2');
  });
});
