import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const jwtIdp = (name: string) => ({
  name,
  jwtEndpoint: 'https://portal.example.com/jwt',
  issuer: 'https://portal.example.com',
  keysEndpoint: 'https://portal.example.com/keys',
  headerName: 'x-auth-token',
});
/** The body of UpdateOrgIDPJWTConfig: the JWT settings alone (a `name` there is an unknown field → 400). */
const jwtConfig = () => {
  const { name: _name, ...config } = jwtIdp('');
  return config;
};
const idp = (idpId: string) => ({ params: { path: { idpId } } });
const MISSING = '1';

/** Every answer of a deprecated operation (but 413, answered before the route) says so. */
function expectDeprecated(response: Response) {
  expect(response.headers.get('deprecation')).toBe('@1688169599');
  expect(response.headers.get('link')).toMatch(/rel="deprecation".*rel="successor-version"/);
}

/** A body over the server's 1 MiB limit, sent raw (the typed client would not send it). */
async function tooLarge(h: Harness, method: string, path: string) {
  const res = await h.fetch(path, {
    method,
    token: h.instance.adminToken,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...jwtIdp('big'), name: 'x'.repeat(2 * 1024 * 1024) }),
  });
  expect(res.status, `${method} ${path}`).toBe(413);
}

export function idpScenarios(h: () => Harness) {
  it('org JWT providers: add, read, list, change, deactivate, reactivate, remove', async () => {
    const { admin } = h();
    const add = await admin.POST('/management/v1/idps/jwt', { body: { ...jwtIdp('Portal'), stylingType: 'STYLING_TYPE_GOOGLE', autoRegister: true } });
    expect(add.response.status).toBe(200);
    expectDeprecated(add.response);
    const idpId = add.data!.idpId;

    const get = await admin.GET('/management/v1/idps/{idpId}', idp(idpId));
    expectDeprecated(get.response);
    expect(get.data?.idp).toMatchObject({ state: 'IDP_STATE_ACTIVE', owner: 'IDP_OWNER_TYPE_ORG', jwtConfig: { headerName: 'x-auth-token' } });

    const list = await admin.POST('/management/v1/idps/_search', { body: { queries: [{ idpNameQuery: { name: 'portal', method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' } }] } });
    expect(list.data?.result.map((i) => i.id)).toEqual([idpId]);

    expect((await admin.PUT('/management/v1/idps/{idpId}', { ...idp(idpId), body: { name: 'Portal 2', stylingType: 0 } })).response.status).toBe(200);
    const jwt = { jwtEndpoint: 'https://new.example.com/jwt', issuer: 'new', keysEndpoint: 'https://new.example.com/keys', headerName: 'authorization' };
    expect((await admin.PUT('/management/v1/idps/{idpId}/jwt_config', { ...idp(idpId), body: jwt })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/idps/{idpId}/_deactivate', idp(idpId))).response.status).toBe(200);
    expect((await admin.POST('/management/v1/idps/{idpId}/_reactivate', idp(idpId))).response.status).toBe(200);
    const removed = await admin.DELETE('/management/v1/idps/{idpId}', idp(idpId));
    expect(removed.response.status).toBe(200);
    expectDeprecated(removed.response);
    const gone = await admin.GET('/management/v1/idps/{idpId}', idp(idpId));
    expect(gone.response.status).toBe(404);
    expect(gone.error?.details[0].id).toBe('QUERY-rhR2o');
  });

  it('org JWT providers: 400, 404, 409 and 413', async () => {
    const { admin } = h();
    const { data } = await admin.POST('/management/v1/idps/jwt', { body: jwtIdp('Errors') });
    const idpId = data!.idpId;
    await admin.POST('/management/v1/idps/jwt', { body: jwtIdp('Other name') });

    const bad = await admin.POST('/management/v1/idps/jwt', { body: { ...jwtIdp('x'), headerName: '' } });
    expect(bad.response.status).toBe(400);
    expectDeprecated(bad.response);
    expect(bad.error?.message).toContain('headerName');
    const dup = await admin.POST('/management/v1/idps/jwt', { body: jwtIdp('ERRORS') });
    expect(dup.response.status).toBe(409);
    expectDeprecated(dup.response);
    expect(dup.error?.details[0].id).toBe('V3-DKcYh');

    expect((await admin.POST('/management/v1/idps/_search', { body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/idps/{idpId}', { ...idp(idpId), body: { name: '' } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/idps/{idpId}', { ...idp(idpId), body: { name: 'other NAME' } })).response.status).toBe(409);
    expect((await admin.PUT('/management/v1/idps/{idpId}/jwt_config', { ...idp(idpId), body: { ...jwtConfig(), keysEndpoint: 'not a url' } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/idps/{idpId}/_reactivate', idp(idpId))).response.status).toBe(400);
    await admin.POST('/management/v1/idps/{idpId}/_deactivate', idp(idpId));
    expect((await admin.POST('/management/v1/idps/{idpId}/_deactivate', idp(idpId))).response.status).toBe(400);

    expect((await admin.GET('/management/v1/idps/{idpId}', idp(MISSING))).response.status).toBe(404);
    expect((await admin.PUT('/management/v1/idps/{idpId}', { ...idp(MISSING), body: { name: 'n' } })).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/idps/{idpId}', idp(MISSING))).response.status).toBe(404);
    expect((await admin.PUT('/management/v1/idps/{idpId}/jwt_config', { ...idp(MISSING), body: jwtConfig() })).response.status).toBe(404);
    expect((await admin.POST('/management/v1/idps/{idpId}/_deactivate', idp(MISSING))).response.status).toBe(404);
    expect((await admin.POST('/management/v1/idps/{idpId}/_reactivate', idp(MISSING))).response.status).toBe(404);

    await tooLarge(h(), 'POST', '/management/v1/idps/jwt');
    await tooLarge(h(), 'POST', '/management/v1/idps/_search');
    await tooLarge(h(), 'PUT', `/management/v1/idps/${idpId}`);
    await tooLarge(h(), 'PUT', `/management/v1/idps/${idpId}/jwt_config`);
  });

  it('org JWT providers: 401 and 403 carry the deprecation headers', async () => {
    const { admin, anonymous } = h();
    const { data } = await admin.POST('/management/v1/idps/jwt', { body: jwtIdp('Guarded') });
    const idpId = data!.idpId;
    const { client: nobody } = await h().userWithRoles({});
    for (const client of [anonymous, nobody]) {
      const status = client === anonymous ? 401 : 403;
      const add = await client.POST('/management/v1/idps/jwt', { body: jwtIdp('n') });
      expect(add.response.status).toBe(status);
      expectDeprecated(add.response);
      expect((await client.POST('/management/v1/idps/_search', { body: {} })).response.status).toBe(status);
      expect((await client.GET('/management/v1/idps/{idpId}', idp(idpId))).response.status).toBe(status);
      expect((await client.PUT('/management/v1/idps/{idpId}', { ...idp(idpId), body: { name: 'n' } })).response.status).toBe(status);
      expect((await client.DELETE('/management/v1/idps/{idpId}', idp(idpId))).response.status).toBe(status);
      expect((await client.PUT('/management/v1/idps/{idpId}/jwt_config', { ...idp(idpId), body: jwtConfig() })).response.status).toBe(status);
      expect((await client.POST('/management/v1/idps/{idpId}/_deactivate', idp(idpId))).response.status).toBe(status);
      expect((await client.POST('/management/v1/idps/{idpId}/_reactivate', idp(idpId))).response.status).toBe(status);
    }
  });

  it('instance JWT providers: every documented status', async () => {
    const { admin, anonymous } = h();
    const add = await admin.POST('/admin/v1/idps/jwt', { body: jwtIdp('Instance SSO') });
    expect(add.response.status).toBe(200);
    expectDeprecated(add.response);
    const idpId = add.data!.idpId;
    expect((await admin.GET('/admin/v1/idps/{idpId}', idp(idpId))).data?.idp.owner).toBe('IDP_OWNER_TYPE_SYSTEM');
    expect((await admin.GET('/management/v1/idps/{idpId}', idp(idpId))).data?.idp.owner).toBe('IDP_OWNER_TYPE_SYSTEM');
    expect((await admin.POST('/admin/v1/idps/_search', { body: {} })).data?.result.map((i) => i.id)).toContain(idpId);

    expect((await admin.POST('/admin/v1/idps/jwt', { body: { ...jwtIdp('x'), jwtEndpoint: 'nope' } })).response.status).toBe(400);
    expect((await admin.POST('/admin/v1/idps/jwt', { body: jwtIdp('instance sso') })).response.status).toBe(409);
    expect((await admin.POST('/admin/v1/idps/_search', { body: { sortingColumn: 'NOPE' as never } })).response.status).toBe(400);

    const { client: orgOwner } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    for (const [client, status] of [
      [anonymous, 401],
      [orgOwner, 403],
    ] as const) {
      const denied = await client.POST('/admin/v1/idps/jwt', { body: jwtIdp('n') });
      expect(denied.response.status).toBe(status);
      expectDeprecated(denied.response);
      expect((await client.POST('/admin/v1/idps/_search', { body: {} })).response.status).toBe(status);
      expect((await client.GET('/admin/v1/idps/{idpId}', idp(idpId))).response.status).toBe(status);
      expect((await client.DELETE('/admin/v1/idps/{idpId}', idp(idpId))).response.status).toBe(status);
    }
    await tooLarge(h(), 'POST', '/admin/v1/idps/jwt');
    await tooLarge(h(), 'POST', '/admin/v1/idps/_search');

    expect((await admin.DELETE('/management/v1/idps/{idpId}', idp(idpId))).response.status).toBe(404);
    expect((await admin.DELETE('/admin/v1/idps/{idpId}', idp(idpId))).response.status).toBe(200);
    expect((await admin.GET('/admin/v1/idps/{idpId}', idp(idpId))).response.status).toBe(404);
    expect((await admin.DELETE('/admin/v1/idps/{idpId}', idp(idpId))).response.status).toBe(404);
  });

  it('OIDC providers (organisation and instance): every documented status, the secret never read back', async () => {
    const { admin, anonymous } = h();
    const oidcIdp = (name: string) => ({ name, clientId: 'partner-app', clientSecret: 'partner-secret', issuer: 'https://partner.example.com', scopes: ['openid', 'email'] });
    const add = await admin.POST('/management/v1/idps/oidc', { body: { ...oidcIdp('Partner'), usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL', autoRegister: true } });
    expect(add.response.status).toBe(200);
    expectDeprecated(add.response);
    const idpId = add.data!.idpId;
    const read = await admin.GET('/management/v1/idps/{idpId}', idp(idpId));
    expect(read.data?.idp).toMatchObject({
      owner: 'IDP_OWNER_TYPE_ORG',
      oidcConfig: { clientId: 'partner-app', scopes: ['openid', 'email'], usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL', displayNameMapping: 'OIDC_MAPPING_FIELD_UNSPECIFIED' },
    });
    expect(JSON.stringify(read.data)).not.toContain('partner-secret');

    const config = { clientId: 'partner-app-2', issuer: 'https://partner.example.com' };
    const changed = await admin.PUT('/management/v1/idps/{idpId}/oidc_config', { ...idp(idpId), body: { ...config, displayNameMapping: 1 } });
    expect(changed.response.status).toBe(200);
    expectDeprecated(changed.response);
    const unchanged = await admin.PUT('/management/v1/idps/{idpId}/oidc_config', { ...idp(idpId), body: { ...config, displayNameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME' } });
    expect(unchanged.response.status).toBe(400);
    expect(unchanged.error?.details[0].id).toBe('Org-2k9fs');
    expect((await admin.PUT('/management/v1/idps/{idpId}/oidc_config', { ...idp(idpId), body: { ...config, issuer: 'partner.example.com' } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/idps/{idpId}/oidc_config', { ...idp(MISSING), body: config })).response.status).toBe(404);
    expect((await admin.POST('/management/v1/idps/oidc', { body: { ...oidcIdp('x'), clientSecret: '' } })).response.status).toBe(400);
    const dup = await admin.POST('/management/v1/idps/oidc', { body: oidcIdp('PARTNER') });
    expect(dup.response.status).toBe(409);
    expect(dup.error?.details[0].id).toBe('V3-DKcYh');

    const instance = await admin.POST('/admin/v1/idps/oidc', { body: oidcIdp('Instance partner') });
    expect(instance.response.status).toBe(200);
    expectDeprecated(instance.response);
    expect((await admin.GET('/admin/v1/idps/{idpId}', idp(instance.data!.idpId))).data?.idp.oidcConfig?.clientId).toBe('partner-app');
    expect((await admin.POST('/admin/v1/idps/oidc', { body: { ...oidcIdp('y'), scopes: ['a b'] } })).response.status).toBe(400);
    expect((await admin.POST('/admin/v1/idps/oidc', { body: oidcIdp('instance PARTNER') })).response.status).toBe(409);

    const { client: nobody } = await h().userWithRoles({});
    for (const [client, status] of [
      [anonymous, 401],
      [nobody, 403],
    ] as const) {
      const denied = await client.POST('/management/v1/idps/oidc', { body: oidcIdp('n') });
      expect(denied.response.status).toBe(status);
      expectDeprecated(denied.response);
      expect((await client.PUT('/management/v1/idps/{idpId}/oidc_config', { ...idp(idpId), body: config })).response.status).toBe(status);
      expect((await client.POST('/admin/v1/idps/oidc', { body: oidcIdp('n') })).response.status).toBe(status);
    }
    await tooLarge(h(), 'POST', '/management/v1/idps/oidc');
    await tooLarge(h(), 'PUT', `/management/v1/idps/${idpId}/oidc_config`);
    await tooLarge(h(), 'POST', '/admin/v1/idps/oidc');
  });
}
