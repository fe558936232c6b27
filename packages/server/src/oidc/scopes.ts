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

const PROJECT_AUD = /^urn:service:iam:org:project:id:([^:\s]+):aud$/;

/** Project ids named by `urn:service:iam:org:project:id:{projectId}:aud` scopes (not the service one). */
export function audienceProjects(scope: string | undefined): string[] {
  const ids = (scope ?? '')
    .split(' ')
    .map((s) => PROJECT_AUD.exec(s)?.[1])
    .filter((id): id is string => !!id && id !== 'service');
  return [...new Set(ids)];
}

/**
 * ZITADEL's `aud` of an access token: the app's project, the client, every project named by an
 * audience scope, and `service` (this API) with the service audience scope. JWTs carry it and
 * introspection answers it, for opaque tokens too.
 */
export function tokenAudience(projectId: string | undefined, clientId: string | undefined, scope: string | undefined): string[] {
  const aud = [projectId, clientId, ...audienceProjects(scope)];
  if (hasScope(scope, SERVICE_AUDIENCE_SCOPE)) aud.push(SERVICE_AUDIENCE);
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
export function userClaims(user: UserRow, orgPrimaryDomain: string): { profile: Record<string, unknown>; email: Record<string, unknown> } {
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
      preferred_username: `${user.userName}@${orgPrimaryDomain}`,
      updated_at: Math.floor(user.changedAt.getTime() / 1000),
    },
    email: str(email.email) ? { email: str(email.email), email_verified: email.isEmailVerified === true } : {},
  };
}
