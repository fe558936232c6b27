/**
 * Login names follow the organisation's domain policy, as ZITADEL's login-names projection does:
 * - `userLoginMustBeDomain` on (the built-in default): `<userName>@<domain>` for every verified
 *   domain of the organisation, the primary one preferred. User names are unique per organisation;
 *   the domain makes the login name unique in the instance.
 * - off: the bare user name. Such a name must then be unique among all organisations whose
 *   policy is off (ZITADEL moves the user name's unique constraint to the instance); adding a user
 *   or switching a policy off is refused with 409 when two users would share one login name.
 * Everything that shows or resolves a login name (user and member views, tokens, mails, the login
 * page) asks this module.
 */

import type { UserRow } from '../../store/repositories/users.js';
import type { Repositories } from '../../store/store.js';
import { alreadyExists } from '../errors.js';
import { domainKind } from '../policies/domain-kind.js';
import { effectivePolicy } from '../policies/policy.js';

export interface LoginNameRules {
  mustBeDomain: boolean;
  primaryDomain: string;
  /** Verified domains, primary first. */
  domains: string[];
}

export interface LoginNames {
  loginNames: string[];
  preferredLoginName: string;
}

export function loginNamesOf(userName: string, rules: LoginNameRules): LoginNames {
  if (!rules.mustBeDomain) return { loginNames: [userName], preferredLoginName: userName };
  return { loginNames: rules.domains.map((d) => `${userName}@${d}`), preferredLoginName: `${userName}@${rules.primaryDomain}` };
}

export async function loginNameRules(read: Repositories, instanceId: string, orgId: string): Promise<LoginNameRules> {
  const [policy, org, domains] = await Promise.all([effectivePolicy(domainKind, read, instanceId, orgId), read.orgs.get(orgId), read.orgDomains.list(orgId)]);
  const primaryDomain = org?.primaryDomain ?? '';
  const verified = domains.filter((d) => d.isVerified && d.domain !== primaryDomain).map((d) => d.domain);
  return { mustBeDomain: policy.userLoginMustBeDomain, primaryDomain, domains: primaryDomain ? [primaryDomain, ...verified] : verified };
}

/**
 * Login names of users of several organisations (lists of members, grants), the rules read once
 * per organisation.
 */
export function loginNameReader(read: Repositories, instanceId: string) {
  const rules = new Map<string, Promise<LoginNameRules>>();
  const rulesOf = (orgId: string) => {
    let found = rules.get(orgId);
    if (!found) rules.set(orgId, (found = loginNameRules(read, instanceId, orgId)));
    return found;
  };
  return {
    rulesOf,
    of: async (user: Pick<UserRow, 'userName' | 'orgId'>): Promise<LoginNames> => loginNamesOf(user.userName, await rulesOf(user.orgId)),
  };
}

/**
 * The lock on the instance's login names, taken by every command that gives a user a name (the
 * API's, an import's organisation, registration at sign-in) or changes the domain policy: whether
 * a bare name is free is a question about every organisation, which no unique index answers and no
 * organisation's or user's lock serialises (ARCHITECTURE.md, "Locks before checks"). One key for the
 * instance, not one per name: an import names thousands of users in one transaction, more locks
 * than PostgreSQL's lock table holds. A lock key, not an aggregate: nothing is appended to it.
 */
export const loginNamesLock = (instanceId: string) => ['login_names', instanceId] as const;

/** Organisations whose effective domain policy has `userLoginMustBeDomain` off. */
export async function bareLoginOrgIds(read: Repositories, instanceId: string): Promise<string[]> {
  const rows = await read.policies.listKind(domainKind.kind);
  const own = new Map(rows.map((r) => [r.ownerId, (r.settings as { userLoginMustBeDomain?: boolean }).userLoginMustBeDomain !== false]));
  const instanceMustBeDomain = own.get(instanceId) ?? domainKind.builtIn.userLoginMustBeDomain;
  if (instanceMustBeDomain) return rows.filter((r) => r.ownerId !== instanceId && own.get(r.ownerId) === false).map((r) => r.ownerId);
  return (await read.orgs.allIds()).filter((id) => own.get(id) !== true);
}

/**
 * Whether a new user of `orgId` named `userNameKey` would share its bare login name with a user of
 * another organisation (only when `orgId`'s login names carry no domain). Same-organisation names
 * are the caller's check.
 */
export async function bareLoginNameTaken(tx: Repositories, instanceId: string, orgId: string, userNameKey: string): Promise<boolean> {
  const bare = await bareLoginOrgIds(tx, instanceId);
  return bare.includes(orgId) && (await tx.users.getByUserNameKeyElsewhere(bare, orgId, userNameKey)) !== undefined;
}

export async function assertBareLoginNameFree(tx: Repositories, instanceId: string, orgId: string, userNameKey: string): Promise<void> {
  if (await bareLoginNameTaken(tx, instanceId, orgId, userNameKey)) {
    throw alreadyExists('COMMAND-k2unb', 'User already exists: login names carry no domain here, and another organisation has a user of this name');
  }
}

/** After a domain policy changed: refuses (409) when two users now share one bare login name. */
export async function assertBareLoginNamesUnique(tx: Repositories, instanceId: string): Promise<void> {
  const shared = await tx.users.sharedUserNameKey(await bareLoginOrgIds(tx, instanceId));
  if (shared !== undefined) {
    throw alreadyExists('COMMAND-Ab3zq', `Login names cannot go without the domain: users of two organisations are named "${shared}"`);
  }
}

/**
 * The human user whose login name is `typed` (case-insensitive), when exactly one is. As a
 * convenience, a bare user name held by exactly one human in the instance also finds it.
 */
export async function resolveLoginName(read: Repositories, instanceId: string, typed: string): Promise<UserRow | undefined> {
  const key = typed.trim().toLowerCase();
  const at = key.lastIndexOf('@');
  const byName = async (nameKey: string) => (await read.logins.usersByNameKey(nameKey)).map((r) => r.user).filter((u) => u.type === 'human');
  const whole = await byName(key);
  const candidates = [...whole, ...(at > 0 ? await byName(key.slice(0, at)) : [])];
  const names = loginNameReader(read, instanceId);
  const matching: UserRow[] = [];
  for (const user of candidates) {
    if ((await names.of(user)).loginNames.some((n) => n.toLowerCase() === key)) matching.push(user);
  }
  if (matching.length === 1) return matching[0];
  if (matching.length === 0 && whole.length === 1) return whole[0];
  return undefined;
}
