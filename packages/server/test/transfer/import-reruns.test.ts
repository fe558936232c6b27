/**
 * The store may run a transaction's function more than once: on PostgreSQL a group that fails is
 * rolled back and each of its transactions runs again alone (store/postgres-group-commit.ts), as does one chosen
 * as a deadlock's victim. An import's report (errors, warnings, what was imported) must then say
 * what the committed run did, once. Here every transaction of the import first runs and is rolled
 * back, then runs for good, on the real store of either dialect.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Store } from '../../src/store/store.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

class RolledBack extends Error {}

/** The store, but each transaction's function runs twice: first in a transaction rolled back. */
function runningEachTwice(store: Store): Store {
  return {
    ...store,
    transaction: async (fn, locks) => {
      await store
        .transaction(async (tx) => {
          await fn(tx);
          throw new RolledBack();
        }, locks)
        .catch((error) => {
          if (!(error instanceof RolledBack)) throw error;
        });
      return store.transaction(fn, locks);
    },
  };
}

describeEachStore('an import whose transactions run more than once', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  it('reports each error, warning and imported reference once', async () => {
    const app = createApp({ store: runningEachTwice(t.store), instanceId: t.instanceId });
    const human = (userId: string, userName: string) => ({ userId, user: { userName, profile: { firstName: 'F', lastName: 'L' }, email: { email: `${userId}@example.com` } } });
    const withProject = (id: string) => ({ projects: [{ projectId: `${id}-p`, project: { name: 'P' } }], projectRoles: [{ projectId: `${id}-p`, roleKey: 'r', displayName: 'R' }] });
    const orgs = [
      // Imported second (it names b1): a name taken twice, a grant to nobody here, a grant to b1.
      {
        orgId: 'rerun-a',
        org: { name: 'Rerun A' },
        ...withProject('rerun-a'),
        humanUsers: [human('a1', 'ann'), human('a2', 'ANN')],
        userGrants: [
          { userId: 'ghost', projectId: 'rerun-a-p', roleKeys: ['r'] },
          { userId: 'b1', projectId: 'rerun-a-p', roleKeys: ['r'] },
        ],
      },
      // Imported first; its grants to a1 (the second a duplicate) wait for A (importReferences, a transaction of their own).
      {
        orgId: 'rerun-b',
        org: { name: 'Rerun B' },
        ...withProject('rerun-b'),
        humanUsers: [human('b1', 'bob')],
        userGrants: [
          { userId: 'a1', projectId: 'rerun-b-p', roleKeys: ['r'] },
          { userId: 'a1', projectId: 'rerun-b-p', roleKeys: ['r'] },
        ],
        orgMembers: [{ userId: 'a1', roles: ['ORG_USER_MANAGER'] }],
      },
    ];
    const res = await app.request('/admin/v1/import', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: '1m', dataOrgs: { orgs } }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.errors).toEqual([
      expect.objectContaining({ type: 'human_user', id: 'a2', message: expect.stringContaining('COMMAND-k2unb') }),
      expect.objectContaining({ type: 'user_grant', id: 'rerun-b_rerun-b-p_a1', message: expect.stringContaining('UserGrant.AlreadyExists') }),
    ]);
    expect(body.warnings).toEqual([expect.objectContaining({ type: 'user', id: 'ghost', message: expect.stringContaining('1 grant(s)/membership(s)') })]);
    const success = Object.fromEntries(body.success.orgs.map((o: { orgId: string }) => [o.orgId, o]));
    expect(success['rerun-b']).toMatchObject({ humanUserIds: ['b1'], userGrants: [{ projectId: 'rerun-b-p', userId: 'a1' }], orgMembers: ['a1'] });
    expect(success['rerun-a']).toMatchObject({ humanUserIds: ['a1'], userGrants: [{ projectId: 'rerun-a-p', userId: 'b1' }] });
  });
});
