import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOrder } from '../src/domain/transfer/import-order.js';
import type { DataOrg } from '../src/domain/transfer/document.js';
import { createTestInstance, describeEachStore, type TestInstance } from './support/instance.js';

const org = (id: string, users: string[], grantsTo: string[] = []) =>
  ({
    orgId: id,
    org: { name: `Org ${id}` },
    humanUsers: users.map((u) => ({ userId: u, user: { userName: u, profile: { firstName: 'F', lastName: 'L' }, email: { email: `${u}@example.com` } } })),
    projects: grantsTo.length ? [{ projectId: `${id}-p`, project: { name: 'P' } }] : undefined,
    projectRoles: grantsTo.length ? [{ projectId: `${id}-p`, roleKey: 'r', displayName: 'R' }] : undefined,
    userGrants: grantsTo.map((u) => ({ userId: u, projectId: `${id}-p`, roleKeys: ['r'] })),
  }) as unknown as DataOrg;

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
});
