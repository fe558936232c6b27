/**
 * Reads made in parallel inside a transaction (domain code's `Promise.all`, e.g. a user's login-name
 * rules: the domain policy, the organisation, its domains). On PostgreSQL they share one connection:
 * node-postgres 8 queued them itself and warned in the service's log that pg 9 will not; the store
 * now sends them one at a time (src/store/postgres-serial-queries.ts). Each file runs in its own
 * process, and pg warns once per process, so the warning is looked for here before anything else.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { loginNameRules } from '../../src/domain/users/login-names.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('reads in parallel inside a transaction', (dialect) => {
  let t: TestInstance;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  /** The warnings of this test, after those emitted on a later tick (process.emitWarning) have arrived. */
  const warned = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return warnings.map((w) => `${w.name}: ${w.message}`);
  };

  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });

  it('all answer, with nothing for node-postgres to warn about', async () => {
    const [rules, again, org, sameOrg, missing] = await t.store.transaction((tx) =>
      Promise.all([
        loginNameRules(tx, t.instanceId, t.defaultOrgId),
        loginNameRules(tx, t.instanceId, t.defaultOrgId),
        tx.orgs.get(t.defaultOrgId),
        tx.orgs.get(t.defaultOrgId),
        tx.orgs.get('no-such-org'),
      ]),
    );
    expect(org?.id).toBe(t.defaultOrgId);
    expect(sameOrg).toEqual(org);
    expect(missing).toBeUndefined();
    expect(rules.primaryDomain).toBe(org?.primaryDomain);
    expect(again).toEqual(rules);
    expect(await warned()).toEqual([]);
  });

  it('a write left behind by a refusal is rolled back with its transaction, never run after it', async () => {
    const before = await t.store.read.orgs.get(t.defaultOrgId);
    expect(before?.state).toBe('ORG_STATE_ACTIVE');
    const refusal = new Error('refused while the others were still on their way');
    await expect(
      t.store.transaction((tx) =>
        Promise.all([
          tx.orgs.get(t.defaultOrgId),
          tx.orgs.get(t.defaultOrgId),
          tx.orgs.setState(t.defaultOrgId, 'ORG_STATE_INACTIVE', (before?.sequence ?? 0) + 1, new Date()),
          Promise.reject(refusal),
        ]),
      ),
    ).rejects.toBe(refusal);
    // The next transaction on the store sees the organisation as it was, and works.
    const after = await t.store.transaction((tx) => tx.orgs.get(t.defaultOrgId));
    expect(after).toEqual(before);
    expect(await t.store.read.orgs.get(t.defaultOrgId)).toEqual(before);
    expect(await warned()).toEqual([]);
  });
});
