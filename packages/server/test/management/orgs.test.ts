import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

describeEachStore('organisations', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  const addOrg = (name: unknown, token?: string) => t.call('POST', '/management/v1/orgs', { body: { name }, token });

  it('creates an organisation, makes the caller its ORG_OWNER and records both events', async () => {
    const res = await addOrg('  Acme Corp ');
    expect(res.status).toBe(200);
    const { id, details } = await res.json();
    expect(id).toMatch(/^\d+$/);
    expect(details).toMatchObject({ sequence: '2', resourceOwner: id });

    const get = await t.call('GET', `/admin/v1/orgs/${id}`);
    expect(get.status).toBe(200);
    expect((await get.json()).org).toMatchObject({ id, name: 'Acme Corp', state: 'ORG_STATE_ACTIVE', primaryDomain: 'acme-corp.localhost', details: { sequence: '2' } });

    const { events } = await t.store.read.events.search({ aggregateId: id, limit: 10, offset: 0, asc: true });
    expect(events.map((e) => [e.type, e.creator])).toEqual([
      ['org.added', t.adminUserId],
      ['org.member.added', t.adminUserId],
    ]);
    const member = await t.store.read.members.get('org', id, t.adminUserId);
    expect(member?.roles).toEqual(['ORG_OWNER']);
  });

  it('answers 409 for a name taken in any letter case, or one reducing to a taken domain', async () => {
    expect((await addOrg('Taken Name')).status).toBe(200);
    for (const name of ['taken name', 'TAKEN NAME', 'taken-name']) {
      const res = await addOrg(name);
      expect(res.status, name).toBe(409);
      const body = await res.json();
      expect(body.code).toBe(6);
      expect(body.details[0].id).toBe('V3-DKcYh');
    }
  });

  it('answers 400 naming the field for an empty, blank or too long name', async () => {
    for (const name of ['', '   ', 'x'.repeat(201), 42]) {
      const res = await addOrg(name);
      expect(res.status, String(name)).toBe(400);
      expect((await res.json()).message).toContain('name');
    }
  });

  it('needs org.create: an ORG_OWNER of another organisation gets 403', async () => {
    const owner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    expect((await addOrg('Not Allowed', owner.token)).status).toBe(403);
    const manager = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_ORG_MANAGER'] });
    expect((await addOrg('Manager Org', manager.token)).status).toBe(200);
  });

  it('searches organisations by name with each text method, with paging and a total', async () => {
    for (const name of ['Search Alpha', 'Search Beta', 'Other Gamma']) expect((await addOrg(name)).status).toBe(200);
    const search = async (body: unknown) => {
      const res = await t.call('POST', '/admin/v1/orgs/_search', { body });
      expect(res.status).toBe(200);
      return res.json();
    };
    const names = async (name: string, method?: string) => (await search({ queries: [{ nameQuery: { name, method } }] })).result.map((o: { name: string }) => o.name).sort();

    expect(await names('Search Alpha')).toEqual(['Search Alpha']);
    expect(await names('search alpha')).toEqual([]);
    expect(await names('search alpha', 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE')).toEqual(['Search Alpha']);
    expect(await names('Search', 'TEXT_QUERY_METHOD_STARTS_WITH')).toEqual(['Search Alpha', 'Search Beta']);
    expect(await names('search', 'TEXT_QUERY_METHOD_STARTS_WITH')).toEqual([]);
    expect(await names('SEARCH', 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE')).toEqual(['Search Alpha', 'Search Beta']);
    expect(await names('Gamma', 'TEXT_QUERY_METHOD_ENDS_WITH')).toEqual(['Other Gamma']);
    expect(await names('GAMMA', 'TEXT_QUERY_METHOD_ENDS_WITH_IGNORE_CASE')).toEqual(['Other Gamma']);
    expect(await names('h B', 'TEXT_QUERY_METHOD_CONTAINS')).toEqual(['Search Beta']);
    expect(await names('h b', 'TEXT_QUERY_METHOD_CONTAINS')).toEqual([]);
    expect(await names('H B', 'TEXT_QUERY_METHOD_CONTAINS_IGNORE_CASE')).toEqual(['Search Beta']);

    const page = await search({ query: { offset: '1', limit: 1, asc: true }, queries: [{ nameQuery: { name: 'Search', method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }] });
    expect(page.details.totalResult).toBe('2');
    expect(Date.parse(page.details.viewTimestamp)).not.toBeNaN();
    expect(page.result.map((o: { name: string }) => o.name)).toEqual(['Search Beta']);
    const desc = await search({ query: { limit: 1, asc: false } });
    expect(desc.result[0].name).toBe('Other Gamma');
    const all = await search({});
    expect(Number(all.details.totalResult)).toBe(all.result.length);
    expect(all.result.map((o: { id: string }) => o.id)).toContain(t.defaultOrgId);

    expect((await t.call('POST', '/admin/v1/orgs/_search', { body: { query: { limit: 1001 } } })).status).toBe(400);
    const badMethod = await t.call('POST', '/admin/v1/orgs/_search', { body: { queries: [{ nameQuery: { name: 'x', method: 'LIKE' } }] } });
    expect(badMethod.status).toBe(400);
    expect((await badMethod.json()).message).toContain('queries[0].nameQuery.method');
  });

  // Issue 48.3: "default" was taken as an organisation id (404 QUERY-1Nf8s).
  it("GET /admin/v1/orgs/default (ZITADEL's GetDefaultOrg): the instance's default organisation, with iam.read", async () => {
    const res = await t.call('GET', '/admin/v1/orgs/default');
    expect(res.status).toBe(200);
    const { org } = await res.json();
    expect(org).toMatchObject({ id: t.defaultOrgId, state: 'ORG_STATE_ACTIVE', details: { resourceOwner: t.defaultOrgId } });
    expect(org).toEqual((await (await t.call('GET', `/admin/v1/orgs/${t.defaultOrgId}`)).json()).org);
    // Another organisation made later is not the default.
    const other = (await (await addOrg('Not The Default')).json()).id;
    expect((await (await t.call('GET', '/admin/v1/orgs/default')).json()).org.id).not.toBe(other);

    const owner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    expect((await t.call('GET', '/admin/v1/orgs/default', { token: owner.token })).status).toBe(403);
    const viewer = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect((await t.call('GET', '/admin/v1/orgs/default', { token: viewer.token })).status).toBe(200);
  });

  it('GET /admin/v1/orgs/{orgId}: 404 when missing, 403 without iam.read', async () => {
    const missing = await t.call('GET', '/admin/v1/orgs/123');
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe(5);
    const owner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    expect((await t.call('GET', `/admin/v1/orgs/${t.defaultOrgId}`, { token: owner.token })).status).toBe(403);
    expect((await t.call('POST', '/admin/v1/orgs/_search', { token: owner.token, body: {} })).status).toBe(403);
    const viewer = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect((await t.call('GET', `/admin/v1/orgs/${t.defaultOrgId}`, { token: viewer.token })).status).toBe(200);
  });
});
