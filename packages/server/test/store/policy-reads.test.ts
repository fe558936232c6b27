/**
 * The store keeps its reads of the policy that applies (src/store/policy-reads.ts): a change
 * committed through this store is read at once, another process's (a second store on the same
 * database) within the TTL, and what a caller does to the row it got is not what the next reads.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { POLICY_READS_TTL_MS } from '../../src/store/policy-reads.js';
import type { PolicyRow } from '../../src/store/repositories/policies.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const KIND = 'lockout';

describeEachStore('kept policy reads', (dialect) => {
  let t: TestInstance;
  let other: Store;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    other = await openStore(t.location);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const row = (ownerId: string, maxPasswordAttempts: number): PolicyRow => ({
    ownerId,
    kind: KIND,
    settings: { maxPasswordAttempts },
    sequence: maxPasswordAttempts,
    createdAt: new Date(),
    changedAt: new Date(),
  });
  const attempts = async (orgId: string) => ((await t.store.read.policies.firstOf(orgId, t.instanceId, KIND))?.settings as { maxPasswordAttempts?: number } | undefined)?.maxPasswordAttempts;

  it('reads a change committed through the store at once, the organisation’s own before the instance’s', async () => {
    await t.store.transaction((tx) => tx.policies.upsert(row(t.instanceId, 3)));
    expect(await attempts('org-a')).toBe(3);
    await t.store.transaction((tx) => tx.policies.upsert(row('org-a', 5)));
    expect(await attempts('org-a')).toBe(5);
    await t.store.transaction((tx) => tx.policies.remove('org-a', KIND));
    expect(await attempts('org-a')).toBe(3);
  });

  it('reads another process’s change within the TTL, not at once', async () => {
    expect(await attempts('org-b')).toBe(3);
    await other.transaction((tx) => tx.policies.upsert(row('org-b', 7)));
    expect(await attempts('org-b')).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, POLICY_READS_TTL_MS + 50));
    expect(await attempts('org-b')).toBe(7);
  });

  it('hands out copies: a caller changing its row changes nothing the next one reads', async () => {
    const first = await t.store.read.policies.firstOf('org-b', t.instanceId, KIND);
    (first!.settings as { maxPasswordAttempts: number }).maxPasswordAttempts = 99;
    expect(await attempts('org-b')).toBe(7);
  });
});
