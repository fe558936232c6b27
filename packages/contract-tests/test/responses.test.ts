/**
 * Drives every operation through the typed client against the real app, checks each response
 * against the hand-written spec, and fails when a documented operation × status pair was never
 * produced.
 */

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioGroups } from './scenarios/index.js';
import { createHarness, type Harness } from './support/harness.js';
import { unexercised, violations } from './support/ledger.js';
import { servedOutsideApi } from './support/spec.js';

let harness: Harness;
// Answers every organisation-domain challenge with its token; the domain 127.0.0.1 reaches it.
const challenges = createServer((req, res) => res.end(/^\/\.well-known\/zitadel-challenge\/(.+)\.txt$/.exec(req.url ?? '')?.[1] ?? ''));
beforeAll(async () => {
  challenges.listen(0, '127.0.0.1');
  await once(challenges, 'listening');
  harness = await createHarness({ domainChecks: { scheme: 'http', port: (challenges.address() as AddressInfo).port } });
});
afterAll(async () => {
  await harness.instance.close();
  await new Promise((r) => challenges.close(r));
});

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
