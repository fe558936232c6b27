/**
 * Applications arriving by import (issue 15.2): ZITADEL's documents leave optional fields out, and
 * such an application must read, list and update like one added through the API. A row stored
 * without them (by an earlier version) must not make a read fail either.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('imported OIDC applications', (dialect) => {
  let t: TestInstance;
  const orgId = '771100';
  const projectId = '771101';
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    const res = await t.call('POST', '/admin/v1/import', {
      body: {
        timeout: '1m',
        data_orgs: {
          orgs: [
            {
              orgId,
              org: { name: 'Imported apps' },
              projects: [{ projectId, project: { name: 'shop' } }],
              // Only what ZITADEL's export always writes: no URIs lists, no clockSkew, no devMode.
              oidcApps: [
                { appId: '771102', app: { projectId, name: 'bare', redirectUris: ['https://shop.example.com/cb'] } },
                { appId: '771103', app: { projectId, name: 'native', appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' } },
              ],
            },
          ],
        },
      },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).errors ?? []).toEqual([]);
  });
  afterAll(async () => {
    await t.close();
  });

  const inOrg = { 'x-service-orgid': orgId };

  it('lists and reads them with the defaults AddOIDCApp applies', async () => {
    const list = await t.call('POST', `/management/v1/projects/${projectId}/apps/_search`, { body: {}, headers: inOrg });
    expect(list.status, await list.clone().text()).toBe(200);
    const apps = (await list.json()).result;
    expect(apps).toHaveLength(2);
    const bare = await (await t.call('GET', `/management/v1/projects/${projectId}/apps/771102`, { headers: inOrg })).json();
    expect(bare.app.oidcConfig).toMatchObject({ postLogoutRedirectUris: [], clockSkew: '0s', devMode: false, additionalOrigins: [] });
  });

  it('updates them without fields the caller did not send', async () => {
    const res = await t.call('PUT', `/management/v1/projects/${projectId}/apps/771102/oidc_config`, {
      body: { redirectUris: ['https://shop.example.com/callback'] },
      headers: inOrg,
    });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('reads a row stored without its optional fields', async () => {
    const row = await t.store.read.oidcApps.get(projectId, '771103');
    expect(row).toBeDefined();
    await t.store.transaction((tx) => tx.transfer.insertOidcApps([{ ...row!, id: '771104', clientId: `legacy-${Date.now()}`, name: 'legacy', config: { appType: 'OIDC_APP_TYPE_WEB' } }]));
    const list = await t.call('POST', `/management/v1/projects/${projectId}/apps/_search`, { body: {}, headers: inOrg });
    expect(list.status, await list.clone().text()).toBe(200);
    const put = await t.call('PUT', `/management/v1/projects/${projectId}/apps/771104/oidc_config`, { body: { redirectUris: ['https://legacy.example.com/cb'] }, headers: inOrg });
    expect(put.status, await put.clone().text()).toBe(200);
  });
});
