import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { DEFAULT_TRANSFER_TIMEOUT_MS, parseGoDuration } from '../../src/domain/transfer/duration.js';
import { normaliseKeysInPlace, toLowerCamel } from '../../src/domain/transfer/json-names.js';
import { parseDataOrgsV1, ZITADEL_INSTANCE_DEFAULTS } from '../../src/domain/transfer/v1.js';
import { parseDataOrgs } from '../../src/domain/transfer/validate.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

function human(i: number, overrides: Record<string, unknown> = {}) {
  return {
    userId: `u${i}`,
    user: {
      userName: `user${i}`,
      profile: { firstName: 'F', lastName: 'L', preferredLanguage: 'en' },
      email: { email: `user${i}@example.com`, isEmailVerified: true },
      ...overrides,
    },
  };
}

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('Go durations (timeout)', () => {
  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['1m0s', 60_000],
    ['30m0s', 1_800_000],
    ['1h2m3.5s', 3_723_500],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['0', 0],
    ['-1s', -1000],
  ])('%s → %d ms', (input, ms) => {
    expect(parseGoDuration(input)).toBe(ms);
  });

  it.each(['', '10', 'abc', '1d', '1 m', 's', '1m30', '.s', '1.2.3s'])('rejects %j', (input) => {
    expect(parseGoDuration(input)).toBeUndefined();
  });

  it('has a documented default of 30 minutes', () => {
    expect(DEFAULT_TRANSFER_TIMEOUT_MS).toBe(30 * 60_000);
  });
});

describe('input names', () => {
  it('converts proto names to JSON names like protobuf does', () => {
    expect(toLowerCamel('data_orgsv1_gcs')).toBe('dataOrgsv1Gcs');
    expect(toLowerCamel('serviceaccount_json')).toBe('serviceaccountJson');
    expect(toLowerCamel('oidc_ipds')).toBe('oidcIpds');
    expect(toLowerCamel('orgIds')).toBe('orgIds');
  });

  it('normalises nested keys in place, lowerCamelCase winning over snake_case', () => {
    const doc = { org_ids: ['1'], gcs_output: { serviceaccount_json: 'x' }, list: [{ user_name: 'a' }], a_b: 1, aB: 2 };
    normaliseKeysInPlace(doc);
    expect(doc).toEqual({ orgIds: ['1'], gcsOutput: { serviceaccountJson: 'x' }, list: [{ userName: 'a' }], aB: 2 });
  });
});

describe('the import document (Appendix A)', () => {
  it('both fixtures validate as they are', () => {
    const docs = fixture('zitadel-docs-bulk-import.json');
    const parsedDocs = parseDataOrgs(normaliseKeysInPlace(docs).dataOrgs);
    expect(parsedDocs.orgs[0].humanUsers).toHaveLength(3);
    const first = parsedDocs.orgs[0].humanUsers![0];
    expect(first.user.hashedPassword).toEqual({ value: expect.stringMatching(/^\$2a\$14\$/) }); // `algorithm` dropped
    expect(parsedDocs.orgs[0].humanUsers![1].user.profile.preferredLanguage).toBe('und');

    const auth0 = fixture('zitadel-tools-auth0-import.json');
    const parsedAuth0 = parseDataOrgs(auth0.dataOrgs);
    expect(parsedAuth0.orgs[0].orgId).toBe('123');
    expect(parsedAuth0.orgs[0].org).toBeUndefined();
    expect(parsedAuth0.orgs[0].humanUsers!.map((u) => u.userId)).toEqual(['auth0|6437e9c2b7add15a89b4915b', 'auth0|6437fa205c7266dc77f88a6c']);
  });

  it('names the path of an invalid field', () => {
    const users = Array.from({ length: 5 }, (_, i) => human(i));
    users[3] = human(3, { email: { email: 'not-an-email' } });
    const e = errorOf(() => parseDataOrgs({ orgs: [{ orgId: '1', org: { name: 'A' }, humanUsers: users }] }));
    expect(e.code).toBe(3);
    expect(e.message).toContain('orgs[0].humanUsers[3].user.email.email');
    expect(e.message).toContain('valid email');
  });

  it('applies ZITADEL rules: required profile, 10-rune language, phone prefix, clock skew, enums', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ humanUsers: [{ userId: 'x', user: { userName: 'a', email: { email: 'a@b.c' } } }] }, 'orgs[0].humanUsers[0].user.profile'],
      [{ humanUsers: [human(1, { profile: { firstName: 'a', lastName: 'b', preferredLanguage: 'en-u-rg-uszzzz' } })] }, 'orgs[0].humanUsers[0].user.profile.preferredLanguage'],
      [{ humanUsers: [human(1, { phone: { phone: '0049 1234' } })] }, 'orgs[0].humanUsers[0].user.phone.phone'],
      [{ humanUsers: [human(1, { userName: '' })] }, 'orgs[0].humanUsers[0].user.userName'],
      [{ oidcApps: [{ appId: 'a', app: { projectId: 'p', name: 'n', clockSkew: '6s' } }] }, 'orgs[0].oidcApps[0].app.clockSkew'],
      [{ machineUsers: [{ userId: 'm', user: { userName: 'm', name: 'M', accessTokenType: 'NOPE' } }] }, 'orgs[0].machineUsers[0].user.accessTokenType'],
      [{ org: { name: '' } }, 'orgs[0].org.name'],
      [{ projectRoles: 'x' }, 'orgs[0].projectRoles'],
    ];
    for (const [org, path] of cases) {
      const e = errorOf(() => parseDataOrgs({ orgs: [{ orgId: '1', ...org }] }));
      expect(e.message, path).toContain(`invalid ${path}:`);
    }
  });

  // Issue 33.10: a value of the wrong type inside the document read "value is required" (zod 4 keeps
  // no input in its issues); it reads as in API bodies: what was expected and what came.
  it('a value of the wrong type says what was expected and what came, as in API bodies', () => {
    expect(errorOf(() => parseDataOrgs({ orgs: [{ orgId: 1, org: { name: 'A' } }] })).message).toBe('invalid orgs[0].orgId: expected string, got number');
    expect(errorOf(() => parseDataOrgs({ orgs: [{ orgId: '1', humanUsers: [human(0, { userName: ['a'] })] }] })).message).toBe(
      'invalid orgs[0].humanUsers[0].user.userName: expected string, got array',
    );
    expect(errorOf(() => parseDataOrgs({ orgs: [{ orgId: '1', org: { name: null } }] })).message).toBe('invalid orgs[0].org.name: expected string, got null');
    expect(errorOf(() => parseDataOrgs({ orgs: [{ orgId: '1', machineUsers: [{ userId: 'm', user: { name: 'M' } }] }] })).message).toBe(
      'invalid orgs[0].machineUsers[0].user.userName: value is required',
    );
    expect(errorOf(() => parseDataOrgsV1(JSON.stringify({ orgs: [{ orgId: 7, org: { name: 'x' } }] }))).message).toBe('invalid orgs[0].orgId: expected string, got number');
  });

  it('accepts enums by number and snake_case names, and emits names', () => {
    const doc = parseDataOrgs({
      orgs: [
        {
          org_id: '1',
          org_state: 2,
          machine_users: [{ user_id: 'm1', user: { user_name: 'svc', name: 'Svc', access_token_type: 1 } }],
          human_users: [human(1, { profile: { first_name: 'a', last_name: 'b', gender: 2 } })],
        },
      ],
    });
    expect(doc.orgs[0].orgState).toBe('ORG_STATE_INACTIVE');
    expect(doc.orgs[0].machineUsers![0].user.accessTokenType).toBe('ACCESS_TOKEN_TYPE_JWT');
    expect(doc.orgs[0].humanUsers![0].user.profile.gender).toBe('GENDER_MALE');
  });

  it('reports at most five problems and counts the rest', () => {
    const users = Array.from({ length: 8 }, (_, i) => human(i, { email: { email: 'bad' } }));
    const e = errorOf(() => parseDataOrgs({ orgs: [{ humanUsers: users }] }));
    expect(e.message).toContain('orgs[0].humanUsers[4].user.email.email');
    expect(e.message).not.toContain('humanUsers[5]');
    expect(e.message).toContain('(and 3 more)');
  });

  it('one invalid user among 1,000 is named', () => {
    const users = Array.from({ length: 1000 }, (_, i) => human(i));
    users[617] = human(617, { profile: { firstName: '', lastName: 'x' } });
    const e = errorOf(() => parseDataOrgs({ orgs: [{ orgId: '1', humanUsers: users }] }));
    expect(e.message).toBe('invalid orgs[0].humanUsers[617].user.profile.firstName: value length must be between 1 and 200 runes, inclusive');
  });
});

describe('version-1 documents (reference §5.7)', () => {
  const v1 = () => ({
    orgs: [
      {
        org_id: '7',
        org: { name: 'Old' },
        iam_policy: { user_login_must_be_domain: true },
        login_policy: { allow_register: true, password_check_lifetime: '1s' },
        second_factors: [{ type: 'SECOND_FACTOR_TYPE_OTP' }],
        multi_factors: [{ type: 1 }],
        idps: [{ idp_id: 'i1', owner_type: 'IDP_OWNER_TYPE_ORG' }],
        trigger_actions: [{ flow_type: 'FLOW_TYPE_EXTERNAL_AUTHENTICATION', trigger_type: 3, action_ids: ['a1'] }],
        org_state: 'ORG_STATE_INACTIVE',
        verify_sms_otp_messages: [{ language: 'en', text: 'x' }],
        human_users: [human(1)],
      },
    ],
  });

  it('converts iamPolicy, trigger actions, factors and lifetimes', () => {
    const doc = parseDataOrgsV1(v1());
    const org = doc.orgs[0];
    expect(org.domainPolicy).toEqual({ userLoginMustBeDomain: true, ...ZITADEL_INSTANCE_DEFAULTS.domainPolicy });
    expect(org.triggerActions).toEqual([{ flowType: '1', triggerType: '3', actionIds: ['a1'] }]);
    expect(org.loginPolicy).toMatchObject({
      allowRegister: true,
      ...ZITADEL_INSTANCE_DEFAULTS.loginPolicyLifetimes,
      secondFactors: ['SECOND_FACTOR_TYPE_OTP'],
      multiFactors: ['MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION'],
      idps: [{ idpId: 'i1', ownerType: 'IDP_OWNER_TYPE_ORG' }],
    });
    expect(org.orgState).toBeUndefined();
    expect(org.verifySmsOtpMessages).toBeUndefined();
    expect(org.humanUsers).toHaveLength(1);
  });

  it('accepts the document as a string holding JSON', () => {
    const doc = parseDataOrgsV1(JSON.stringify(v1()));
    expect(doc.orgs[0].orgId).toBe('7');
    expect(errorOf(() => parseDataOrgsV1('{not json')).message).toContain('dataOrgsv1');
  });

  it('rejects a current-format trigger action with its path', () => {
    const doc = v1();
    doc.orgs[0].trigger_actions = [{ flow_type: '1' as never, trigger_type: 3, action_ids: [] }];
    expect(errorOf(() => parseDataOrgsV1(doc)).message).toContain('orgs[0].triggerActions[0].flowType');
  });
});
