import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const unique = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`;

export function orgAdminScenarios(h: () => Harness) {
  it('orgs: create (200, 400, 409), search and get by id through the client', async () => {
    const { admin } = h();
    const name = unique('Contract Org');
    const created = await admin.POST('/management/v1/orgs', { body: { name } });
    expect(created.response.status).toBe(200);
    const id = created.data!.id;

    expect((await admin.POST('/management/v1/orgs', { body: { name: name.toUpperCase() } })).response.status).toBe(409);
    expect((await admin.POST('/management/v1/orgs', { body: { name: '' } })).response.status).toBe(400);

    const search = await admin.POST('/admin/v1/orgs/_search', { body: { queries: [{ nameQuery: { name, method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' } }] } });
    expect(search.data?.details.totalResult).toBe('1');
    expect(search.data?.result[0]).toMatchObject({ id, name, state: 'ORG_STATE_ACTIVE' });
    expect((await admin.POST('/admin/v1/orgs/_search', { body: { query: { limit: 1001 } } })).response.status).toBe(400);

    const get = await admin.GET('/admin/v1/orgs/{orgId}', { params: { path: { orgId: id } } });
    expect(get.data?.org.name).toBe(name);
    expect((await admin.GET('/admin/v1/orgs/{orgId}', { params: { path: { orgId: 'missing' } } })).response.status).toBe(404);

    const defaultOrg = await admin.GET('/admin/v1/orgs/default');
    expect(defaultOrg.response.status).toBe(200);
    expect(defaultOrg.data?.org.id).toBe(h().instance.defaultOrgId);
  });

  it('orgs: 401 without a token, 403 without the permission', async () => {
    const { anonymous } = h();
    expect((await anonymous.POST('/management/v1/orgs', { body: { name: 'x' } })).response.status).toBe(401);
    expect((await anonymous.POST('/admin/v1/orgs/_search', { body: {} })).response.status).toBe(401);
    expect((await anonymous.GET('/admin/v1/orgs/{orgId}', { params: { path: { orgId: 'x' } } })).response.status).toBe(401);
    expect((await anonymous.GET('/admin/v1/orgs/default')).response.status).toBe(401);

    const { client } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    expect((await client.POST('/management/v1/orgs', { body: { name: unique('Denied') } })).response.status).toBe(403);
    expect((await client.POST('/admin/v1/orgs/_search', { body: {} })).response.status).toBe(403);
    expect((await client.GET('/admin/v1/orgs/{orgId}', { params: { path: { orgId: h().instance.defaultOrgId } } })).response.status).toBe(403);
    expect((await client.GET('/admin/v1/orgs/default')).response.status).toBe(403);
  });
}
