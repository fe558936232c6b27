/**
 * The version-1 document (`dataOrgsv1`, proto zitadel.v1.v1.ImportDataOrg) and its conversion
 * to the current one, as ZITADEL's `dataOrgsV1ToDataOrgs` does (reference §5.7):
 * - `iamPolicy` becomes `domainPolicy` (userLoginMustBeDomain from the file, the other two
 *   flags from the instance defaults);
 * - `triggerActions` use enums and become the numeric strings of the current format;
 * - top-level `secondFactors`, `multiFactors`, `idps` are folded into `loginPolicy` (only when
 *   one is present) and its five lifetimes are set to the instance defaults;
 * - fields the v1 format does not have (`orgState`, `domainPolicy`, OTP message texts) are
 *   dropped like any unknown field.
 * Unlike ZITADEL, the v1 document may also arrive as a string holding JSON.
 */
import { z } from 'zod';
import { DomainError, GrpcCode, invalidArgument } from '../errors.js';
import { formatPath } from '../zod-issues.js';
import type { DataOrg, DataOrgs } from './document.js';
import { ENUMS } from './enums.js';
import { bool, protoEnum, runes, strList } from './fields.js';
import { normaliseKeysInPlace } from './json-names.js';
import { checkStorableText, ProblemList, validateDataOrgs } from './validate.js';

/**
 * The largest version-1 document (`dataOrgsv1`, `dataOrgsv1Gcs`): read whole, not as a stream (it
 * may be a JSON string inside the request), so it keeps the former limit of every import.
 */
export const MAX_V1_DOCUMENT_BYTES = 64 * 1024 * 1024;

export const v1TooLarge = (what = 'a version-1 document (dataOrgsv1)', instead = 'dataOrgs') =>
  new DomainError(GrpcCode.ResourceExhausted, 'IMPORT-v1b1g', `${what} is read whole and may be at most ${MAX_V1_DOCUMENT_BYTES} bytes; use ${instead}, which has no such limit`);

const IamPolicy = z.object({ orgId: runes(1, 200).optional(), userLoginMustBeDomain: bool });
const V1TriggerAction = z.object({
  flowType: protoEnum(ENUMS.FlowType).optional(),
  triggerType: protoEnum(ENUMS.TriggerType).optional(),
  actionIds: strList,
});
const SecondFactor = z.object({ type: protoEnum(ENUMS.SecondFactorType).refine((t) => t !== 'SECOND_FACTOR_TYPE_UNSPECIFIED', 'value must not be in list [0]') });
const MultiFactor = z.object({ type: protoEnum(ENUMS.MultiFactorType).refine((t) => t !== 'MULTI_FACTOR_TYPE_UNSPECIFIED', 'value must not be in list [0]') });
const LoginPolicyIdp = z.object({
  idpId: runes(1, 200),
  ownerType: protoEnum(ENUMS.IDPOwnerType).refine((t) => t !== 'IDP_OWNER_TYPE_UNSPECIFIED', 'value must not be in list [0]'),
});

/** What the conversion takes from the target instance (reference §5.7). */
export interface InstanceDefaults {
  domainPolicy: { validateOrgDomains: boolean; smtpSenderAddressMatchesInstanceDomain: boolean };
  loginPolicyLifetimes: {
    passwordCheckLifetime: string;
    externalLoginCheckLifetime: string;
    mfaInitSkipLifetime: string;
    secondFactorCheckLifetime: string;
    multiFactorCheckLifetime: string;
  };
}

/**
 * ZITADEL's built-in instance defaults (cmd/defaults.yaml: DomainPolicy, LoginPolicy). This
 * service has no instance policies of its own, so these are the defaults the conversion uses.
 */
export const ZITADEL_INSTANCE_DEFAULTS: InstanceDefaults = {
  domainPolicy: { validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: true },
  loginPolicyLifetimes: {
    passwordCheckLifetime: '864000s',
    externalLoginCheckLifetime: '864000s',
    mfaInitSkipLifetime: '2592000s',
    secondFactorCheckLifetime: '64800s',
    multiFactorCheckLifetime: '43200s',
  },
};

const V1_ONLY = ['iamPolicy', 'triggerActions', 'secondFactors', 'multiFactors', 'idps'] as const;
const NOT_IN_V1 = ['orgState', 'domainPolicy', 'verifySmsOtpMessages', 'verifyEmailOtpMessages'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `dataOrgsv1` (object or JSON string) → the validated current document; 400 naming paths. */
export function parseDataOrgsV1(input: unknown, defaults: InstanceDefaults = ZITADEL_INSTANCE_DEFAULTS): DataOrgs {
  let raw = input;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch (error) {
      throw invalidArgument('IMPORT-V1js0', `invalid dataOrgsv1: not a JSON document (${(error as Error).message})`);
    }
  }
  normaliseKeysInPlace(raw);
  const problems = new ProblemList();
  checkStorableText(raw, problems);
  const v1Parts: Record<string, unknown>[] = [];
  const rawOrgs = isObject(raw) && Array.isArray(raw.orgs) ? raw.orgs : [];
  rawOrgs.forEach((org, i) => {
    const parts: Record<string, unknown> = {};
    if (isObject(org)) {
      for (const key of V1_ONLY) {
        if (org[key] !== undefined) parts[key] = org[key];
        delete org[key];
      }
      for (const key of NOT_IN_V1) delete org[key];
    }
    v1Parts[i] = validateV1Parts(parts, problems, ['orgs', i]);
  });
  const doc = validateDataOrgs(raw, problems);
  if (problems.count > 0) throw problems.toError();
  doc.orgs = doc.orgs.map((org, i) => convertOrg(org, v1Parts[i] ?? {}, defaults));
  return doc;
}

function validateV1Parts(parts: Record<string, unknown>, problems: ProblemList, base: PropertyKey[]) {
  const out: Record<string, unknown> = {};
  const one = (key: string, schema: z.ZodType) => {
    if (parts[key] === undefined || parts[key] === null) return;
    const r = schema.safeParse(parts[key]);
    if (r.success) out[key] = r.data;
    else problems.addZod([...base, key], r.error, parts[key]);
  };
  const list = (key: string, schema: z.ZodType) => {
    if (parts[key] === undefined || parts[key] === null) return;
    if (!Array.isArray(parts[key])) return problems.add(formatPath([...base, key]), 'expected array');
    out[key] = (parts[key] as unknown[]).map((item, j) => {
      const r = schema.safeParse(item);
      if (!r.success) problems.addZod([...base, key, j], r.error, item);
      return r.data;
    });
  };
  one('iamPolicy', IamPolicy);
  list('triggerActions', V1TriggerAction);
  list('secondFactors', SecondFactor);
  list('multiFactors', MultiFactor);
  list('idps', LoginPolicyIdp);
  return out;
}

type V1Parts = {
  iamPolicy?: z.output<typeof IamPolicy>;
  triggerActions?: z.output<typeof V1TriggerAction>[];
  secondFactors?: z.output<typeof SecondFactor>[];
  multiFactors?: z.output<typeof MultiFactor>[];
  idps?: z.output<typeof LoginPolicyIdp>[];
};

function convertOrg(org: DataOrg, parts: V1Parts, defaults: InstanceDefaults): DataOrg {
  const out: DataOrg = { ...org };
  if (parts.iamPolicy) {
    out.domainPolicy = {
      ...(parts.iamPolicy.orgId ? { orgId: parts.iamPolicy.orgId } : {}),
      userLoginMustBeDomain: parts.iamPolicy.userLoginMustBeDomain ?? false,
      ...defaults.domainPolicy,
    };
  }
  if (parts.triggerActions) {
    out.triggerActions = parts.triggerActions.map((t) => ({
      flowType: String(ENUMS.FlowType.indexOf(t.flowType ?? 'FLOW_TYPE_UNSPECIFIED')),
      triggerType: String(ENUMS.TriggerType.indexOf(t.triggerType ?? 'TRIGGER_TYPE_UNSPECIFIED')),
      actionIds: t.actionIds ?? [],
    }));
  }
  if (out.loginPolicy) {
    out.loginPolicy = {
      ...out.loginPolicy,
      ...defaults.loginPolicyLifetimes,
      secondFactors: (parts.secondFactors ?? []).map((f) => f.type),
      multiFactors: (parts.multiFactors ?? []).map((f) => f.type),
      idps: parts.idps ?? [],
    };
  }
  return out;
}
