import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

/**
 * A path parameter no stored id can hold (U+0000, sent as %00; PostgreSQL cannot even compare
 * against it) is refused with 400 naming the parameter, on every operation that takes one.
 */
const NUL = 'a\u0000b';

export function pathParameterScenarios(h: () => Harness) {
  it('a NUL in a path parameter → 400 naming it', async () => {
    const { admin } = h();
    const answers = [
      await admin.GET('/admin/v1/idps/{idpId}', { params: { path: { idpId: NUL } } }),
      await admin.DELETE('/admin/v1/idps/{idpId}', { params: { path: { idpId: NUL } } }),
      await admin.DELETE('/admin/v1/members/{userId}', { params: { path: { userId: NUL } } }),
      await admin.GET('/admin/v1/orgs/{orgId}', { params: { path: { orgId: NUL } } }),
      await admin.GET('/management/v1/idps/{idpId}', { params: { path: { idpId: NUL } } }),
      await admin.DELETE('/management/v1/idps/{idpId}', { params: { path: { idpId: NUL } } }),
      await admin.DELETE('/management/v1/orgs/me/members/{userId}', { params: { path: { userId: NUL } } }),
      await admin.DELETE('/management/v1/users/{userId}/pats/{tokenId}', { params: { path: { userId: NUL, tokenId: '1' } } }),
      await admin.GET('/management/v1/users/{userId}', { params: { path: { userId: NUL } } }),
      await admin.DELETE('/management/v1/users/{userId}', { params: { path: { userId: NUL } } }),
    ];
    for (const { response, error } of answers) {
      expect(response.status, response.url).toBe(400);
      expect((error as { message?: string } | undefined)?.message, response.url).toMatch(/^invalid (idpId|userId|orgId): value must not contain NUL/);
    }
  });
}
