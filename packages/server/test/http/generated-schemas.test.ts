/**
 * The server validates with schemas generated from openapi/ (scripts/generate-schemas.ts): a limit
 * changed in the spec is enforced once regenerated, and until then the check the server's tests
 * run first (`npm run check-generated`) fails. Proven on a copy of the spec with one limit changed.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/http/generated/operations.gen.js';
import { setDefaultVerifyEmailMessageText_Body as current } from '../../src/http/generated/schemas.gen.js';
import { routeConfig } from '../../src/http/operation.js';

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SPEC_DIR = resolve(PACKAGE, '../../openapi');
const SCRIPT = join(PACKAGE, 'scripts/generate-schemas.ts');
const TSX = join(PACKAGE, '../../node_modules/.bin/tsx');

// The changed spec lives in the system's temp folder; the regenerated module inside this package,
// where its `import 'zod'` resolves.
const specCopy = mkdtempSync(join(tmpdir(), 'spec-'));
const outDir = mkdtempSync(join(PACKAGE, '.generated-test-'));
afterAll(() => {
  rmSync(specCopy, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

cpSync(SPEC_DIR, specCopy, { recursive: true });
const textSchema = join(specCopy, 'components/schemas/SetMessageTextRequest.yaml');
const original = readFileSync(textSchema, 'utf8');
const changed = original.replace(/(\n  title:\n    type: string\n    maxLength: )200\n/, '$120\n');
writeFileSync(textSchema, changed);

const run = (args: string[]) => {
  try {
    execFileSync(TSX, [SCRIPT, ...args], { cwd: PACKAGE, encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stderr: string };
    return { code: failed.status, stderr: failed.stderr };
  }
};

describe('schemas generated from the spec', () => {
  it('a title of 21 characters is within the spec today', () => {
    expect(changed).not.toBe(original);
    expect(current.safeParse({ title: 'x'.repeat(21) }).success).toBe(true);
  });

  it('with the limit lowered to 20, the checked-in schemas are reported stale (the server tests fail)', () => {
    const result = run(['--check', '--spec', join(specCopy, 'identity.yaml')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not generated from the current spec: run `npm run generate`/);
    // The real spec: current.
    expect(run(['--check']).code).toBe(0);
  }, 60_000);

  it('regenerated, the operation validates with the new limit', async () => {
    expect(run(['--spec', join(specCopy, 'identity.yaml'), '--out', outDir]).code).toBe(0);
    const regenerated = await import(join(outDir, 'schemas.gen.ts'));
    const body = regenerated.setDefaultVerifyEmailMessageText_Body;
    expect(body.safeParse({ title: 'x'.repeat(20) }).success).toBe(true);
    const refused = body.safeParse({ title: 'x'.repeat(21) });
    expect(refused.success).toBe(false);
    expect(refused.error.issues[0]).toMatchObject({ code: 'too_big', maximum: 20, path: ['title'] });
  }, 60_000);

  it('the route of the operation validates its body with the generated schema', () => {
    const config = routeConfig('SetDefaultVerifyEmailMessageText');
    const media = config.request?.body?.content['application/json'];
    expect(media && 'schema' in media ? media.schema : undefined).toBe(current);
    expect(OPERATIONS.SetDefaultVerifyEmailMessageText.body.schema).toBe(current);
  });
});
