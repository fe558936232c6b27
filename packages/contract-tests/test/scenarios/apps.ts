import { insertOrg } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const LONG = 'x'.repeat(201);

export function appScenarios(h: () => Harness) {
  it('OIDC applications: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { orgId: otherOrg } = await insertOrg(instance, 'Contract apps');
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    const inOther = h().clientFor(instance.adminToken, otherOrg);
    const project = await admin.POST('/management/v1/projects', { body: { name: 'Contract apps project' } });
    const projectId = project.data!.id;
    const p = { params: { path: { projectId } } };
    const spa = {
      name: 'spa',
      redirectUris: ['http://localhost:3000/cb'],
      appType: 'OIDC_APP_TYPE_USER_AGENT' as const,
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' as const,
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE' as const, 'OIDC_GRANT_TYPE_REFRESH_TOKEN' as const],
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT' as const,
    };

    // AddOIDCApp: a public client has no secret; http redirects without devMode are reported.
    const added = await admin.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: spa });
    expect(added.response.status).toBe(200);
    expect(added.data?.clientSecret).toBeUndefined();
    expect(added.data?.noneCompliant).toBe(true);
    const appId = added.data!.appId;
    const web = await admin.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: { name: 'web', redirectUris: ['https://app.example.com/cb'] } });
    expect(web.data?.clientSecret).toBeTruthy();
    expect(web.data?.noneCompliant).toBe(false);
    expect((await admin.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: { ...spa, grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: { ...spa, redirectUris: ['not a uri'] } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: spa })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: spa })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: spa })).response.status).toBe(404);

    // GetAppByID
    const a = (id: string) => ({ params: { path: { projectId, appId: id } } });
    const got = await admin.GET('/management/v1/projects/{projectId}/apps/{appId}', a(appId));
    expect(got.data?.app.oidcConfig).toMatchObject({ clientId: added.data!.clientId, authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', accessTokenType: 'OIDC_TOKEN_TYPE_JWT', clockSkew: '0s' });
    expect((await admin.GET('/management/v1/projects/{projectId}/apps/{appId}', a(LONG))).response.status).toBe(400);
    expect((await anonymous.GET('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).response.status).toBe(401);
    expect((await outsider.GET('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).response.status).toBe(403);
    expect((await admin.GET('/management/v1/projects/{projectId}/apps/{appId}', a('missing'))).response.status).toBe(404);

    // ListApps
    const list = await admin.POST('/management/v1/projects/{projectId}/apps/_search', { ...p, body: {} });
    expect(list.data?.result.map((x) => x.name)).toEqual(['spa', 'web']);
    expect((await admin.POST('/management/v1/projects/{projectId}/apps/_search', { ...p, body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/apps/_search', { ...p, body: {} })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/apps/_search', { ...p, body: {} })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/apps/_search', { ...p, body: {} })).response.status).toBe(404);

    // UpdateOIDCAppConfig: devMode clears the compliance problem; becoming confidential yields a secret once.
    expect((await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}/oidc_config', { ...a(appId), body: { devMode: true } })).response.status).toBe(200);
    expect((await admin.GET('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).data?.app.oidcConfig?.noneCompliant).toBe(false);
    const secret = await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}/oidc_config', { ...a(appId), body: { authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' } });
    expect(secret.data?.clientSecret).toBeTruthy();
    expect((await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}/oidc_config', { ...a(appId), body: { devMode: true } })).response.status).toBe(400);
    expect((await anonymous.PUT('/management/v1/projects/{projectId}/apps/{appId}/oidc_config', { ...a(appId), body: {} })).response.status).toBe(401);
    expect((await outsider.PUT('/management/v1/projects/{projectId}/apps/{appId}/oidc_config', { ...a(appId), body: {} })).response.status).toBe(403);
    expect((await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}/oidc_config', { ...a('missing'), body: { devMode: true } })).response.status).toBe(404);

    // UpdateApp: renames; the same name again is 400.
    const renamed = await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}', { ...a(appId), body: { name: 'spa renamed' } });
    expect(renamed.response.status).toBe(200);
    expect((await admin.GET('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).data?.app.name).toBe('spa renamed');
    expect((await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}', { ...a(appId), body: { name: 'spa renamed' } })).response.status).toBe(400);
    expect((await anonymous.PUT('/management/v1/projects/{projectId}/apps/{appId}', { ...a(appId), body: { name: 'x' } })).response.status).toBe(401);
    expect((await outsider.PUT('/management/v1/projects/{projectId}/apps/{appId}', { ...a(appId), body: { name: 'x' } })).response.status).toBe(403);
    expect((await admin.PUT('/management/v1/projects/{projectId}/apps/{appId}', { ...a('missing'), body: { name: 'x' } })).response.status).toBe(404);

    // RegenerateOIDCClientSecret: confidential clients only.
    const gen = '/management/v1/projects/{projectId}/apps/{appId}/oidc_config/_generate_client_secret' as const;
    const regenerated = await admin.POST(gen, a(web.data!.appId));
    expect(regenerated.response.status).toBe(200);
    expect(regenerated.data?.clientSecret).toBeTruthy();
    expect(regenerated.data?.clientSecret).not.toBe(web.data?.clientSecret);
    const publicApp = await admin.POST('/management/v1/projects/{projectId}/apps/oidc', { ...p, body: { ...spa, name: 'public' } });
    expect((await admin.POST(gen, a(publicApp.data!.appId))).response.status).toBe(400);
    expect((await anonymous.POST(gen, a(web.data!.appId))).response.status).toBe(401);
    expect((await outsider.POST(gen, a(web.data!.appId))).response.status).toBe(403);
    expect((await inOther.POST(gen, a(web.data!.appId))).response.status).toBe(404);

    // AddAPIApp, RegenerateAPIClientSecret
    const addApi = (body: { name: string; authMethodType?: 'API_AUTH_METHOD_TYPE_BASIC' | 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' }) =>
      admin.POST('/management/v1/projects/{projectId}/apps/api', { ...p, body });
    const api = await addApi({ name: 'contract-api' });
    expect(api.response.status).toBe(200);
    expect(api.data?.clientSecret).toBeTruthy();
    expect((await addApi({ name: LONG })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/apps/api', { ...p, body: { name: 'x' } })).response.status).toBe(401);
    expect((await outsider.POST('/management/v1/projects/{projectId}/apps/api', { ...p, body: { name: 'x' } })).response.status).toBe(403);
    expect((await inOther.POST('/management/v1/projects/{projectId}/apps/api', { ...p, body: { name: 'x' } })).response.status).toBe(404);
    expect((await admin.GET('/management/v1/projects/{projectId}/apps/{appId}', a(api.data!.appId))).data?.app.apiConfig?.clientId).toBe(api.data!.clientId);
    const genApi = '/management/v1/projects/{projectId}/apps/{appId}/api_config/_generate_client_secret' as const;
    expect((await admin.POST(genApi, a(api.data!.appId))).response.status).toBe(200);
    expect((await admin.POST(genApi, a(web.data!.appId))).response.status).toBe(400);
    expect((await anonymous.POST(genApi, a(api.data!.appId))).response.status).toBe(401);
    expect((await outsider.POST(genApi, a(api.data!.appId))).response.status).toBe(403);
    expect((await inOther.POST(genApi, a(api.data!.appId))).response.status).toBe(404);

    // UpdateAPIAppConfig: to PRIVATE_KEY_JWT (the secret goes), back to BASIC (a new secret, once).
    const apiConfig = '/management/v1/projects/{projectId}/apps/{appId}/api_config' as const;
    const toKeys = { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' as const };
    const switched = await admin.PUT(apiConfig, { ...a(api.data!.appId), body: toKeys });
    expect(switched.response.status).toBe(200);
    expect(switched.data?.clientSecret).toBeUndefined();
    expect((await admin.PUT(apiConfig, { ...a(api.data!.appId), body: toKeys })).response.status).toBe(400);
    expect((await admin.PUT(apiConfig, { ...a(web.data!.appId), body: toKeys })).response.status).toBe(400);
    expect((await anonymous.PUT(apiConfig, { ...a(api.data!.appId), body: toKeys })).response.status).toBe(401);
    expect((await outsider.PUT(apiConfig, { ...a(api.data!.appId), body: toKeys })).response.status).toBe(403);
    expect((await inOther.PUT(apiConfig, { ...a(api.data!.appId), body: toKeys })).response.status).toBe(404);
    expect((await admin.PUT(apiConfig, { ...a(api.data!.appId), body: { authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' } })).data?.clientSecret).toBeTruthy();

    // Application keys: AddAppKey, ListAppKeys, GetAppKey, RemoveAppKey (on a PRIVATE_KEY_JWT application).
    const keyed = await addApi({ name: 'contract-keys', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });
    expect(keyed.response.status).toBe(200);
    expect(keyed.data?.clientSecret).toBeUndefined();
    const keyedAppId = keyed.data!.appId;
    const keys = '/management/v1/projects/{projectId}/apps/{appId}/keys' as const;
    const jsonKey = { type: 'KEY_TYPE_JSON' as const };
    const key = await admin.POST(keys, { ...a(keyedAppId), body: { ...jsonKey, expirationDate: '2099-01-01T00:00:00Z' } });
    expect(key.response.status).toBe(200);
    expect(JSON.parse(Buffer.from(key.data!.keyDetails, 'base64').toString('utf8'))).toMatchObject({ type: 'application', keyId: key.data!.id, appId: keyedAppId, clientId: keyed.data!.clientId });
    expect((await admin.POST(keys, { ...a(keyedAppId), body: { ...jsonKey, expirationDate: '2001-01-01T00:00:00Z' } })).response.status).toBe(400);
    expect((await admin.POST(keys, { ...a(api.data!.appId), body: jsonKey })).response.status).toBe(400);
    expect((await anonymous.POST(keys, { ...a(keyedAppId), body: jsonKey })).response.status).toBe(401);
    expect((await outsider.POST(keys, { ...a(keyedAppId), body: jsonKey })).response.status).toBe(403);
    expect((await inOther.POST(keys, { ...a(keyedAppId), body: jsonKey })).response.status).toBe(404);

    const keySearch = '/management/v1/projects/{projectId}/apps/{appId}/keys/_search' as const;
    expect((await admin.POST(keySearch, { ...a(keyedAppId), body: {} })).data?.result.map((k) => k.id)).toEqual([key.data!.id]);
    expect((await admin.POST(keySearch, { ...a(keyedAppId), body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST(keySearch, { ...a(keyedAppId), body: {} })).response.status).toBe(401);
    expect((await outsider.POST(keySearch, { ...a(keyedAppId), body: {} })).response.status).toBe(403);
    expect((await inOther.POST(keySearch, { ...a(keyedAppId), body: {} })).response.status).toBe(404);

    const oneKey = '/management/v1/projects/{projectId}/apps/{appId}/keys/{keyId}' as const;
    const k = (keyId: string) => ({ params: { path: { projectId, appId: keyedAppId, keyId } } });
    expect((await admin.GET(oneKey, k(key.data!.id))).data?.key).toMatchObject({ id: key.data!.id, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z' });
    expect((await admin.GET(oneKey, k(LONG))).response.status).toBe(400);
    expect((await anonymous.GET(oneKey, k(key.data!.id))).response.status).toBe(401);
    expect((await outsider.GET(oneKey, k(key.data!.id))).response.status).toBe(403);
    expect((await admin.GET(oneKey, k('missing'))).response.status).toBe(404);

    expect((await admin.DELETE(oneKey, k(LONG))).response.status).toBe(400);
    expect((await anonymous.DELETE(oneKey, k(key.data!.id))).response.status).toBe(401);
    expect((await outsider.DELETE(oneKey, k(key.data!.id))).response.status).toBe(403);
    expect((await admin.DELETE(oneKey, k(key.data!.id))).response.status).toBe(200);
    expect((await admin.DELETE(oneKey, k(key.data!.id))).response.status).toBe(404);

    // RemoveApp
    expect((await anonymous.DELETE('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).response.status).toBe(403);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/apps/{appId}', a(LONG))).response.status).toBe(400);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/projects/{projectId}/apps/{appId}', a(appId))).response.status).toBe(404);
  });
}
