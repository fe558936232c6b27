/**
 * Issue 12 (password complexity policy): the instance's default and an organisation's own policy,
 * in ZITADEL's admin and management shapes; every password a caller sets is checked against the
 * effective one; export and import carry the organisation's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('password complexity policy', (dialect) => {
  let t: TestInstance;
  let orgId: string;
  let n = 0;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgId = (await (await t.call('POST', '/management/v1/orgs', { body: { name: `policy-${Date.now()}` } })).json()).id;
  });
  afterAll(() => t.close());
  const json = async (res: Response | Promise<Response>) => {
    const r = await res;
    return { status: r.status, body: await r.json() };
  };
  const inOrg = () => ({ 'x-service-orgid': orgId });
  const importUser = (password: string, headers: Record<string, string> = {}) =>
    json(
      t.call('POST', '/management/v1/users/human/_import', {
        headers,
        body: { userName: `p${++n}`, profile: { firstName: 'P', lastName: 'W' }, email: { email: `p${n}@example.com`, isEmailVerified: true }, password },
      }),
    );

  it("the instance's default is ZITADEL's built-in policy until changed, and applies to organisations without their own", async () => {
    const got = await json(t.call('GET', '/admin/v1/policies/password/complexity'));
    expect(got.body.policy).toMatchObject({ minLength: '8', hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true, isDefault: true });
    const weak = await importUser('abcdefgh');
    expect(weak.status).toBe(400);
    expect(weak.body.message).toMatch(/^invalid password: must contain an upper-case letter/);

    expect((await json(t.call('PUT', '/admin/v1/policies/password/complexity', { body: { minLength: 12, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true } }))).status).toBe(
      200,
    );
    expect((await json(t.call('PUT', '/admin/v1/policies/password/complexity', { body: { minLength: '12', hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true } }))).status).toBe(
      400,
    );
    expect((await json(t.call('PUT', '/admin/v1/policies/password/complexity', { body: { minLength: 0 } }))).status).toBe(400);
    expect((await importUser('Sh0rt-Pw!')).body.message).toMatch(/at least 12 characters/);
    expect((await importUser('L0nger-Passw0rd!')).status).toBe(200);
    expect((await json(t.call('GET', '/management/v1/policies/password/complexity', { headers: inOrg() }))).body.policy).toMatchObject({ minLength: '12', isDefault: true });
  });

  it("an organisation's own policy decides its users' passwords; update, reset, and the errors of each", async () => {
    const policy = { minLength: 4, hasUppercase: false, hasLowercase: true, hasNumber: false, hasSymbol: false };
    expect((await json(t.call('POST', '/management/v1/policies/password/complexity', { headers: inOrg(), body: policy }))).status).toBe(200);
    expect((await json(t.call('POST', '/management/v1/policies/password/complexity', { headers: inOrg(), body: policy }))).status).toBe(409);
    expect((await json(t.call('GET', '/management/v1/policies/password/complexity', { headers: inOrg() }))).body.policy).toMatchObject({ minLength: '4', hasUppercase: false, isDefault: false });
    expect((await json(t.call('GET', '/management/v1/policies/default/password/complexity', { headers: inOrg() }))).body.policy).toMatchObject({ minLength: '12', isDefault: true });
    expect((await importUser('abcd', inOrg())).status).toBe(200);
    expect((await importUser('abcd')).status).toBe(400); // the default organisation keeps the instance's

    expect((await json(t.call('PUT', '/management/v1/policies/password/complexity', { headers: inOrg(), body: policy }))).status).toBe(400);
    expect((await json(t.call('PUT', '/management/v1/policies/password/complexity', { headers: inOrg(), body: { ...policy, minLength: 6 } }))).status).toBe(200);
    expect((await importUser('abcde', inOrg())).body.message).toMatch(/at least 6 characters/);
    const events = await json(
      t.call('POST', '/admin/v1/events/_search', { body: { aggregateId: orgId, eventTypes: ['org.policy.password.complexity.added', 'org.policy.password.complexity.changed'], asc: true } }),
    );
    expect(events.body.events.map((e: any) => e.payload.minLength)).toEqual([4, 6]);

    const exported = await json(t.call('POST', '/admin/v1/export', { body: { orgIds: [orgId], responseOutput: true } }));
    expect(exported.body.orgs[0].passwordComplexityPolicy).toEqual({ minLength: '6', hasLowercase: true }); // false left out, as protojson does
    const target = await createTestInstance(dialect);
    try {
      const imported = await json(target.call('POST', '/admin/v1/import', { body: { dataOrgs: exported.body } }));
      expect(imported.body.errors ?? []).toEqual([]);
      const read = await json(target.call('GET', '/management/v1/policies/password/complexity', { headers: inOrg() }));
      expect(read.body.policy).toMatchObject({ minLength: '6', hasUppercase: false, isDefault: false });
      const again = await json(target.call('POST', '/admin/v1/import', { body: { dataOrgs: exported.body } }));
      expect(again.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'password_complexity_policy', message: expect.stringContaining('Org-1T8k0s') })]));
    } finally {
      await target.close();
    }

    expect((await json(t.call('DELETE', '/management/v1/policies/password/complexity', { headers: inOrg() }))).status).toBe(200);
    expect((await json(t.call('DELETE', '/management/v1/policies/password/complexity', { headers: inOrg() }))).status).toBe(404);
    expect((await json(t.call('PUT', '/management/v1/policies/password/complexity', { headers: inOrg(), body: policy }))).status).toBe(404);
    expect((await importUser('abcdef', inOrg())).status).toBe(400);
  });
});
