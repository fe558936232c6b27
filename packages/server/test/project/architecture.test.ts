/**
 * The layering ARCHITECTURE.md describes (issue 32). The layers themselves — oidc/ and ui/ import nothing
 * from http/, http/ reaches the store only through the domain (type imports of store/store.ts
 * excepted), the domain knows no HTTP or SQL, no import circle anywhere — are stated as
 * dependency-cruiser rules in `.dependency-cruiser.cjs` and checked by `npm run lint`, the first step
 * of `npm test` (issue 50). Here what those rules cannot see: which names http/ takes from the store
 * (the type `Store` only), and that no API schema is written by hand.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

interface Import {
  target: string;
  typeOnly: boolean;
  names: string;
}

/** Relative imports of a file, resolved to source paths under src/. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:([^'"]*?)\s+from\s+)?'(\.[^']+)'/gms)) {
    const target = resolve(dirname(file), m[3]).replace(/\.js$/, '.ts');
    found.push({ target, typeOnly: Boolean(m[1]), names: m[2] ?? '' });
  }
  return found;
}

const rel = (path: string) => relative(SRC, path);
const files = sources(SRC);

describe('layering', () => {
  it('no file under http/ imports a store/ value or a repository (only the Store type)', () => {
    const offending = files
      .filter((f) => rel(f).startsWith('http/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => rel(i.target).startsWith('store/'))
          .filter((i) => !(i.typeOnly && rel(i.target) === 'store/store.ts' && /^\{\s*Store\s*\}$/.test(i.names.trim())))
          .map((i) => `${rel(f)} → ${rel(i.target)} (${i.names.trim()})`),
      );
    expect(offending).toEqual([]);
  });

  it('no API schema is written by hand: routes are declared by operationId, validators come from generated/', () => {
    const offending = files
      .filter((f) => rel(f).startsWith('http/') && !rel(f).startsWith('http/generated/'))
      .flatMap((f) => {
        const text = readFileSync(f, 'utf8');
        return [
          /\bcreateRoute\(/.test(text) ? `${rel(f)} uses createRoute` : '',
          /\bz\.(object|string|array|enum|union|number)\(/.test(text) ? `${rel(f)} builds a zod schema` : '',
          ...importsOf(f)
            .filter((i) => rel(i.target).startsWith('http/schemas/'))
            .map((i) => `${rel(f)} → ${rel(i.target)}`),
        ].filter(Boolean);
      });
    expect(offending).toEqual([]);
  });

  it('the check sees imports at all (a file known to import one)', () => {
    expect(importsOf(join(SRC, 'http/routes/oidc-ui.ts')).map((i) => rel(i.target))).toContain('http/routes/login-flow.ts');
  });
});
