import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataOrg } from '../../src/domain/transfer/document.js';
import { importedLater, outlineOf, planImport, userKey } from '../../src/domain/transfer/import/order.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const org = (id: string, users: string[], grantsTo: string[] = []) =>
  ({
    orgId: id,
    org: { name: `Org ${id}` },
    humanUsers: users.map((u) => ({ userId: u, user: { userName: u, profile: { firstName: 'F', lastName: 'L' }, email: { email: `${u}@example.com` } } })),
    projects: grantsTo.length ? [{ projectId: `${id}-p`, project: { name: 'P' } }] : undefined,
    projectRoles: grantsTo.length ? [{ projectId: `${id}-p`, roleKey: 'r', displayName: 'R' }] : undefined,
    userGrants: grantsTo.map((u) => ({ userId: u, projectId: `${id}-p`, roleKeys: ['r'] })),
  }) as unknown as DataOrg;

const importOrder = (orgs: DataOrg[]) => planImport(orgs.map(outlineOf)).order.map((i) => orgs[i]);
/** For each organisation in import order: whether a user id is of an organisation after it. */
const usersImportedLater = (ordered: DataOrg[]) => {
  const plan = planImport(ordered.map(outlineOf));
  expect(plan.order).toEqual(ordered.map((_, i) => i));
  return ordered.map((_, position) => importedLater(plan, position));
};

describe('importOrder', () => {
  it('puts the organisation of a referenced user first, otherwise keeps document order', () => {
    const ids = (orgs: DataOrg[]) => importOrder(orgs).map((o) => o.orgId);
    expect(ids([org('a', ['a1']), org('b', ['b1'])])).toEqual(['a', 'b']);
    expect(ids([org('a', ['a1'], ['b1']), org('b', ['b1'])])).toEqual(['b', 'a']);
    expect(ids([org('a', ['a1'], ['c1']), org('b', ['b1']), org('c', ['c1'], ['b1'])])).toEqual(['b', 'c', 'a']);
    // Both ways: one direction can be served (b's users exist when a imports).
    expect(ids([org('a', ['a1'], ['b1']), org('b', ['b1'], ['a1'])])).toEqual(['b', 'a']);
  });
});

describe('import order at scale', () => {
  it('a chain of 20,000 organisations, each naming a user of the next, is ordered without running out of stack', () => {
    const orgs = Array.from({ length: 20_000 }, (_, i) => org(`c${i}`, [`c${i}-u`], i + 1 < 20_000 ? [`c${i + 1}-u`] : []));
    const order = importOrder(orgs).map((o) => o.orgId);
    expect(order[0]).toBe('c19999');
    expect(order.at(-1)).toBe('c0');
  });

  it('ids of every shape are keyed alike in every thread; ids that share a key only defer a reference, never lose it', () => {
    expect(userKey('219387465738291028')).toBe(userKey('219387465738291028'));
    expect(userKey('auth0|5f7c8ec7c33c6c004bbafe82')).not.toBe(userKey('auth0|5f7c8ec7c33c6c004bbafe83'));
    // Two different ids with one key (FNV-1a 32): the earlier organisation defers references to either.
    const [x, y] = ['costarring', 'liquid'];
    expect(userKey(x)).toBe(userKey(y));
    const later = usersImportedLater([org('first', ['f1']), org('second', [x])]);
    expect(later[0](x)).toBe(true);
    expect(later[0](y)).toBe(true);
    expect(later[0]('f1')).toBe(false);
  });
});

describe('usersImportedLater', () => {
  it('names, for each organisation in import order, the users of the organisations after it', () => {
    const later = usersImportedLater([org('b', ['b1', 'b2']), org('a', ['a1']), org('c', [])]);
    expect(['a1', 'b1', 'b2', 'unknown'].filter(later[0])).toEqual(['a1']);
    expect(['a1', 'b1', 'b2', 'unknown'].filter(later[1])).toEqual([]);
    expect(['a1', 'b1', 'b2', 'unknown'].filter(later[2])).toEqual([]);
  });
});

describeEachStore('import: grants to users of a later organisation in the same document', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  it('are imported, with no "user not found" error', async () => {
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: { orgs: [org('x-shop', ['x-owner'], ['y-customer']), org('y-partner', ['y-customer'])] } } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.errors ?? []).toEqual([]);
    const grants = await t.call('POST', '/management/v1/users/grants/_search', { headers: { 'x-service-orgid': 'x-shop' }, body: { queries: [{ userIdQuery: { userId: 'y-customer' } }] } });
    expect((await grants.json()).result.map((g: { projectId: string }) => g.projectId)).toEqual(['x-shop-p']);
  });
  it('both ways: each organisation grants to users of the other, and every grant and membership is imported', async () => {
    const x = org('both-x', ['x-user'], ['y-user']);
    const y = org('both-y', ['y-user'], ['x-user']);
    (x as unknown as Record<string, unknown>).orgMembers = [{ userId: 'y-user', roles: ['ORG_USER_MANAGER'] }];
    (y as unknown as Record<string, unknown>).orgMembers = [{ userId: 'x-user', roles: ['ORG_USER_MANAGER'] }];
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: { orgs: [x, y] } } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.errors ?? []).toEqual([]);
    const success = Object.fromEntries(body.success.orgs.map((o: { orgId: string }) => [o.orgId, o]));
    expect(success['both-x']).toMatchObject({ userGrants: [{ projectId: 'both-x-p', userId: 'y-user' }], orgMembers: ['y-user'] });
    expect(success['both-y']).toMatchObject({ userGrants: [{ projectId: 'both-y-p', userId: 'x-user' }], orgMembers: ['x-user'] });
    for (const [orgId, userId, projectId] of [
      ['both-x', 'y-user', 'both-x-p'],
      ['both-y', 'x-user', 'both-y-p'],
    ]) {
      const grants = await t.call('POST', '/management/v1/users/grants/_search', { headers: { 'x-service-orgid': orgId }, body: { queries: [{ userIdQuery: { userId } }] } });
      expect((await grants.json()).result.map((g: { projectId: string }) => g.projectId)).toEqual([projectId]);
    }

    // A second run finds everything there: reported as existing, nothing added.
    const again = await (await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: { orgs: [x, y] } } })).json();
    expect(again.errors.filter((e: { type: string }) => e.type === 'user_grant').map((e: { message: string }) => e.message)).toEqual([
      expect.stringContaining('AlreadyExists'),
      expect.stringContaining('AlreadyExists'),
    ]);
  });
});
