import { insertHumanUser, insertMachineUserWithToken } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const LONG = '9'.repeat(201);

/** Machine users' keys: AddMachineKey, ListMachineKeys, GetMachineKeyByIDs, RemoveMachineKey. */
export function machineKeyScenarios(h: () => Harness) {
  it('machine keys: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    const { userId } = await insertMachineUserWithToken(instance);
    const { userId: humanId } = await insertHumanUser(instance, { userName: 'contract-key-human' });
    const u = (id: string) => ({ params: { path: { userId: id } } });
    const keys = '/management/v1/users/{userId}/keys' as const;
    const jsonKey = { type: 'KEY_TYPE_JSON' as const };

    const added = await admin.POST(keys, { ...u(userId), body: { ...jsonKey, expirationDate: '2099-01-01T00:00:00Z' } });
    expect(added.response.status).toBe(200);
    expect(JSON.parse(Buffer.from(added.data!.keyDetails!, 'base64').toString('utf8'))).toMatchObject({ type: 'serviceaccount', keyId: added.data!.keyId, userId });
    expect((await admin.POST(keys, { ...u(userId), body: { ...jsonKey, expirationDate: '2001-01-01T00:00:00Z' } })).response.status).toBe(400);
    expect((await admin.POST(keys, { ...u(humanId), body: jsonKey })).response.status).toBe(400);
    expect((await anonymous.POST(keys, { ...u(userId), body: jsonKey })).response.status).toBe(401);
    expect((await outsider.POST(keys, { ...u(userId), body: jsonKey })).response.status).toBe(403);
    expect((await admin.POST(keys, { ...u('missing'), body: jsonKey })).response.status).toBe(404);

    const search = '/management/v1/users/{userId}/keys/_search' as const;
    expect((await admin.POST(search, { ...u(userId), body: {} })).data?.result).toEqual([
      { id: added.data!.keyId, details: expect.any(Object), type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z' },
    ]);
    expect((await admin.POST(search, { ...u(userId), body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST(search, { ...u(userId), body: {} })).response.status).toBe(401);
    expect((await outsider.POST(search, { ...u(userId), body: {} })).response.status).toBe(403);
    expect((await admin.POST(search, { ...u('missing'), body: {} })).response.status).toBe(404);

    const one = '/management/v1/users/{userId}/keys/{keyId}' as const;
    const k = (keyId: string) => ({ params: { path: { userId, keyId } } });
    expect((await admin.GET(one, k(added.data!.keyId))).data?.key).toMatchObject({ id: added.data!.keyId, type: 'KEY_TYPE_JSON' });
    expect((await admin.GET(one, k(LONG))).response.status).toBe(400);
    expect((await anonymous.GET(one, k(added.data!.keyId))).response.status).toBe(401);
    expect((await outsider.GET(one, k(added.data!.keyId))).response.status).toBe(403);
    expect((await admin.GET(one, k('missing'))).response.status).toBe(404);

    expect((await admin.DELETE(one, k(LONG))).response.status).toBe(400);
    expect((await anonymous.DELETE(one, k(added.data!.keyId))).response.status).toBe(401);
    expect((await outsider.DELETE(one, k(added.data!.keyId))).response.status).toBe(403);
    expect((await admin.DELETE(one, k(added.data!.keyId))).response.status).toBe(200);
    expect((await admin.DELETE(one, k(added.data!.keyId))).response.status).toBe(404);
  });
}
