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

    for (const [c, status] of [
      [anonymous, 401],
      [viewer, 403],
    ] as const) {
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

/** The lockout policy and a user's state by hand: every documented status. */
export function lockoutScenarios(h: () => Harness) {
  it('lockout policy and user state: every documented status', async () => {
    const { admin, anonymous } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'] });
    const A = '/admin/v1/policies/lockout' as const;
    const O = '/management/v1/policies/lockout' as const;
    const D = '/management/v1/policies/default/lockout' as const;
    expect((await admin.GET(A)).data?.policy.isDefault).toBe(true);
    expect((await admin.PUT(A, { body: { maxPasswordAttempts: 7 } })).response.status).toBe(200);
    expect((await admin.PUT(A, { body: { maxPasswordAttempts: 7 } })).response.status).toBe(400);
    expect((await admin.GET(D)).data?.policy.maxPasswordAttempts).toBe('7');
    expect((await admin.PUT(O, { body: { maxPasswordAttempts: 3 } })).response.status).toBe(404);
    expect((await admin.POST(O, { body: { maxPasswordAttempts: 3 } })).response.status).toBe(200);
    expect((await admin.POST(O, { body: { maxPasswordAttempts: 3 } })).response.status).toBe(409);
    expect((await admin.POST(O, { body: { maxPasswordAttempts: -1 } })).response.status).toBe(400);
    expect((await admin.GET(O)).data?.policy).toMatchObject({ maxPasswordAttempts: '3', isDefault: false });
    expect((await admin.PUT(O, { body: { maxPasswordAttempts: 4 } })).response.status).toBe(200);
    expect((await admin.PUT(O, { body: { maxPasswordAttempts: 4 } })).response.status).toBe(400);
    expect((await admin.DELETE(O)).response.status).toBe(200);
    expect((await admin.DELETE(O)).response.status).toBe(404);
    expect((await admin.PUT(A, { body: { maxPasswordAttempts: 0 } })).response.status).toBe(200);
    for (const [c, status] of [
      [anonymous, 401],
      [outsider, 403],
    ] as const) {
      expect((await c.GET(A)).response.status).toBe(status);
      expect((await c.PUT(A, { body: {} })).response.status).toBe(status);
      expect((await c.GET(O)).response.status).toBe(status);
      expect((await c.GET(D)).response.status).toBe(status);
      expect((await c.POST(O, { body: {} })).response.status).toBe(status);
      expect((await c.PUT(O, { body: {} })).response.status).toBe(status);
      expect((await c.DELETE(O)).response.status).toBe(status);
    }

    const userId = (await admin.POST('/management/v1/users/machine', { body: { userName: `state-${Date.now()}`, name: 'State' } })).data!.userId;
    const user = (id = userId) => ({ params: { path: { userId: id } } });
    expect((await admin.POST('/management/v1/users/{userId}/_lock', user())).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/_lock', user())).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/_unlock', user())).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/_unlock', user())).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/_reactivate', user())).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/_deactivate', user())).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/_deactivate', user())).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/_reactivate', user())).response.status).toBe(200);
    for (const op of ['_lock', '_unlock', '_deactivate', '_reactivate'] as const) {
      const path = `/management/v1/users/{userId}/${op}` as '/management/v1/users/{userId}/_lock';
      expect((await admin.POST(path, user('missing'))).response.status).toBe(404);
      expect((await anonymous.POST(path, user())).response.status).toBe(401);
      expect((await outsider.POST(path, user())).response.status).toBe(403);
    }
  });
}

type AnyClient = { GET: Function; PUT: Function; POST: Function; DELETE: Function };

/** Login, privacy, label and domain policies: the same seven operations each, every documented status. */
export function morePolicyScenarios(h: () => Harness) {
  const kinds = [
    {
      path: 'login',
      first: { allowUsernamePassword: true, allowExternalIdp: false },
      second: { allowUsernamePassword: true, allowExternalIdp: true },
      bad: { passwordCheckLifetime: 'soon' },
      field: 'allowExternalIdp',
    },
    { path: 'privacy', first: { tosLink: 'https://example.com/tos' }, second: { tosLink: 'https://example.com/tos2' }, bad: { supportEmail: 'not an address' }, field: 'tosLink' },
    { path: 'label', first: { primaryColor: '#123456' }, second: { primaryColor: '#654321' }, bad: { primaryColor: 'red; background:url(x)' }, field: 'primaryColor' },
    { path: 'domain', first: { userLoginMustBeDomain: false }, second: { userLoginMustBeDomain: true }, bad: { userLoginMustBeDomain: 'yes' }, field: 'userLoginMustBeDomain' },
  ];
  for (const k of kinds) {
    it(`${k.path} policy: instance default and organisation policy; 400, 401, 403, 404, 409`, async () => {
      const admin = h().admin as unknown as AnyClient;
      const anonymous = h().anonymous as unknown as AnyClient;
      const { client } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'], instance: [] });
      const viewer = client as unknown as AnyClient;
      const A = `/admin/v1/policies/${k.path}`;
      const O = `/management/v1/policies/${k.path}`;
      const D = `/management/v1/policies/default/${k.path}`;
      const before = (await admin.GET(A)).data.policy;
      expect(before.isDefault).toBe(true);
      expect((await admin.PUT(A, { body: k.first })).response.status).toBe(200);
      expect((await admin.PUT(A, { body: k.first })).response.status).toBe(400);
      expect((await admin.PUT(A, { body: k.bad })).response.status).toBe(400);
      expect((await admin.GET(D)).data.policy[k.field]).toEqual((k.first as Record<string, unknown>)[k.field]);
      expect((await admin.PUT(O, { body: k.second })).response.status).toBe(404);
      expect((await admin.POST(O, { body: k.second })).response.status).toBe(200);
      expect((await admin.POST(O, { body: k.second })).response.status).toBe(409);
      expect((await admin.POST(O, { body: k.bad })).response.status).toBe(400);
      expect((await admin.GET(O)).data.policy).toMatchObject({ [k.field]: (k.second as Record<string, unknown>)[k.field], isDefault: false });
      expect((await admin.PUT(O, { body: k.first })).response.status).toBe(200);
      expect((await admin.PUT(O, { body: k.first })).response.status).toBe(400);
      expect((await admin.DELETE(O)).response.status).toBe(200);
      expect((await admin.DELETE(O)).response.status).toBe(404);
      // Back to the built-in default for the scenarios that follow.
      const { details: _d, isDefault: _i, ...builtIn } = before;
      expect((await admin.PUT(A, { body: builtIn })).response.status).toBe(200);
      for (const [c, status] of [
        [anonymous, 401],
        [viewer, 403],
      ] as const) {
        expect((await c.GET(A)).response.status).toBe(status);
        expect((await c.PUT(A, { body: k.first })).response.status).toBe(status);
        expect((await c.GET(O)).response.status).toBe(status);
        expect((await c.GET(D)).response.status).toBe(status);
        expect((await c.POST(O, { body: k.first })).response.status).toBe(status);
        expect((await c.PUT(O, { body: k.first })).response.status).toBe(status);
        expect((await c.DELETE(O)).response.status).toBe(status);
      }
    });
  }

  it('login and label policies take enums by name or by number (protojson) and show them by name', async () => {
    const { admin } = h();
    const secondFactors: (number | 'SECOND_FACTOR_TYPE_U2F')[] = [1, 'SECOND_FACTOR_TYPE_U2F'];
    expect((await admin.POST('/management/v1/policies/login', { body: { passwordlessType: 1, secondFactors, multiFactors: [1] } })).response.status).toBe(200);
    expect((await admin.GET('/management/v1/policies/login')).data?.policy).toMatchObject({
      passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
      secondFactors: ['SECOND_FACTOR_TYPE_OTP', 'SECOND_FACTOR_TYPE_U2F'],
      multiFactors: ['MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION'],
    });
    expect((await admin.PUT('/management/v1/policies/login', { body: { passwordlessType: 2, secondFactors, multiFactors: [1] } })).response.status).toBe(400);
    expect((await admin.DELETE('/management/v1/policies/login')).response.status).toBe(200);
    expect((await admin.POST('/management/v1/policies/label', { body: { themeMode: 3 } })).response.status).toBe(200);
    expect((await admin.GET('/management/v1/policies/label')).data?.policy.themeMode).toBe('THEME_MODE_LIGHT');
    expect((await admin.DELETE('/management/v1/policies/label')).response.status).toBe(200);
  });
}
