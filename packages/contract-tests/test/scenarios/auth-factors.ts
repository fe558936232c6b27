import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

// Base32, as ZITADEL exports a TOTP secret with `withOtp`.
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** ListHumanAuthFactors and RemoveHumanAuthFactorOTP; the secret comes in with ImportHumanUser's `otpCode`. */
export function authFactorScenarios(h: () => Harness) {
  it('second factors of a user: list, remove the authenticator app, 400/404, 401/403', async () => {
    const { admin, anonymous } = h();
    const userName = `otp-${Date.now()}`;
    const badSecret = await admin.POST('/management/v1/users/human/_import', {
      body: { userName, profile: { firstName: 'O', lastName: 'Tp' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: 'Secr3t-Passw0rd!', otpCode: 'not base32!' },
    });
    expect(badSecret.response.status).toBe(400);
    expect(badSecret.error?.message).toMatch(/otpCode/);
    const created = await admin.POST('/management/v1/users/human/_import', {
      body: { userName, profile: { firstName: 'O', lastName: 'Tp' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: 'Secr3t-Passw0rd!', otpCode: SECRET },
    });
    expect(created.response.status).toBe(200);
    const path = { params: { path: { userId: created.data!.userId } } };

    const list = await admin.POST('/management/v1/users/{userId}/auth_factors/_search', { ...path, body: {} });
    expect(list.response.status).toBe(200);
    expect(list.data?.result).toEqual([{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }]);
    // An unknown field, as everywhere → 400; an unknown user → 404.
    expect((await admin.POST('/management/v1/users/{userId}/auth_factors/_search', { ...path, body: { what: 1 } as never })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/auth_factors/_search', { params: { path: { userId: 'missing' } }, body: {} })).response.status).toBe(404);
    expect((await anonymous.POST('/management/v1/users/{userId}/auth_factors/_search', { ...path, body: {} })).response.status).toBe(401);
    expect((await anonymous.DELETE('/management/v1/users/{userId}/auth_factors/otp', path)).response.status).toBe(401);
    const { client } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    expect((await client.POST('/management/v1/users/{userId}/auth_factors/_search', { ...path, body: {} })).response.status).toBe(403);
    expect((await client.DELETE('/management/v1/users/{userId}/auth_factors/otp', path)).response.status).toBe(403);

    expect((await admin.DELETE('/management/v1/users/{userId}/auth_factors/otp', path)).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/auth_factors/_search', { ...path, body: {} })).data?.result).toEqual([]);
    const again = await admin.DELETE('/management/v1/users/{userId}/auth_factors/otp', path);
    expect(again.response.status).toBe(404);
    expect(again.error?.details?.[0]?.id).toBe('COMMAND-3Mif9s');
    expect((await admin.DELETE('/management/v1/users/{userId}/auth_factors/otp', { params: { path: { userId: 'a\u0000b' } } })).response.status).toBe(400);
  });
}
