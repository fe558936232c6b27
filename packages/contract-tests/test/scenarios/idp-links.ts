import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

/** ListHumanLinkedIDPs and RemoveHumanLinkedIDP; the link comes in through an import (sign-ins are in oauth.test.ts). */
export function idpLinkScenarios(h: () => Harness) {
  it('linked identities of a user: list, remove, 400/404, 401/403', async () => {
    const { admin, anonymous } = h();
    const n = Date.now() % 1_000_000_000;
    const [orgId, userId, idpId] = [`${n}1`, `${n}2`, `${n}3`];
    const imported = await admin.POST('/admin/v1/import', {
      body: {
        timeout: '1m',
        data_orgs: {
          orgs: [
            {
              orgId,
              org: { name: `links-${randomUUID().slice(0, 8)}` },
              humanUsers: [{ userId, user: { userName: 'linked', profile: { firstName: 'Lin', lastName: 'Ked' }, email: { email: 'linked@example.com', isEmailVerified: true } } }],
              jwtIdps: [
                { idpId, idp: { name: 'Legacy', jwtEndpoint: 'https://legacy.example/jwt', issuer: 'https://legacy.example', keysEndpoint: 'https://legacy.example/keys', headerName: 'x-jwt' } },
              ],
              userLinks: [{ userId, idpId, idpName: 'Legacy', providedUserId: 'sub-1', providedUserName: 'lin', idpType: 'IDP_TYPE_JWT' }],
            },
          ],
        },
      },
    });
    expect(imported.response.status).toBe(200);
    expect(imported.data?.errors ?? []).toEqual([]);
    const inOrg = h().clientFor(h().instance.adminToken, orgId);
    const path = { params: { path: { userId } } };
    const list = await inOrg.POST('/management/v1/users/{userId}/idps/_search', { ...path, body: {} });
    expect(list.response.status).toBe(200);
    expect(list.data?.result).toEqual([{ userId, idpId, idpName: 'Legacy', providedUserId: 'sub-1', providedUserName: 'lin', idpType: 'IDP_TYPE_JWT' }]);
    expect((await inOrg.POST('/management/v1/users/{userId}/idps/_search', { ...path, body: { query: { limit: -1 } } })).response.status).toBe(400);
    expect((await inOrg.POST('/management/v1/users/{userId}/idps/_search', { params: { path: { userId: 'missing' } }, body: {} })).response.status).toBe(404);

    const link = { params: { path: { userId, idpId, linkedUserId: 'sub-1' } } };
    expect((await anonymous.DELETE('/management/v1/users/{userId}/idps/{idpId}/{linkedUserId}', link)).response.status).toBe(401);
    expect((await anonymous.POST('/management/v1/users/{userId}/idps/_search', { ...path, body: {} })).response.status).toBe(401);
    const { client } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'], orgId });
    expect((await client.DELETE('/management/v1/users/{userId}/idps/{idpId}/{linkedUserId}', link)).response.status).toBe(403);
    expect((await client.POST('/management/v1/users/{userId}/idps/_search', { ...path, body: {} })).response.status).toBe(403);
    expect((await inOrg.DELETE('/management/v1/users/{userId}/idps/{idpId}/{linkedUserId}', link)).response.status).toBe(200);
    expect((await inOrg.DELETE('/management/v1/users/{userId}/idps/{idpId}/{linkedUserId}', link)).response.status).toBe(404);
    // A NUL no stored id can hold → 400 naming the parameter.
    const nul = await inOrg.DELETE('/management/v1/users/{userId}/idps/{idpId}/{linkedUserId}', { params: { path: { userId, idpId, linkedUserId: 'a\u0000b' } } });
    expect(nul.response.status).toBe(400);
    expect(nul.error?.message).toMatch(/^invalid linkedUserId: value must not contain NUL/);
  });
}
