/**
 * Issue 14 (the OAuth hot paths): oidc-provider looks a client up on every token, introspection and
 * revocation request; `clientLookup` (src/oidc/clients.ts) keeps what it found like authentication
 * keeps a token's owner. Checked: found once while nothing changes; a new secret, a deactivated
 * machine user and a removed application are seen at once; unknown clients are looked up every
 * time; callers get copies, so one request cannot change what the next one sees.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientLookup } from '../../src/oidc/clients.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('client lookup cache', (dialect) => {
  let t: TestInstance;
  let lookups: string[];
  let restore: () => void;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    // Counts the queries a lookup starts with (an application by client id, then a machine secret).
    lookups = [];
    const apps = t.store.read.oidcApps;
    const byClientId = apps.byClientId;
    apps.byClientId = async (clientId) => {
      lookups.push(clientId);
      return byClientId.call(apps, clientId);
    };
    restore = () => void (apps.byClientId = byClientId);
  });
  afterAll(async () => {
    restore?.();
    await t?.close();
  });

  const json = async (res: Response) => {
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Record<string, any>;
  };

  it("keeps a machine user's client until its secret or its user changes", async () => {
    const robot = await json(await t.call('POST', '/management/v1/users/machine', { body: { userName: `cache-robot-${Date.now()}`, name: 'robot' } }));
    const first = await json(await t.call('PUT', `/management/v1/users/${robot.userId}/secret`, { body: {} }));
    const find = clientLookup(t.store);
    lookups.length = 0;

    const found = await find(first.clientId);
    expect(found).toMatchObject({ client_id: first.clientId, kind: 'machine', user_id: robot.userId });
    found!.grant_types = ['authorization_code'];
    for (let i = 0; i < 4; i++) expect(await find(first.clientId)).toMatchObject({ client_id: first.clientId, grant_types: ['client_credentials'] });
    expect(lookups).toHaveLength(1);

    const second = await json(await t.call('PUT', `/management/v1/users/${robot.userId}/secret`, { body: {} }));
    const renewed = await find(second.clientId);
    expect(renewed?.client_secret).toBeDefined();
    expect(renewed?.client_secret).not.toBe(found!.client_secret);
    expect(lookups).toHaveLength(2);

    expect((await t.call('POST', `/management/v1/users/${robot.userId}/_deactivate`, { body: {} })).status).toBe(200);
    expect(await find(second.clientId)).toBeUndefined();
  });

  it('forgets a removed application at once', async () => {
    const project = await json(await t.call('POST', '/management/v1/projects', { body: { name: `cache-project-${Date.now()}` } }));
    const app = await json(await t.call('POST', `/management/v1/projects/${project.id}/apps/api`, { body: { name: 'cached-api' } }));
    const find = clientLookup(t.store);
    lookups.length = 0;
    for (let i = 0; i < 3; i++) expect(await find(app.clientId)).toMatchObject({ client_id: app.clientId, kind: 'app', project_id: project.id });
    expect(lookups).toHaveLength(1);

    expect((await t.call('DELETE', `/management/v1/projects/${project.id}/apps/${app.appId}`)).status).toBe(200);
    expect(await find(app.clientId)).toBeUndefined();
  });

  it('looks an unknown client up every time', async () => {
    const find = clientLookup(t.store);
    lookups.length = 0;
    for (let i = 0; i < 3; i++) expect(await find('no-such-client')).toBeUndefined();
    expect(lookups).toHaveLength(3);
  });
});
