/**
 * The scopes and claims of ZITADEL's flavour of OIDC that this service understands, and the
 * user claims derived from the store.
 */

import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';

/** Puts this API in the token's audience: only such tokens (or PATs) are accepted by /admin and /management. */
export const SERVICE_AUDIENCE_SCOPE = 'urn:service:iam:org:project:id:service:aud';
/** The `aud` value of this API in access tokens. */
export const SERVICE_AUDIENCE = 'service';
export const ROLES_SCOPE = 'urn:service:iam:org:project:roles';
export const ROLES_CLAIM = 'urn:service:iam:org:project:roles';
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/**
 * ZITADEL's names, accepted as aliases so that applications written for ZITADEL keep working
 * after a move: its API audience scope (= SERVICE_AUDIENCE_SCOPE), its roles scope, whose claim
 * carries the same name, and `urn:zitadel:iam:org:project:id:{projectId}:aud`.
 */
export const ZITADEL_AUDIENCE_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
export const ZITADEL_ROLES_SCOPE = 'urn:zitadel:iam:org:project:roles';
export const ZITADEL_ROLES_CLAIM = 'urn:zitadel:iam:org:project:roles';
/** Each roles scope and the claim it puts the roles under. */
export const ROLES_SCOPES: Readonly<Record<string, string>> = { [ROLES_SCOPE]: ROLES_CLAIM, [ZITADEL_ROLES_SCOPE]: ZITADEL_ROLES_CLAIM };

/** ZITADEL's scope asking for the user's metadata, answered under a claim of the same name (key → unpadded base64url value). */
export const USER_METADATA_SCOPE = 'urn:zitadel:iam:user:metadata';

/**
 * ZITADEL's other reserved scopes (its `internal/api/oidc/client.go` and `internal/domain`), by
 * ZITADEL's names only: this service has no names of its own for them.
 * - `…:org:id:{orgId}` restricts sign-in to that organisation and asks for the org id claim (the
 *   id from the scope) and the resource-owner claims; `…:org:domain:primary:{domain}` restricts
 *   sign-in to the organisation with that primary domain and asks for the primary-domain claim.
 *   A machine user's token drops such a scope when it names another organisation (as ZITADEL does).
 * - `…:org:project:role:{key}` limits the roles claims to the keys asked for;
 *   `…:org:projects:roles` asks for `urn:zitadel:iam:org:project:{projectId}:roles` of every
 *   project in the audience.
 * - `…:user:resourceowner` asks for the user's organisation: its id, name and primary domain.
 */
export const ORG_ID_SCOPE_PREFIX = 'urn:zitadel:iam:org:id:';
export const ORG_ID_CLAIM = 'urn:zitadel:iam:org:id';
export const ORG_DOMAIN_PRIMARY_SCOPE_PREFIX = 'urn:zitadel:iam:org:domain:primary:';
export const ORG_DOMAIN_PRIMARY_CLAIM = 'urn:zitadel:iam:org:domain:primary';
export const ROLE_KEY_SCOPE_PREFIX = 'urn:zitadel:iam:org:project:role:';
export const PROJECTS_ROLES_SCOPE = 'urn:zitadel:iam:org:projects:roles';
export const RESOURCE_OWNER_SCOPE = 'urn:zitadel:iam:user:resourceowner';
export const RESOURCE_OWNER_CLAIMS = {
  id: `${RESOURCE_OWNER_SCOPE}:id`,
  name: `${RESOURCE_OWNER_SCOPE}:name`,
  primaryDomain: `${RESOURCE_OWNER_SCOPE}:primary_domain`,
} as const;
/** ZITADEL's roles claim of one project (same shape as the roles claim). */
export const projectRolesClaim = (projectId: string) => `urn:zitadel:iam:org:project:${projectId}:roles`;

/** The reserved scopes that carry a value (an id, a domain, a role key): each request names its own. */
const VALUE_SCOPE = /^urn:zitadel:iam:org:(?:id|domain:primary|project:role):\S+$/;

const scopeList = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean);
const valuesAfter = (scope: string | undefined, prefix: string) => [
  ...new Set(
    scopeList(scope)
      .filter((s) => s.startsWith(prefix) && s.length > prefix.length)
      .map((s) => s.slice(prefix.length)),
  ),
];

/** The role keys asked for by `urn:zitadel:iam:org:project:role:{key}` scopes. */
export const requestedRoleKeys = (scope: string | undefined): string[] => valuesAfter(scope, ROLE_KEY_SCOPE_PREFIX);

/** The organisation a sign-in is restricted to, by id or by primary domain (the first of each kind wins). */
export interface RequestedOrg {
  orgId?: string;
  primaryDomain?: string;
}
export function requestedOrg(scope: string | undefined): RequestedOrg | undefined {
  const [orgId] = valuesAfter(scope, ORG_ID_SCOPE_PREFIX);
  const [primaryDomain] = valuesAfter(scope, ORG_DOMAIN_PRIMARY_SCOPE_PREFIX);
  return orgId || primaryDomain ? { ...(orgId ? { orgId } : {}), ...(primaryDomain ? { primaryDomain } : {}) } : undefined;
}

/**
 * The scopes of these scope strings that carry a value (`…:project:id:{x}:aud`, `…:org:id:{x}`,
 * `…:org:domain:primary:{x}`, `…:project:role:{x}`): oidc-provider knows only a fixed list, so they
 * become allowed scopes of the resource server for this request.
 */
export function valueScopesIn(...scopes: (string | undefined)[]): string[] {
  return [...new Set(scopes.flatMap(scopeList).filter((s) => PROJECT_AUD.test(s) || VALUE_SCOPE.test(s)))];
}

/** Whether a scope restricts the organisation (by id or primary domain). */
export const isOrgScope = (s: string) => s.startsWith(ORG_ID_SCOPE_PREFIX) || s.startsWith(ORG_DOMAIN_PRIMARY_SCOPE_PREFIX);

export const PROJECT_AUD = /^urn:(?:service|zitadel):iam:org:project:id:([^:\s]+):aud$/;
/** The ids of the API's own audience scopes (`…:id:service:aud`, ZITADEL's `…:id:zitadel:aud`), not projects. */
const API_AUDIENCE_IDS = new Set(['service', 'zitadel']);

/** Project ids named by `urn:service:iam:org:project:id:{projectId}:aud` scopes, or ZITADEL's `urn:zitadel:…` (not the API's own). */
export function audienceProjects(scope: string | undefined): string[] {
  const ids = (scope ?? '')
    .split(' ')
    .map((s) => PROJECT_AUD.exec(s)?.[1])
    .filter((id): id is string => !!id && !API_AUDIENCE_IDS.has(id));
  return [...new Set(ids)];
}

/** Whether the scope asks for this API as audience, by this service's name or ZITADEL's. */
export function asksForApiAudience(scope: string | undefined): boolean {
  return hasScope(scope, SERVICE_AUDIENCE_SCOPE) || hasScope(scope, ZITADEL_AUDIENCE_SCOPE);
}

/** The claim names the roles go under: one per roles scope asked for (ours, ZITADEL's or both). */
export function rolesClaimNames(scope: string | undefined): string[] {
  return Object.entries(ROLES_SCOPES)
    .filter(([s]) => hasScope(scope, s))
    .map(([, claim]) => claim);
}

/**
 * ZITADEL's `aud` of an access token: the app's project, the client, every project named by an
 * audience scope, and `service` (this API) with the service audience scope. JWTs carry it and
 * introspection answers it, for opaque tokens too.
 */
export function tokenAudience(projectId: string | undefined, clientId: string | undefined, scope: string | undefined): string[] {
  const aud = [projectId, clientId, ...audienceProjects(scope)];
  if (asksForApiAudience(scope)) aud.push(SERVICE_AUDIENCE);
  return [...new Set(aud.filter((a): a is string => !!a))];
}

export function hasScope(scope: string | undefined, wanted: string): boolean {
  return (scope ?? '').split(' ').includes(wanted);
}

export type RolesClaim = Record<string, Record<string, string>>;

/**
 * Each project's roles claim (`{ "<role>": { "<orgId>": "<org primary domain>" } }`) from the
 * user's active grants on these projects; only the role keys in `keys` when given (ZITADEL's
 * `…:project:role:{key}` scopes). Projects without a role are left out.
 */
export async function rolesByProject(store: Store, userId: string, projectIds: string[], keys?: string[]): Promise<Map<string, RolesClaim>> {
  const grants = await store.read.logins.grantedRoles(userId, [...new Set(projectIds)], 'USER_GRANT_STATE_ACTIVE');
  const byProject = new Map<string, RolesClaim>();
  for (const grant of grants) {
    for (const role of grant.roleKeys) {
      if (keys?.length && !keys.includes(role)) continue;
      let claim = byProject.get(grant.projectId);
      if (!claim) byProject.set(grant.projectId, (claim = {}));
      (claim[role] ??= {})[grant.orgId] = grant.orgPrimaryDomain;
    }
  }
  return byProject;
}

/** The roles of several projects in one claim (this service's roles claim spans the token's projects). */
export function mergedRoles(byProject: Map<string, RolesClaim>): RolesClaim {
  const merged: RolesClaim = {};
  for (const claim of byProject.values()) {
    for (const [role, orgs] of Object.entries(claim)) Object.assign((merged[role] ??= {}), orgs);
  }
  return merged;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** Standard claims of a user, by the scope that asks for them. */
export function userClaims(user: UserRow, preferredLoginName: string): { profile: Record<string, unknown>; email: Record<string, unknown> } {
  const data = user.data as Record<string, unknown>;
  const profile = (data.profile ?? {}) as Record<string, unknown>;
  const email = (data.email ?? {}) as Record<string, unknown>;
  const given = str(profile.firstName);
  const family = str(profile.lastName);
  return {
    profile: {
      name: str(profile.displayName) ?? ([given, family].filter(Boolean).join(' ') || undefined) ?? str(data.name),
      given_name: given,
      family_name: family,
      nickname: str(profile.nickName),
      locale: str(profile.preferredLanguage),
      preferred_username: preferredLoginName,
      updated_at: Math.floor(user.changedAt.getTime() / 1000),
    },
    email: str(email.email) ? { email: str(email.email), email_verified: email.isEmailVerified === true } : {},
  };
}
