/**
 * The policy that applies to an organisation's users is its own, else the instance's, else the
 * built-in one (domain/policies/policy.ts `effectivePolicy`). It is read for every login page,
 * sign-in step and mail, so on PostgreSQL both owners are asked in one statement: one round trip,
 * where asking the organisation and then the instance took two (BENCHMARKS.md, "A sign-in's
 * round trips on PostgreSQL").
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockout } from '../../src/domain/policies/lockout.js';
import { effectivePolicy } from '../../src/domain/policies/policy.js';
import { pgColumns } from '../../src/store/columns.js';
import { postgresHotPath } from '../../src/store/postgres-hot-path.js';
import { createRepositories, type Repositories } from '../../src/store/repositories/index.js';
import { defineTables } from '../../src/store/schema.js';
import type { Db, Store } from '../../src/store/store.js';
import { type CountedPostgres, countedPostgres } from '../support/counted-postgres.js';
import { describeEachStore, openStoreForSuite } from '../support/instance.js';

const INSTANCE = '310000000000000001';
const ORG_WITH_OWN = '310000000000000002';
const ORG_WITHOUT = '310000000000000003';
const at = new Date('2026-05-06T07:08:09.000Z');

async function setLockout(store: Store, ownerId: string, maxPasswordAttempts: number): Promise<void> {
  await store.transaction((tx) => tx.policies.upsert({ ownerId, kind: 'lockout', settings: { maxPasswordAttempts, maxOtpAttempts: 0 }, sequence: 1, createdAt: at, changedAt: at }));
}

describeEachStore('the effective policy of an organisation', (dialect) => {
  let store: Store;
  openStoreForSuite(dialect, (s) => (store = s));

  it('is the built-in one while neither the organisation nor the instance has one', async () => {
    expect(await lockout.effective(store.read, INSTANCE, ORG_WITHOUT)).toEqual({ maxPasswordAttempts: 0, maxOtpAttempts: 0 });
  });

  it("is the instance's for an organisation without its own, and the organisation's own where it has one", async () => {
    await setLockout(store, INSTANCE, 5);
    expect(await lockout.effective(store.read, INSTANCE, ORG_WITHOUT)).toMatchObject({ maxPasswordAttempts: 5 });
    await setLockout(store, ORG_WITH_OWN, 3);
    expect(await lockout.effective(store.read, INSTANCE, ORG_WITH_OWN)).toMatchObject({ maxPasswordAttempts: 3 });
    // Another organisation's own policy is not this one's.
    expect(await lockout.effective(store.read, INSTANCE, ORG_WITHOUT)).toMatchObject({ maxPasswordAttempts: 5 });
    // Read inside a transaction as well (the password check reads it outside, the commands inside).
    expect(await store.transaction((tx) => lockout.effective(tx, INSTANCE, ORG_WITH_OWN))).toMatchObject({ maxPasswordAttempts: 3 });
  });

  it("is the instance's again once the organisation's own is removed", async () => {
    await store.transaction((tx) => tx.policies.remove(ORG_WITH_OWN, 'lockout'));
    expect(await lockout.effective(store.read, INSTANCE, ORG_WITH_OWN)).toMatchObject({ maxPasswordAttempts: 5 });
  });
});

describe('PostgreSQL: the effective policy in one round trip', () => {
  let db: CountedPostgres;
  let repos: Repositories;

  beforeAll(async () => {
    db = await countedPostgres();
    const tables = defineTables(pgColumns);
    repos = createRepositories(drizzle(db.client) as unknown as Db, tables, postgresHotPath(db.client));
  });
  afterAll(() => db.close());

  const counted = async <T>(fn: () => Promise<T>) => {
    const before = db.queries();
    const result = await fn();
    return { result, queries: db.queries() - before };
  };

  it("sends one query whether the organisation's own, the instance's or the built-in policy applies", async () => {
    const lockoutKind = { kind: 'lockout', builtIn: { maxPasswordAttempts: 0, maxOtpAttempts: 0 } };
    expect(await counted(() => effectivePolicy(lockoutKind, repos, INSTANCE, ORG_WITHOUT))).toEqual({ result: { maxPasswordAttempts: 0, maxOtpAttempts: 0 }, queries: 1 });
    await setLockout(db.store, INSTANCE, 5);
    expect(await counted(() => effectivePolicy(lockoutKind, repos, INSTANCE, ORG_WITHOUT))).toEqual({ result: { maxPasswordAttempts: 5, maxOtpAttempts: 0 }, queries: 1 });
    await setLockout(db.store, ORG_WITH_OWN, 3);
    expect(await counted(() => effectivePolicy(lockoutKind, repos, INSTANCE, ORG_WITH_OWN))).toEqual({ result: { maxPasswordAttempts: 3, maxOtpAttempts: 0 }, queries: 1 });
  });
});
