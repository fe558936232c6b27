import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const ADMIN = '/admin/v1/policies/password/complexity' as const;
const ORG = '/management/v1/policies/password/complexity' as const;
const ORG_DEFAULT = '/management/v1/policies/default/password/complexity' as const;

/** The password complexity policy: every documented status through the typed client. */
export function policyScenarios(h: () => Harness) {
  it('password complexity policy: instance default and organisation policy; 400, 401, 403, 404, 409', async () => {
    const { admin, anonymous } = h();
    const { client: viewer } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'], instance: [] });
    const policy = { minLength: 10, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: false };
    expect((await admin.GET(ADMIN)).data?.policy.isDefault).toBe(true);
    expect((await admin.PUT(ADMIN, { body: policy })).response.status).toBe(200);
    expect((await admin.PUT(ADMIN, { body: policy })).response.status).toBe(400);
    expect((await admin.GET(ORG_DEFAULT)).data?.policy.minLength).toBe('10');

    expect((await admin.PUT(ORG, { body: policy })).response.status).toBe(404);
    expect((await admin.POST(ORG, { body: { ...policy, minLength: 6 } })).response.status).toBe(200);
    expect((await admin.POST(ORG, { body: policy })).response.status).toBe(409);
    expect((await admin.POST(ORG, { body: { minLength: 99 } })).response.status).toBe(400);
    expect((await admin.GET(ORG)).data?.policy).toMatchObject({ minLength: '6', isDefault: false });
    expect((await admin.PUT(ORG, { body: { ...policy, minLength: 7 } })).response.status).toBe(200);
    expect((await admin.PUT(ORG, { body: { ...policy, minLength: 7 } })).response.status).toBe(400);
    expect((await admin.DELETE(ORG)).response.status).toBe(200);
    expect((await admin.DELETE(ORG)).response.status).toBe(404);
    // Back to ZITADEL's default for the scenarios that follow.
    expect((await admin.PUT(ADMIN, { body: { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true } })).response.status).toBe(200);

    for (const [c, status] of [[anonymous, 401], [viewer, 403]] as const) {
      expect((await c.GET(ADMIN)).response.status).toBe(status);
      expect((await c.PUT(ADMIN, { body: policy })).response.status).toBe(status);
      expect((await c.GET(ORG)).response.status).toBe(status);
      expect((await c.GET(ORG_DEFAULT)).response.status).toBe(status);
      expect((await c.POST(ORG, { body: policy })).response.status).toBe(status);
      expect((await c.PUT(ORG, { body: policy })).response.status).toBe(status);
      expect((await c.DELETE(ORG)).response.status).toBe(status);
    }
  });
}
