/**
 * No function outside declarations runs over about 150 lines (issue 50): a longer one is several
 * steps that want names of their own. Measured with the TypeScript compiler's own parse, every
 * function-like node with a body (declarations, expressions, arrows, methods, accessors,
 * constructors), from its first token to its closing brace, in the server's and the client's
 * src/. A nested function counts inside its outer one too.
 *
 * Not measured: generated code (http/generated/, the client's schema.d.ts and any other .d.ts) and
 * migrations, and the declarations named in DECLARATIONS (one function around data, say why).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 150;
const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ROOTS = ['server/src', 'client/src'].map((r) => join(PACKAGES, r));

/** Functions that are declarations, not steps: `file:name` → why it may be long. */
const DECLARATIONS: Record<string, string> = {
  // Every table of the schema, once, against the dialect's column factory (columns.ts): a list of
  // table declarations wrapped in a function only so each dialect gets its own column types.
  'server/src/store/schema.ts:defineTables': 'the table declarations',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' || name === 'migrations' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

interface LongFunction {
  where: string;
  name: string;
  lines: number;
}

/** The function's name as a reader finds it: its own, or the variable or property it is given to. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText(file);
  return '(anonymous)';
}

/** Function-like nodes of `path` longer than `max` lines. */
function longFunctions(path: string, max: number): LongFunction[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const where = relative(PACKAGES, path);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ where: `${where}:${first + 1}`, name: nameOf(node, file), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** `file:name`, the key of DECLARATIONS. */
const keyOf = (f: LongFunction) => `${f.where.replace(/:\d+$/, '')}:${f.name}`;
const long = ROOTS.flatMap(sources).flatMap((f) => longFunctions(f, MAX_LINES));

describe('function length', () => {
  it(`no function in server/src or client/src runs over ${MAX_LINES} lines (but the declarations named)`, () => {
    expect(long.filter((f) => !(keyOf(f) in DECLARATIONS)).map((f) => `${f.where} ${f.name}: ${f.lines} lines`)).toEqual([]);
  });

  it('the check measures: it finds the long declarations it lets pass (each still exists), and the pieces of a split function', () => {
    expect(Object.keys(DECLARATIONS).filter((key) => !long.some((f) => keyOf(f) === key))).toEqual([]);
    expect(longFunctions(join(PACKAGES, 'server/src/oidc/provider.ts'), 10).map((f) => f.name)).toContain('providerConfiguration');
  });
});
