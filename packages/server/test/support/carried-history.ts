/**
 * What the tests of history carried through a move (test/transfer/transfer-history*.test.ts) share:
 * finding a secret in what travels or is read back, and a bad history refused before any write.
 */
import { expect } from 'vitest';
import { isSecretName } from '../../src/domain/events/redact.js';
import type { TestInstance } from './instance.js';

/** Every secret-named field with a value other than a flag, anywhere in `value`, by its path. */
export function secretFields(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => secretFields(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, inner]) => (isSecretName(name) && typeof inner !== 'boolean' ? [`${path}.${name}`] : secretFields(inner, `${path}.${name}`)));
}

/** Each document is a 400 whose message names its path, and the target's log holds no more events than before. */
export async function expectRefusedBeforeAnyWrite(target: TestInstance, cases: readonly (readonly [document: unknown, path: string])[]): Promise<void> {
  const count = async () => (await target.store.read.events.search({ limit: 100_000, offset: 0, asc: true })).events.length;
  const before = await count();
  for (const [bad, path] of cases) {
    const res = await target.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: bad } });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.message).toContain(path);
  }
  expect(await count()).toBe(before);
}
