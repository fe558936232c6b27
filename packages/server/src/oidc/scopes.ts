/**
 * The scopes and claims of ZITADEL's flavour of OIDC that this service understands, and the
 * user claims derived from the store.
 */
import type { Store } from '../store/store.js';
import type { UserRow } from '../store/repositories/users.js';

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

/** ZITADEL's scope asking for the user's metadata; userinfo answers it under a claim of the same name (key → base64 value). */
export const USER_METADATA_SCOPE = 'urn:zitadel:iam:user:metadata';

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

/** `{ "<role>": { "<orgId>": "<org primary domain>" } }` from the user's active grants on these projects. */
export async function rolesClaim(store: Store, userId: string, projectIds: string[]): Promise<RolesClaim> {
  const grants = await store.read.logins.grantedRoles(userId, [...new Set(projectIds)], 'USER_GRANT_STATE_ACTIVE');
  const claim: RolesClaim = {};
  for (const grant of grants) {
    for (const role of grant.roleKeys) (claim[role] ??= {})[grant.orgId] = grant.orgPrimaryDomain;
  }
  return claim;
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
      name: str(profile.displayName) ?? (([given, family].filter(Boolean).join(' ') || undefined) ?? str(data.name)),
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
