/**
 * The password complexity policy (ZITADEL's): the instance's default (admin API: get, update)
 * and an organisation's custom policy (management API: get the effective one, get the default,
 * add, update, reset to the default). The effective policy — the organisation's custom one, else
 * the instance's — decides every password a caller sets (users/commands.ts, the init page); a
 * hashed password taken over by an import is taken as it is. Until the instance's default is
 * changed it is ZITADEL's built-in default (8 characters, lower, upper, digit, symbol).
 */
import type { Repositories, Store } from '../../store/store.js';
import type { PolicyRow } from '../../store/repositories/policies.js';
import { requirePermission, type RequestContext } from '../context.js';
import { addedDetails, changedDetails, viewDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';

export const PASSWORD_COMPLEXITY = 'password_complexity';

export interface PasswordComplexity {
  minLength: number;
  hasUppercase: boolean;
  hasLowercase: boolean;
  hasNumber: boolean;
  hasSymbol: boolean;
}

/** ZITADEL's built-in default (cmd/defaults.yaml PasswordComplexityPolicy). */
export const BUILT_IN_PASSWORD_COMPLEXITY: PasswordComplexity = { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true };
/** Longest minimum accepted: bcrypt and friends ignore bytes beyond 72, argon2id does not, but a longer minimum is a typo. */
export const MAX_MIN_LENGTH = 72;

export interface PasswordComplexityInput {
  minLength?: number | string;
  hasUppercase?: boolean;
  hasLowercase?: boolean;
  hasNumber?: boolean;
  hasSymbol?: boolean;
}

export interface PasswordComplexityView {
  details: Partial<ObjectDetails>;
  /** uint64 in ZITADEL's JSON: a string. */
  minLength: string;
  hasUppercase: boolean;
  hasLowercase: boolean;
  hasNumber: boolean;
  hasSymbol: boolean;
  isDefault: boolean;
}

function parse(input: PasswordComplexityInput): PasswordComplexity {
  const minLength = input.minLength === undefined ? 0 : Number(input.minLength);
  if (!Number.isInteger(minLength) || minLength < 1 || minLength > MAX_MIN_LENGTH) {
    throw invalidArgument('POLICY-m1nL3', `invalid minLength: must be a whole number from 1 to ${MAX_MIN_LENGTH}`);
  }
  return { minLength, hasUppercase: Boolean(input.hasUppercase), hasLowercase: Boolean(input.hasLowercase), hasNumber: Boolean(input.hasNumber), hasSymbol: Boolean(input.hasSymbol) };
}

const settingsOf = (row: PolicyRow | undefined): PasswordComplexity | undefined => (row ? (row.settings as unknown as PasswordComplexity) : undefined);

function view(policy: PasswordComplexity, isDefault: boolean, details: Partial<ObjectDetails>): PasswordComplexityView {
  return { details, minLength: String(policy.minLength), hasUppercase: policy.hasUppercase, hasLowercase: policy.hasLowercase, hasNumber: policy.hasNumber, hasSymbol: policy.hasSymbol, isDefault };
}

/** The instance's default policy (its stored one, else the built-in one). */
async function instancePolicy(read: Repositories, instanceId: string): Promise<{ policy: PasswordComplexity; row?: PolicyRow }> {
  const row = await read.policies.get(instanceId, PASSWORD_COMPLEXITY);
  return { policy: settingsOf(row) ?? BUILT_IN_PASSWORD_COMPLEXITY, row };
}

/** The policy that decides a password set for a user of `orgId`. */
export async function effectivePasswordComplexity(read: Repositories, instanceId: string, orgId: string): Promise<PasswordComplexity> {
  return settingsOf(await read.policies.get(orgId, PASSWORD_COMPLEXITY)) ?? (await instancePolicy(read, instanceId)).policy;
}

/** Refuses a password the policy does not allow, naming the rule (ZITADEL's error ids). */
export function checkPassword(policy: PasswordComplexity, password: string): void {
  const fail = (id: string, rule: string) => invalidArgument(id, `invalid password: ${rule}`);
  if ([...password].length < policy.minLength) throw fail('DOMAIN-HuJf6', `must be at least ${policy.minLength} characters long`);
  if (policy.hasLowercase && !/\p{Ll}/u.test(password)) throw fail('DOMAIN-la3y7', 'must contain a lower-case letter');
  if (policy.hasUppercase && !/\p{Lu}/u.test(password)) throw fail('DOMAIN-VoaRj', 'must contain an upper-case letter');
  if (policy.hasNumber && !/\p{Nd}/u.test(password)) throw fail('DOMAIN-VoaRp', 'must contain a digit');
  if (policy.hasSymbol && !/[^\p{L}\p{Nd}]/u.test(password)) throw fail('DOMAIN-ZRs6X', 'must contain a symbol');
}

const same = (a: PasswordComplexity, b: PasswordComplexity) =>
  a.minLength === b.minLength && a.hasUppercase === b.hasUppercase && a.hasLowercase === b.hasLowercase && a.hasNumber === b.hasNumber && a.hasSymbol === b.hasSymbol;

// ---- admin: the instance's default ----

export async function getDefaultPasswordComplexity(store: Store, ctx: RequestContext, permission = 'iam.policy.read'): Promise<{ policy: PasswordComplexityView }> {
  requirePermission(ctx, permission);
  const { policy, row } = await instancePolicy(store.read, ctx.instanceId);
  return { policy: view(policy, true, row ? viewDetails(row, ctx.instanceId) : { resourceOwner: ctx.instanceId }) };
}

export async function updateDefaultPasswordComplexity(store: Store, ctx: RequestContext, input: PasswordComplexityInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.policy.write');
  const next = parse(input);
  return store.transaction(async (tx) => {
    const { policy, row } = await instancePolicy(tx, ctx.instanceId);
    if (same(policy, next)) throw failedPrecondition('INSTANCE-Dee31', 'The password complexity policy has not been changed');
    const event = await tx.events.append({
      aggregateType: 'instance', aggregateId: ctx.instanceId, type: 'instance.policy.password.complexity.changed',
      payload: { ...next }, creator: ctx.caller.userId, resourceOwner: ctx.instanceId,
    });
    await tx.policies.upsert({ ownerId: ctx.instanceId, kind: PASSWORD_COMPLEXITY, settings: { ...next }, sequence: event.sequence, createdAt: row?.createdAt ?? event.createdAt, changedAt: event.createdAt });
    return { details: changedDetails(event) };
  }, [['instance', ctx.instanceId]]);
}

// ---- management: the organisation's custom policy ----

export async function getOrgPasswordComplexity(store: Store, ctx: RequestContext): Promise<{ policy: PasswordComplexityView }> {
  requirePermission(ctx, 'policy.read');
  const row = await store.read.policies.get(ctx.orgId, PASSWORD_COMPLEXITY);
  if (row) return { policy: view(settingsOf(row)!, false, viewDetails(row, ctx.orgId)) };
  return getDefaultPasswordComplexity(store, ctx, 'policy.read');
}

async function writeOrg(store: Store, ctx: RequestContext, input: PasswordComplexityInput, mode: 'add' | 'update'): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'policy.write');
  const next = parse(input);
  return store.transaction(async (tx) => {
    const row = await tx.policies.get(ctx.orgId, PASSWORD_COMPLEXITY);
    if (mode === 'add' && row) throw alreadyExists('Org-1T8k0s', 'The organisation has a password complexity policy already; update it');
    if (mode === 'update' && !row) throw notFound('ORG-0oPew', 'The organisation has no password complexity policy of its own; add one');
    if (row && same(settingsOf(row)!, next)) throw failedPrecondition('Org-DAs21', 'The password complexity policy has not been changed');
    const event = await tx.events.append({
      aggregateType: 'org', aggregateId: ctx.orgId, type: `org.policy.password.complexity.${mode === 'add' ? 'added' : 'changed'}`,
      payload: { ...next }, creator: ctx.caller.userId, resourceOwner: ctx.orgId,
    });
    await tx.policies.upsert({ ownerId: ctx.orgId, kind: PASSWORD_COMPLEXITY, settings: { ...next }, sequence: event.sequence, createdAt: row?.createdAt ?? event.createdAt, changedAt: event.createdAt });
    return { details: mode === 'add' ? addedDetails(event) : changedDetails(event) };
  }, [['org', ctx.orgId]]);
}

export const addOrgPasswordComplexity = (store: Store, ctx: RequestContext, input: PasswordComplexityInput) => writeOrg(store, ctx, input, 'add');
export const updateOrgPasswordComplexity = (store: Store, ctx: RequestContext, input: PasswordComplexityInput) => writeOrg(store, ctx, input, 'update');

export async function resetOrgPasswordComplexity(store: Store, ctx: RequestContext): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'policy.delete');
  return store.transaction(async (tx) => {
    if (!(await tx.policies.get(ctx.orgId, PASSWORD_COMPLEXITY))) throw notFound('ORG-0oPew', 'The organisation has no password complexity policy of its own');
    const event = await tx.events.append({
      aggregateType: 'org', aggregateId: ctx.orgId, type: 'org.policy.password.complexity.removed', payload: {}, creator: ctx.caller.userId, resourceOwner: ctx.orgId,
    });
    await tx.policies.remove(ctx.orgId, PASSWORD_COMPLEXITY);
    return { details: changedDetails(event) };
  }, [['org', ctx.orgId]]);
}
