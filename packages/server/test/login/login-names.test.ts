/**
 * Issue 12 (domain policy): `userLoginMustBeDomain` decides the login-name suffix. Off, a user's
 * login name is the bare user name, which must then be unique among such organisations (creating,
 * importing, and switching a policy off are refused on a clash); on, `<userName>@<domain>`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findLoginUser } from '../../src/domain/login/password-login.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('login names follow the domain policy', (dialect) => {
  let t: TestInstance;
  const stamp = Date.now() % 1_000_000_000;
  const [bareA, suffixB, bareC] = [`${stamp}1`, `${stamp}2`, `${stamp}3`];
  const bare = { userLoginMustBeDomain: false, validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: false };
  const human = (userId: string, userName: string) => ({
    userId,
    user: { userName, profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: `${userName}@example.com`, isEmailVerified: true } },
  });
  const inOrg = (orgId: string) => ({ headers: { 'x-service-orgid': orgId } });
  const userOf = async (orgId: string, userId: string) => (await (await t.call('GET', `/management/v1/users/${userId}`, inOrg(orgId))).json()).user;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    const imported = await (
      await t.call('POST', '/admin/v1/import', {
        body: {
          timeout: '1m',
          data_orgs: {
            orgs: [
              { orgId: bareA, org: { name: `Bare A ${stamp}` }, domainPolicy: bare, humanUsers: [human(`${bareA}1`, 'ada')] },
              { orgId: suffixB, org: { name: `Suffix B ${stamp}` }, humanUsers: [human(`${suffixB}1`, 'ada')] },
              { orgId: bareC, org: { name: `Bare C ${stamp}` }, domainPolicy: bare, humanUsers: [human(`${bareC}1`, 'Ada'), human(`${bareC}2`, 'carl')] },
            ],
          },
        },
      })
    ).json();
    // C's "Ada" would share A's bare login name: refused, the rest of C imported.
    expect(imported.errors).toEqual([expect.objectContaining({ type: 'human_user', id: `${bareC}1`, message: expect.stringContaining('COMMAND-k2unb') })]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('shows the bare user name where the policy is off, and the name at each verified domain where it is on', async () => {
    const a = await userOf(bareA, `${bareA}1`);
    expect(a.preferredLoginName).toBe('ada');
    expect(a.loginNames).toEqual(['ada']);
    const b = await userOf(suffixB, `${suffixB}1`);
    expect(b.preferredLoginName).toBe(`ada@suffix-b-${stamp}.localhost`);
    expect(b.loginNames).toEqual([`ada@suffix-b-${stamp}.localhost`]);
    // Members show the same login names.
    expect((await t.call('POST', '/management/v1/orgs/me/members', { ...inOrg(bareA), body: { userId: `${bareA}1`, roles: ['ORG_OWNER'] } })).status).toBe(200);
    const members = await (await t.call('POST', '/management/v1/orgs/me/members/_search', { ...inOrg(bareA), body: {} })).json();
    expect(members.result).toContainEqual(expect.objectContaining({ userId: `${bareA}1`, preferredLoginName: 'ada' }));
  });

  it('resolves each login name to its user at the login', async () => {
    expect((await findLoginUser(t.store.read, t.instanceId, 'ada'))?.id).toBe(`${bareA}1`);
    expect((await findLoginUser(t.store.read, t.instanceId, 'ADA'))?.id).toBe(`${bareA}1`);
    expect((await findLoginUser(t.store.read, t.instanceId, `ada@suffix-b-${stamp}.localhost`))?.id).toBe(`${suffixB}1`);
    // Not a login name where the policy is off.
    expect(await findLoginUser(t.store.read, t.instanceId, `ada@bare-a-${stamp}.localhost`)).toBeUndefined();
    expect((await findLoginUser(t.store.read, t.instanceId, 'carl'))?.id).toBe(`${bareC}2`);
  });

  it('refuses a new user whose bare login name another organisation holds', async () => {
    const add = (orgId: string, userName: string) =>
      t.call('POST', '/management/v1/users/human', {
        ...inOrg(orgId),
        body: { userName, profile: { firstName: 'N', lastName: 'N' }, email: { email: `${userName}@example.com` } },
      });
    const clash = await add(bareC, 'ADA');
    expect(clash.status).toBe(409);
    expect((await clash.json()).details[0].id).toBe('COMMAND-k2unb');
    // Where login names carry the domain, the same name is fine.
    expect((await add(suffixB, 'carl')).status).toBe(200);
    expect((await add(bareC, 'dora')).status).toBe(200);
  });

  it('refuses to switch a policy off when two users would then share a login name, and changes nothing', async () => {
    const off = await t.call('POST', '/management/v1/policies/domain', { ...inOrg(suffixB), body: bare });
    expect(off.status).toBe(409);
    expect((await off.json()).details[0].id).toBe('COMMAND-Ab3zq');
    expect((await (await t.call('GET', '/management/v1/policies/domain', inOrg(suffixB))).json()).policy).toMatchObject({ isDefault: true, userLoginMustBeDomain: true });
    expect((await userOf(suffixB, `${suffixB}1`)).preferredLoginName).toBe(`ada@suffix-b-${stamp}.localhost`);
    // The instance default applies to B as well (and to the administrator's own organisation).
    expect((await t.call('PUT', '/admin/v1/policies/domain', { body: bare })).status).toBe(409);
    expect((await (await t.call('GET', '/admin/v1/policies/domain')).json()).policy.userLoginMustBeDomain).toBe(true);

    // A's own policy switched on, C back on the instance default: B may go bare.
    expect((await t.call('PUT', '/management/v1/policies/domain', { ...inOrg(bareA), body: { ...bare, userLoginMustBeDomain: true } })).status).toBe(200);
    expect((await userOf(bareA, `${bareA}1`)).preferredLoginName).toBe(`ada@bare-a-${stamp}.localhost`);
    // B's "carl" is still C's bare login name.
    const stillShared = await t.call('POST', '/management/v1/policies/domain', { ...inOrg(suffixB), body: bare });
    expect(stillShared.status).toBe(409);
    expect((await stillShared.json()).message).toContain('"carl"');
    expect((await t.call('DELETE', '/management/v1/policies/domain', inOrg(bareC))).status).toBe(200);
    expect((await t.call('POST', '/management/v1/policies/domain', { ...inOrg(suffixB), body: bare })).status).toBe(200);
    expect((await userOf(suffixB, `${suffixB}1`)).preferredLoginName).toBe('ada');
  });
});
