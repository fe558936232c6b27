/**
 * Issue 12: an organisation with every policy kind of its own and two domains, in ZITADEL's document shape (field
 * names from the reference, Appendix A), imports with no errors, and export → import into a fresh
 * instance → export gives the same document. The instance's defaults are not exported (as ZITADEL).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const ORG_ID = '250000000000000001';

const document = () => ({
  orgs: [
    {
      orgId: ORG_ID,
      org: { name: 'Every policy' },
      domainPolicy: { userLoginMustBeDomain: false, validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: false },
      labelPolicy: {
        primaryColor: '#5469d4',
        hideLoginNameSuffix: true,
        warnColor: '#cd3d56',
        backgroundColor: '#fafafa',
        fontColor: '#000000',
        primaryColorDark: '#2073c4',
        backgroundColorDark: '#111827',
        warnColorDark: '#ff3b5b',
        fontColorDark: '#ffffff',
        disableWatermark: true,
      },
      loginPolicy: {
        allowUsernamePassword: true,
        allowRegister: false,
        allowExternalIdp: true,
        forceMfa: false,
        passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED',
        hidePasswordReset: true,
        ignoreUnknownUsernames: true,
        defaultRedirectUri: 'https://app.example/home',
        passwordCheckLifetime: '864000s',
        externalLoginCheckLifetime: '864000s',
        mfaInitSkipLifetime: '0s',
        secondFactorCheckLifetime: '64800s',
        multiFactorCheckLifetime: '43200s',
        secondFactors: ['SECOND_FACTOR_TYPE_OTP'],
        multiFactors: [],
        forceMfaLocalOnly: false,
      },
      lockoutPolicy: { maxPasswordAttempts: 5, maxOtpAttempts: 3 },
      passwordComplexityPolicy: { minLength: '10', hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: false },
      domains: [
        { orgId: ORG_ID, domainName: 'every.example.com', isVerified: true, isPrimary: true, validationType: 'DOMAIN_VALIDATION_TYPE_DNS' },
        { orgId: ORG_ID, domainName: 'pending.example.com', isVerified: false, isPrimary: false, validationType: 'DOMAIN_VALIDATION_TYPE_HTTP' },
      ],
      privacyPolicy: {
        tosLink: 'https://example.com/tos',
        privacyLink: 'https://example.com/privacy',
        helpLink: '',
        supportEmail: 'help@example.com',
        docsLink: '',
        customLink: '',
        customLinkText: '',
      },
    },
  ],
});

describeEachStore('every policy kind and two domains through export and import', (dialect) => {
  const instances: TestInstance[] = [];
  const fresh = async () => {
    const t = await createTestInstance(dialect);
    instances.push(t);
    return t;
  };
  const exportOrg = async (t: TestInstance) => {
    const res = await t.call('POST', '/admin/v1/export', { body: { org_ids: [ORG_ID], timeout: '1m', response_output: true } });
    expect(res.status).toBe(200);
    return res.json();
  };
  let first: TestInstance;
  beforeAll(async () => {
    first = await fresh();
  });
  afterAll(async () => {
    for (const t of instances) await t.close();
  });

  it("imports with an empty errors list; each policy is the organisation's own and acts as given", async () => {
    const res = await first.call('POST', '/admin/v1/import', { body: { timeout: '1m', data_orgs: document() } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.errors ?? []).toEqual([]);
    const get = async (path: string) => (await (await first.call('GET', `/management/v1/policies/${path}`, { headers: { 'x-service-orgid': ORG_ID } })).json()).policy;
    expect(await get('login')).toMatchObject({ allowRegister: false, hidePasswordReset: true, defaultRedirectUri: 'https://app.example/home', mfaInitSkipLifetime: '0s', isDefault: false });
    expect(await get('label')).toMatchObject({ primaryColor: '#5469d4', hideLoginNameSuffix: true, isDefault: false });
    expect(await get('privacy')).toMatchObject({ supportEmail: 'help@example.com', isDefault: false });
    expect(await get('domain')).toMatchObject({ userLoginMustBeDomain: false, validateOrgDomains: true, isDefault: false });
    expect(await get('lockout')).toMatchObject({ maxPasswordAttempts: '5', maxOtpAttempts: '3', isDefault: false });
    expect(await get('password/complexity')).toMatchObject({ minLength: '10', hasSymbol: false, isDefault: false });
    const domains = (await (await first.call('POST', '/management/v1/orgs/me/domains/_search', { headers: { 'x-service-orgid': ORG_ID }, body: {} })).json()).result;
    expect(domains.map((d: any) => [d.domainName, d.isVerified, d.isPrimary])).toEqual(
      expect.arrayContaining([
        ['every.example.com', true, true],
        ['pending.example.com', false, false],
      ]),
    );
  });

  it('export → import into a fresh instance → export gives the same document; instance defaults are not exported', async () => {
    const exported = await exportOrg(first);
    expect(exported.orgs[0].domains).toHaveLength(3); // the two, and the one generated from the name
    for (const field of ['domainPolicy', 'labelPolicy', 'loginPolicy', 'lockoutPolicy', 'passwordComplexityPolicy', 'privacyPolicy']) expect(exported.orgs[0][field], field).toBeDefined();
    const second = await fresh();
    const res = await second.call('POST', '/admin/v1/import', { body: { timeout: '1m', data_orgs: exported } });
    expect((await res.json()).errors ?? []).toEqual([]);
    expect(await exportOrg(second)).toEqual(exported);

    // An organisation without policies of its own exports none, whatever the instance's defaults are.
    const third = await fresh();
    expect((await third.call('PUT', '/admin/v1/policies/privacy', { body: { tosLink: 'https://instance.example/tos' } })).status).toBe(200);
    await third.call('POST', '/admin/v1/import', { body: { timeout: '1m', data_orgs: { orgs: [{ orgId: ORG_ID, org: { name: 'Plain' } }] } } });
    expect((await exportOrg(third)).orgs[0].privacyPolicy).toBeUndefined();
  });
});
