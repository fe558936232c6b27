import { generateToken, hashToken, NO_EXPIRY } from '@identity-service/server/src/auth/tokens.js';
import { newId } from '@identity-service/server/src/domain/ids.js';
import { totpCode } from '@identity-service/server/src/domain/login/totp.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

/**
 * ListMyAuthFactors, AddMyAuthFactorOTP, VerifyMyAuthFactorOTP, RemoveMyAuthFactorOTP: a person's
 * own authenticator app. The person's bearer token is written through the store (a sign-in through
 * the login is oauth.test.ts's and the server's auth-factors-api.test.ts's business).
 */
export function myAuthFactorScenarios(h: () => Harness) {
  it("the caller's own authenticator app: add, verify, list, remove; 400/401/404/409/429", async () => {
    const { admin, anonymous, instance } = h();
    const userName = `me-${Date.now()}`;
    const created = await admin.POST('/management/v1/users/human/_import', {
      body: { userName, profile: { firstName: 'M', lastName: 'E' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: 'Secr3t-Passw0rd!' },
    });
    expect(created.response.status).toBe(200);
    const token = generateToken();
    await instance.store.transaction(async (tx) => {
      const at = new Date();
      await tx.tokens.insert({ id: newId(), userId: created.data!.userId, tokenHash: hashToken(token), expiresAt: NO_EXPIRY, sequence: 1, createdAt: at, changedAt: at });
    });
    const me = h().clientFor(token);

    expect((await me.POST('/auth/v1/users/me/auth_factors/_search', { body: {} })).data?.result).toEqual([]);
    expect((await me.POST('/auth/v1/users/me/auth_factors/_search', { body: { what: 1 } as never })).response.status).toBe(400);
    // An organisation context the caller has nothing in (an unknown x-service-orgid): 403, as every operation.
    const elsewhere = h().clientFor(token, '999999');
    expect((await elsewhere.POST('/auth/v1/users/me/auth_factors/_search', { body: {} })).response.status).toBe(403);
    expect((await elsewhere.POST('/auth/v1/users/me/auth_factors/otp', { body: {} })).response.status).toBe(403);
    expect((await elsewhere.POST('/auth/v1/users/me/auth_factors/otp/_verify', { body: { code: '123456' } })).response.status).toBe(403);
    expect((await elsewhere.DELETE('/auth/v1/users/me/auth_factors/otp', {})).response.status).toBe(403);
    expect((await anonymous.POST('/auth/v1/users/me/auth_factors/_search', { body: {} })).response.status).toBe(401);
    const nothing = await me.POST('/auth/v1/users/me/auth_factors/otp/_verify', { body: { code: '123456' } });
    expect(nothing.response.status).toBe(404);
    expect(nothing.error?.details?.[0]?.id).toBe('COMMAND-3Mif9s');
    expect((await anonymous.POST('/auth/v1/users/me/auth_factors/otp/_verify', { body: { code: '123456' } })).response.status).toBe(401);
    expect((await anonymous.POST('/auth/v1/users/me/auth_factors/otp', { body: {} })).response.status).toBe(401);
    expect((await anonymous.DELETE('/auth/v1/users/me/auth_factors/otp')).response.status).toBe(401);

    const added = await me.POST('/auth/v1/users/me/auth_factors/otp', { body: {} });
    expect(added.response.status).toBe(200);
    expect(added.data?.url).toMatch(/^otpauth:\/\/totp\//);
    expect((await me.POST('/auth/v1/users/me/auth_factors/_search', { body: {} })).data?.result).toEqual([{ state: 'AUTH_FACTOR_STATE_NOT_READY', otp: {} }]);
    // Three wrong codes; the next check within a second is throttled, the code not looked at (429).
    for (let i = 0; i < 3; i++) {
      const wrong = await me.POST('/auth/v1/users/me/auth_factors/otp/_verify', { body: { code: totpCode(added.data!.secret, Date.now() + (10 + i) * 60_000) } });
      expect(wrong.response.status).toBe(400);
      expect(wrong.error?.details?.[0]?.id).toBe('EVENT-8isk2');
    }
    const early = await me.POST('/auth/v1/users/me/auth_factors/otp/_verify', { body: { code: totpCode(added.data!.secret) } });
    expect(early.response.status).toBe(429);
    expect(early.error?.details?.[0]?.id).toBe('CODE-w41t1');
    expect(early.response.headers.get('retry-after')).toBe('1');
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await me.POST('/auth/v1/users/me/auth_factors/otp/_verify', { body: { code: totpCode(added.data!.secret) } })).response.status).toBe(200);
    const twice = await me.POST('/auth/v1/users/me/auth_factors/otp', { body: {} });
    expect(twice.response.status).toBe(409);
    expect(twice.error?.details?.[0]?.id).toBe('COMMAND-do9se');
    expect((await me.POST('/auth/v1/users/me/auth_factors/_search', { body: {} })).data?.result).toEqual([{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }]);

    expect((await me.DELETE('/auth/v1/users/me/auth_factors/otp')).response.status).toBe(200);
    const gone = await me.DELETE('/auth/v1/users/me/auth_factors/otp');
    expect(gone.response.status).toBe(404);
    expect(gone.error?.details?.[0]?.id).toBe('COMMAND-Hd9sd');
    // A machine user (the admin) is no person: 400 (ZITADEL's FailedPrecondition).
    expect((await admin.POST('/auth/v1/users/me/auth_factors/otp', { body: {} })).response.status).toBe(400);
    expect((await admin.DELETE('/auth/v1/users/me/auth_factors/otp')).response.status).toBe(400);
  });
}
