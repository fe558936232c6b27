import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const MGMT = '/management/v1/idps';
const ADMIN = '/admin/v1/idps';

const jwtIdp = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  jwtEndpoint: 'https://portal.example.com/jwt',
  issuer: 'https://portal.example.com',
  keysEndpoint: 'https://portal.example.com/keys',
  headerName: 'x-auth-token',
  ...extra,
});

/** A second organisation, written straight to the store (the org API is someone else's). */
async function insertOrg(t: TestInstance, name: string): Promise<string> {
  const id = newId();
  const at = new Date();
  await t.store.transaction(async (tx) => {
    const event = await tx.events.append({ aggregateType: 'org', aggregateId: id, type: 'org.added', payload: { name }, creator: 'TEST', resourceOwner: id });
    await tx.orgs.insert({
      id,
      name,
      nameKey: name.toLowerCase(),
      state: 'ORG_STATE_ACTIVE',
      primaryDomain: `${name.toLowerCase()}.localhost`,
      sequence: event.sequence,
      createdAt: at,
      changedAt: at,
    });
  });
  return id;
}

function expectDeprecated(res: Response) {
  expect(res.headers.get('deprecation')).toBe('@1688169599');
  const link = res.headers.get('link') ?? '';
  expect(link).toMatch(/<\/docs#\/Identity%20providers\/[A-Za-z]+>; rel="deprecation"/);
  expect(link).toContain('rel="successor-version"');
}

describeEachStore('JWT identity providers (description §4.3)', (dialect) => {
  let t: TestInstance;
  let otherOrg: string;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    otherOrg = await insertOrg(t, 'Other');
  });
  afterAll(() => t.close());

  async function add(body: unknown, options: { token?: string; headers?: Record<string, string> } = {}) {
    return t.call('POST', `${MGMT}/jwt`, { body, ...options });
  }

  describe('issue 4: done when', () => {
    it('adds a provider (200 with idpId) whose details are the org aggregate sequence', async () => {
      const res = await add(jwtIdp('Legacy portal', { stylingType: 'STYLING_TYPE_GOOGLE', autoRegister: true }));
      expect(res.status).toBe(200);
      expectDeprecated(res);
      const body = await res.json();
      expect(body.idpId).toMatch(/^\d+$/);
      expect(body.details.resourceOwner).toBe(t.defaultOrgId);
      const { events } = await t.store.read.events.search({ aggregateId: t.defaultOrgId, limit: 1, offset: 0, asc: false });
      expect(events[0]).toMatchObject({ aggregateType: 'org', type: 'org.idp.config.added', sequence: Number(body.details.sequence), creator: t.adminUserId });
      expect(events[0].payload).toMatchObject({ idpConfigId: body.idpId, name: 'Legacy portal', jwtConfig: { headerName: 'x-auth-token' } });
      // The org's bootstrap event is sequence 1, so the provider's event is later on the same aggregate.
      expect(Number(body.details.sequence)).toBeGreaterThan(1);
    });

    it('get shows jwtConfig, IDP_STATE_ACTIVE and IDP_OWNER_TYPE_ORG', async () => {
      const { idpId, details } = await (await add(jwtIdp('Get me'))).json();
      const res = await t.call('GET', `${MGMT}/${idpId}`);
      expect(res.status).toBe(200);
      expectDeprecated(res);
      const { idp } = await res.json();
      expect(idp).toMatchObject({
        id: idpId,
        state: 'IDP_STATE_ACTIVE',
        owner: 'IDP_OWNER_TYPE_ORG',
        name: 'Get me',
        stylingType: 'STYLING_TYPE_UNSPECIFIED',
        autoRegister: false,
        jwtConfig: {
          jwtEndpoint: 'https://portal.example.com/jwt',
          issuer: 'https://portal.example.com',
          keysEndpoint: 'https://portal.example.com/keys',
          headerName: 'x-auth-token',
        },
      });
      expect(idp.details).toMatchObject({ sequence: details.sequence, resourceOwner: t.defaultOrgId });
    });

    it('missing headerName → 400 naming the field; nothing is written', async () => {
      const { headerName: _, ...body } = jwtIdp('No header');
      const res = await add(body);
      expect(res.status).toBe(400);
      expectDeprecated(res);
      const error = await res.json();
      expect(error.code).toBe(3);
      expect(error.message).toContain('headerName');
      const list = await (await t.call('POST', `${MGMT}/_search`, { body: { queries: [{ idpNameQuery: { name: 'No header' } }] } })).json();
      expect(list.result).toEqual([]);
    });

    it('a 201-character name → 400; 200 characters are fine', async () => {
      const res = await add(jwtIdp('n'.repeat(201)));
      expect(res.status).toBe(400);
      expect((await res.json()).message).toContain('name');
      expect((await add(jwtIdp('n'.repeat(200)))).status).toBe(200);
    });

    it('the same name in another letter case → 409 V3-DKcYh', async () => {
      expect((await add(jwtIdp('Acme SSO'))).status).toBe(200);
      const res = await add(jwtIdp('ACME sso'));
      expect(res.status).toBe(409);
      expectDeprecated(res);
      const error = await res.json();
      expect(error.code).toBe(6);
      expect(error.details[0]).toMatchObject({ id: 'V3-DKcYh', message: 'IDP Configuration with this name already exists' });
    });

    it("another org's provider: 404 without the header, 403 with it but without permission there", async () => {
      const { idpId } = await (await add(jwtIdp('Theirs'), { headers: { 'x-service-orgid': otherOrg } })).json();
      expect(idpId).toBeDefined();
      const owner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });

      const without = await t.call('GET', `${MGMT}/${idpId}`, { token: owner.token });
      expect(without.status).toBe(404);
      expect((await without.json()).details[0]).toMatchObject({ id: 'QUERY-rhR2o', message: "Identity Provider Configuration doesn't exist" });

      const withHeader = await t.call('GET', `${MGMT}/${idpId}`, { token: owner.token, headers: { 'x-service-orgid': otherOrg } });
      expect(withHeader.status).toBe(403);
      expectDeprecated(withHeader);
      expect((await withHeader.json()).code).toBe(7);

      // The admin (IAM_OWNER) may act there and sees it as the other org's.
      const asAdmin = await t.call('GET', `${MGMT}/${idpId}`, { headers: { 'x-service-orgid': otherOrg } });
      expect((await asAdmin.json()).idp.details.resourceOwner).toBe(otherOrg);
    });

    it('after delete, get → 404 and the name is free again', async () => {
      const { idpId } = await (await add(jwtIdp('Short-lived'))).json();
      const del = await t.call('DELETE', `${MGMT}/${idpId}`);
      expect(del.status).toBe(200);
      expectDeprecated(del);
      expect((await del.json()).details.sequence).toMatch(/^\d+$/);
      expect((await t.call('GET', `${MGMT}/${idpId}`)).status).toBe(404);
      expect((await t.call('DELETE', `${MGMT}/${idpId}`)).status).toBe(404);
      expect((await add(jwtIdp('short-lived'))).status).toBe(200);
    });

    it('401 carries the deprecation headers too (middleware before auth)', async () => {
      const res = await t.call('POST', `${MGMT}/jwt`, { token: null, body: {} });
      expect(res.status).toBe(401);
      expectDeprecated(res);
      expect(res.headers.get('link')).toContain('AddOrgJWTIDP');
    });
  });

  describe('validation', () => {
    it('jwtEndpoint and keysEndpoint must be absolute http(s) URLs; issuer is free text', async () => {
      for (const [field, value] of [
        ['jwtEndpoint', 'portal/jwt'],
        ['keysEndpoint', 'ftp://x.example.com/keys'],
        ['jwtEndpoint', 'javascript:alert(1)'],
      ] as const) {
        const res = await add(jwtIdp(`bad ${field} ${value}`, { [field]: value }));
        expect(res.status, `${field}=${value}`).toBe(400);
        expect((await res.json()).message).toContain(field);
      }
      expect((await add(jwtIdp('plain issuer', { issuer: 'legacy-portal', jwtEndpoint: 'http://10.0.0.1:8080/jwt' }))).status).toBe(200);
    });

    it('every text field is required, non-empty and at most 200 characters', async () => {
      for (const field of ['name', 'jwtEndpoint', 'issuer', 'keysEndpoint', 'headerName']) {
        const empty = await add(jwtIdp(`empty ${field}`, { [field]: '' }));
        expect(empty.status, field).toBe(400);
        expect((await empty.json()).message).toContain(field);
        const long = field.endsWith('Endpoint') ? `https://x.example.com/${'p'.repeat(180)}` : 'x'.repeat(201);
        const tooLong = await add(jwtIdp(`long ${field}`, { [field]: long }));
        expect(tooLong.status, field).toBe(400);
      }
    });

    it('stylingType accepts the names and the numbers 0 and 1, nothing else', async () => {
      const one = await (await add(jwtIdp('styled by number', { stylingType: 1 }))).json();
      expect((await (await t.call('GET', `${MGMT}/${one.idpId}`)).json()).idp.stylingType).toBe('STYLING_TYPE_GOOGLE');
      expect((await add(jwtIdp('styled zero', { stylingType: 0 }))).status).toBe(200);
      expect((await add(jwtIdp('styled two', { stylingType: 2 }))).status).toBe(400);
      expect((await add(jwtIdp('styled bad', { stylingType: 'STYLING_TYPE_PINK' }))).status).toBe(400);
    });
  });

  describe('changes and states', () => {
    it('updates name/styling/auto-register; no change → 400; a taken name → 409', async () => {
      const { idpId } = await (await add(jwtIdp('Rename me'))).json();
      await add(jwtIdp('Taken name'));
      const res = await t.call('PUT', `${MGMT}/${idpId}`, { body: { name: 'Renamed', stylingType: 'STYLING_TYPE_GOOGLE', autoRegister: true } });
      expect(res.status).toBe(200);
      expectDeprecated(res);
      const { idp } = await (await t.call('GET', `${MGMT}/${idpId}`)).json();
      expect(idp).toMatchObject({ name: 'Renamed', stylingType: 'STYLING_TYPE_GOOGLE', autoRegister: true });
      expect(idp.details.sequence).toBe((await res.json()).details.sequence);

      const same = await t.call('PUT', `${MGMT}/${idpId}`, { body: { name: 'Renamed', stylingType: 1, autoRegister: true } });
      expect(same.status).toBe(400);
      expect((await same.json()).details[0].id).toBe('Org-jf9w');
      expect((await t.call('PUT', `${MGMT}/${idpId}`, { body: { name: 'TAKEN NAME' } })).status).toBe(409);
      // A change of letter case of its own name is allowed.
      expect((await t.call('PUT', `${MGMT}/${idpId}`, { body: { name: 'RENAMED', stylingType: 1, autoRegister: true } })).status).toBe(200);
    });

    it('replaces the JWT settings; no change → 400', async () => {
      const { idpId } = await (await add(jwtIdp('Rekey me'))).json();
      const next = { jwtEndpoint: 'https://new.example.com/jwt', issuer: 'new', keysEndpoint: 'https://new.example.com/keys', headerName: 'authorization' };
      const res = await t.call('PUT', `${MGMT}/${idpId}/jwt_config`, { body: next });
      expect(res.status).toBe(200);
      expect((await (await t.call('GET', `${MGMT}/${idpId}`)).json()).idp.jwtConfig).toEqual({ ...next, audience: '' });
      const again = await t.call('PUT', `${MGMT}/${idpId}/jwt_config`, { body: next });
      expect(again.status).toBe(400);
      expect((await again.json()).details[0].id).toBe('Org-2k9fs');
      expect((await t.call('PUT', `${MGMT}/${idpId}/jwt_config`, { body: { ...next, keysEndpoint: 'keys' } })).status).toBe(400);
    });

    it('deactivates and reactivates; the wrong state → 400', async () => {
      const { idpId } = await (await add(jwtIdp('Toggle me'))).json();
      expect((await t.call('POST', `${MGMT}/${idpId}/_reactivate`)).status).toBe(400);
      const off = await t.call('POST', `${MGMT}/${idpId}/_deactivate`);
      expect(off.status).toBe(200);
      expectDeprecated(off);
      expect((await (await t.call('GET', `${MGMT}/${idpId}`)).json()).idp.state).toBe('IDP_STATE_INACTIVE');
      const twice = await t.call('POST', `${MGMT}/${idpId}/_deactivate`);
      expect(twice.status).toBe(400);
      expect((await twice.json()).details[0].id).toBe('Org-BBmd0');
      expect((await t.call('POST', `${MGMT}/${idpId}/_reactivate`)).status).toBe(200);
      expect((await (await t.call('GET', `${MGMT}/${idpId}`)).json()).idp.state).toBe('IDP_STATE_ACTIVE');
      expect((await t.call('POST', `${MGMT}/${newId()}/_deactivate`)).status).toBe(404);
    });
  });

  describe('instance providers', () => {
    it('admin adds on the instance aggregate; management reads them as SYSTEM but cannot change or delete them', async () => {
      const res = await t.call('POST', `${ADMIN}/jwt`, { body: jwtIdp('Instance SSO') });
      expect(res.status).toBe(200);
      expectDeprecated(res);
      const { idpId, details } = await res.json();
      expect(details.resourceOwner).toBe(t.instanceId);
      const { events } = await t.store.read.events.search({ aggregateId: t.instanceId, limit: 1, offset: 0, asc: false });
      expect(events[0]).toMatchObject({ aggregateType: 'instance', type: 'instance.idp.config.added', sequence: Number(details.sequence) });

      const viaOrg = await (await t.call('GET', `${MGMT}/${idpId}`)).json();
      expect(viaOrg.idp).toMatchObject({ owner: 'IDP_OWNER_TYPE_SYSTEM', name: 'Instance SSO' });
      // Also from another organisation's context, by someone who may read there.
      const otherOwner = await insertMachineUserWithToken(t, { orgId: otherOrg, orgRoles: ['ORG_OWNER_VIEWER'] });
      expect((await t.call('GET', `${MGMT}/${idpId}`, { token: otherOwner.token })).status).toBe(200);

      expect((await t.call('DELETE', `${MGMT}/${idpId}`)).status).toBe(404);
      expect((await t.call('PUT', `${MGMT}/${idpId}`, { body: { name: 'hijack' } })).status).toBe(404);
      expect((await t.call('POST', `${MGMT}/${idpId}/_deactivate`)).status).toBe(404);

      // An org may reuse the instance provider's name: names are unique per owner.
      expect((await add(jwtIdp('instance sso'))).status).toBe(200);
      expect((await t.call('POST', `${ADMIN}/jwt`, { body: jwtIdp('INSTANCE SSO') })).status).toBe(409);

      const admin = await (await t.call('GET', `${ADMIN}/${idpId}`)).json();
      expect(admin.idp.owner).toBe('IDP_OWNER_TYPE_SYSTEM');
      expect((await t.call('DELETE', `${ADMIN}/${idpId}`)).status).toBe(200);
      expect((await t.call('GET', `${ADMIN}/${idpId}`)).status).toBe(404);
    });

    it('the admin API does not see organisation providers', async () => {
      const { idpId } = await (await add(jwtIdp('Org only'))).json();
      expect((await t.call('GET', `${ADMIN}/${idpId}`)).status).toBe(404);
      expect((await t.call('DELETE', `${ADMIN}/${idpId}`)).status).toBe(404);
      const list = await (await t.call('POST', `${ADMIN}/_search`, { body: {} })).json();
      expect(list.result.every((idp: { owner: string }) => idp.owner === 'IDP_OWNER_TYPE_SYSTEM')).toBe(true);
    });

    it('admin operations need iam.idp.*: an org owner gets 403', async () => {
      const orgOwner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
      expect((await t.call('POST', `${ADMIN}/jwt`, { token: orgOwner.token, body: jwtIdp('nope') })).status).toBe(403);
      expect((await t.call('POST', `${ADMIN}/_search`, { token: orgOwner.token, body: {} })).status).toBe(403);
    });
  });

  describe('permissions', () => {
    it('org.idp.read may read but not write; no role at all → 403', async () => {
      const { idpId } = await (await add(jwtIdp('Guarded'))).json();
      const viewer = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER_VIEWER'] });
      expect((await t.call('GET', `${MGMT}/${idpId}`, { token: viewer.token })).status).toBe(200);
      expect((await t.call('POST', `${MGMT}/_search`, { token: viewer.token, body: {} })).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', `${MGMT}/jwt`, jwtIdp('viewer')],
        ['PUT', `${MGMT}/${idpId}`, { name: 'viewer' }],
        ['DELETE', `${MGMT}/${idpId}`, undefined],
        ['POST', `${MGMT}/${idpId}/_deactivate`, undefined],
      ] as const) {
        const res = await t.call(method, path, { token: viewer.token, body });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
      const settings = await insertMachineUserWithToken(t, { orgRoles: ['ORG_SETTINGS_MANAGER'] });
      expect((await t.call('POST', `${MGMT}/${idpId}/_deactivate`, { token: settings.token })).status).toBe(200);
      const nobody = await insertMachineUserWithToken(t, {});
      expect((await t.call('GET', `${MGMT}/${idpId}`, { token: nobody.token })).status).toBe(403);
    });
  });

  describe('search', () => {
    it('lists the org and instance providers with paging, sorting and name/owner/id queries', async () => {
      const fresh = await createTestInstance(dialect);
      try {
        const org = async (name: string) => (await (await fresh.call('POST', `${MGMT}/jwt`, { body: jwtIdp(name) })).json()).idpId as string;
        const beta = await org('Beta');
        await org('alpha');
        await org('Gamma ray');
        const inst = (await (await fresh.call('POST', `${ADMIN}/jwt`, { body: jwtIdp('Delta') })).json()).idpId as string;
        const search = async (body: unknown) => {
          const res = await fresh.call('POST', `${MGMT}/_search`, { body });
          expect(res.status).toBe(200);
          expectDeprecated(res);
          return res.json();
        };

        const all = await search({});
        expect(all.details.totalResult).toBe('4');
        expect(all.result.map((i: { name: string }) => i.name)).toEqual(['Beta', 'alpha', 'Gamma ray', 'Delta']);
        expect(all.sortingColumn).toBe('IDP_FIELD_NAME_UNSPECIFIED');

        const byName = await search({ sortingColumn: 'IDP_FIELD_NAME_NAME', query: { limit: 2, offset: '1' } });
        expect(byName.details.totalResult).toBe('4');
        expect(byName.result.map((i: { name: string }) => i.name)).toEqual(['Beta', 'Delta']);
        const desc = await search({ sortingColumn: 'IDP_FIELD_NAME_NAME', query: { asc: false, limit: 1 } });
        expect(desc.result[0].name).toBe('Gamma ray');

        const names = async (q: unknown) => (await search({ queries: [q] })).result.map((i: { name: string }) => i.name).sort();
        expect(await names({ idpNameQuery: { name: 'beta' } })).toEqual([]);
        expect(await names({ idpNameQuery: { name: 'beta', method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' } })).toEqual(['Beta']);
        expect(await names({ idpNameQuery: { name: 'A', method: 'TEXT_QUERY_METHOD_CONTAINS' } })).toEqual([]);
        expect(await names({ idpNameQuery: { name: 'a', method: 'TEXT_QUERY_METHOD_ENDS_WITH' } })).toEqual(['Beta', 'Delta', 'alpha']);
        expect(await names({ idpNameQuery: { name: 'G', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } })).toEqual(['Gamma ray']);
        expect(await names({ ownerTypeQuery: { ownerType: 'IDP_OWNER_TYPE_SYSTEM' } })).toEqual(['Delta']);
        expect(await names({ idpIdQuery: { id: beta } })).toEqual(['Beta']);
        expect((await search({ queries: [{ idpIdQuery: { id: beta } }, { idpIdQuery: { id: inst } }] })).result).toEqual([]);

        const bad = await fresh.call('POST', `${MGMT}/_search`, { body: { queries: [{ idpIdQuery: { id: beta }, ownerTypeQuery: { ownerType: 'IDP_OWNER_TYPE_ORG' } }] } });
        expect(bad.status).toBe(400);
        expect((await fresh.call('POST', `${MGMT}/_search`, { body: { query: { limit: 1001 } } })).status).toBe(400);

        const admin = await (await fresh.call('POST', `${ADMIN}/_search`, { body: {} })).json();
        expect(admin.result.map((i: { name: string }) => i.name)).toEqual(['Delta']);
      } finally {
        await fresh.close();
      }
    });
  });
});
