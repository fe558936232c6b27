/**
 * Drives every operation through the typed client against the real app, checks each response
 * against the hand-written spec, and fails when a documented operation × status pair was never
 * produced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.js';
import { unexercised, violations } from './support/ledger.js';
import { scenarioGroups } from './scenarios/index.js';
import { servedOutsideApi } from './support/spec.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness();
});
afterAll(() => harness.instance.close());

describe('scenarios', () => {
  for (const group of scenarioGroups) group(() => harness);
});

describe('the ledger', () => {
  it('every response matched the spec (status documented, content type, body)', () => {
    expect(violations).toEqual([]);
  });

  it('every documented operation × status was exercised (the OAuth ones: oauth.test.ts)', () => {
    expect(unexercised((op) => !servedOutsideApi(op.operation))).toEqual([]);
  });
});
