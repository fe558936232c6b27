/**
 * The one place that decides which claims a scope yields, for every token issued: the ID token
 * (oidc-provider's `findAccount`, provider.ts), userinfo (http/routes/oidc-ui.ts) and access tokens
 * (`extraTokenClaims`, provider.ts: in JWTs, and stored with opaque tokens, so introspection answers
 * them too), whatever the grant (code, refresh, client credentials). What goes where follows ZITADEL
 * (`internal/api/oidc/userinfo.go`, `token.go`):
 * - profile and e-mail: userinfo by scope; the ID token only when the app asserts them
 *   (idTokenUserinfoAssertion); never access tokens;
 * - ZITADEL's reserved claims — metadata (`urn:zitadel:iam:user:metadata`), the user's organisation
 *   (`urn:zitadel:iam:user:resourceowner:*`), the org id and primary-domain claims of the org scopes —
 *   wherever a token is issued, by scope alone;
 * - roles: userinfo when a roles scope asks (or, without one, when the app's project asserts roles:
 *   projectRoleAssertion); the ID token only when the app asserts roles (idTokenRoleAssertion);
 *   access tokens when a roles scope asks or the app asserts roles (accessTokenRoleAssertion).
 *   "A roles scope" is this service's or ZITADEL's roles scope, a `…:project:role:{key}` scope
 *   (which also limits the roles to the keys asked for) or `…:projects:roles`.
 *
 * Roles go under the name of each roles scope asked for. This service's claim holds the roles of
 * every project of the token (the app's and each audience project's); ZITADEL's holds the app's
 * project's (a token without an app — a machine user's — every audience project's), and beside it
 * ZITADEL's per-project claim `urn:zitadel:iam:org:project:{projectId}:roles` for each project of
 * the token in which the user has a role.
 */

import { loginNameRules, loginNamesOf } from '../domain/users/login-names.js';
import { metadataClaim } from '../domain/users/metadata.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';
import {
  audienceProjects,
  hasScope,
  mergedRoles,
  ORG_DOMAIN_PRIMARY_CLAIM,
  ORG_ID_CLAIM,
  PROJECTS_ROLES_SCOPE,
  projectRolesClaim,
  RESOURCE_OWNER_CLAIMS,
  RESOURCE_OWNER_SCOPE,
  ROLES_CLAIM,
  requestedOrg,
  requestedRoleKeys,
  rolesByProject,
  rolesClaimNames,
  USER_METADATA_SCOPE,
  userClaims,
  ZITADEL_ROLES_CLAIM,
} from './scopes.js';

export type ClaimsUse = 'id_token' | 'userinfo' | 'access_token';

export interface ClaimsRequest {
  use: ClaimsUse;
  scope: string | undefined;
  /** The project of the application the token was issued to, if any. */
  projectId?: string;
  idTokenUserinfoAssertion?: boolean;
  idTokenRoleAssertion?: boolean;
  accessTokenRoleAssertion?: boolean;
}

/**
 * The settings the claims depend on that change rarely (organisations' login-name rules, projects'
 * role assertion), read from the store by default; userinfo.ts passes a cache of them.
 */
export interface ClaimsSettings {
  preferredLoginName(user: Pick<UserRow, 'userName' | 'orgId'>): Promise<string>;
  projectRoleAssertion(projectId: string): Promise<boolean>;
}

export function storeClaimsSettings(store: Store, instanceId: string): ClaimsSettings {
  return {
    preferredLoginName: async (user) => loginNamesOf(user.userName, await loginNameRules(store.read, instanceId, user.orgId)).preferredLoginName,
    projectRoleAssertion: async (projectId) => !!(await store.read.projects.get(projectId))?.projectRoleAssertion,
  };
}

/** The claims of the ID token and userinfo: `sub`, the standard claims, and the reserved ones. */
export async function personClaims(
  store: Store,
  instanceId: string,
  user: UserRow,
  request: ClaimsRequest,
  settings: ClaimsSettings = storeClaimsSettings(store, instanceId),
): Promise<{ sub: string } & Record<string, unknown>> {
  const { use, scope } = request;
  const claims: { sub: string } & Record<string, unknown> = { sub: user.id };
  if (use === 'userinfo' || request.idTokenUserinfoAssertion) Object.assign(claims, await standardClaims(user, scope, settings));
  return Object.assign(claims, await reservedClaims(store, user, request, settings));
}

/** The profile and e-mail claims the scope asks for (none without `profile` or `email`). */
export async function standardClaims(user: UserRow, scope: string | undefined, settings: Pick<ClaimsSettings, 'preferredLoginName'>): Promise<Record<string, unknown>> {
  const profile = hasScope(scope, 'profile');
  const email = hasScope(scope, 'email');
  if (!profile && !email) return {};
  const std = userClaims(user, await settings.preferredLoginName(user));
  return { ...(profile ? std.profile : {}), ...(email ? std.email : {}) };
}

/**
 * ZITADEL's reserved claims (and this service's roles claim) for one use: what every token of
 * the user carries besides `sub` and the standard claims. Nothing is read unless a scope or an
 * assertion asks (the user's organisation is read only when the caller did not pass it).
 */
export async function reservedClaims(
  store: Store,
  user: { id: string; orgId?: string },
  request: ClaimsRequest,
  settings?: Pick<ClaimsSettings, 'projectRoleAssertion'>,
): Promise<Record<string, unknown>> {
  const { scope } = request;
  const claims: Record<string, unknown> = {};
  if (hasScope(scope, USER_METADATA_SCOPE)) {
    // ZITADEL's encoding (base64url without padding), and no claim without metadata.
    const metadata = await metadataClaim(store.read, user.id);
    const encoded = Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('base64url')]));
    if (Object.keys(encoded).length) claims[USER_METADATA_SCOPE] = encoded;
  }
  const org = requestedOrg(scope);
  if (org?.orgId) claims[ORG_ID_CLAIM] = org.orgId;
  if (org?.primaryDomain) claims[ORG_DOMAIN_PRIMARY_CLAIM] = org.primaryDomain;
  if (hasScope(scope, RESOURCE_OWNER_SCOPE) || org?.orgId) {
    const orgId = user.orgId ?? (await store.read.users.get(user.id))?.orgId;
    const owner = orgId ? await store.read.orgs.get(orgId) : undefined;
    if (owner) {
      claims[RESOURCE_OWNER_CLAIMS.id] = owner.id;
      claims[RESOURCE_OWNER_CLAIMS.name] = owner.name;
      claims[RESOURCE_OWNER_CLAIMS.primaryDomain] = owner.primaryDomain;
    }
  }
  Object.assign(claims, await roleClaims(store, user.id, request, settings));
  return claims;
}

/** The names the roles go under for this use, or none. */
function roleClaimNamesFor(request: ClaimsRequest, projectRoleAssertion: () => Promise<boolean>): Promise<string[]> | string[] {
  const asked = rolesClaimNames(request.scope);
  // ZITADEL's role-key and all-projects scopes answer under ZITADEL's claim.
  if ((requestedRoleKeys(request.scope).length || hasScope(request.scope, PROJECTS_ROLES_SCOPE)) && !asked.includes(ZITADEL_ROLES_CLAIM)) asked.push(ZITADEL_ROLES_CLAIM);
  switch (request.use) {
    case 'userinfo':
      return asked.length ? asked : projectRoleAssertion().then((asserts) => (asserts ? [ZITADEL_ROLES_CLAIM] : []));
    case 'id_token':
      return request.idTokenRoleAssertion ? (asked.length ? asked : [ROLES_CLAIM]) : [];
    case 'access_token':
      return asked.length ? asked : request.accessTokenRoleAssertion ? [ROLES_CLAIM] : [];
  }
}

async function roleClaims(store: Store, userId: string, request: ClaimsRequest, settings?: Pick<ClaimsSettings, 'projectRoleAssertion'>): Promise<Record<string, unknown>> {
  const { projectId, scope } = request;
  const asserts = settings?.projectRoleAssertion ?? (async (id: string) => !!(await store.read.projects.get(id))?.projectRoleAssertion);
  const names = await roleClaimNamesFor(request, async () => !!projectId && (await asserts(projectId)));
  if (!names.length) return {};
  const projects = [...new Set([...(projectId ? [projectId] : []), ...audienceProjects(scope)])];
  const keys = requestedRoleKeys(scope);
  const byProject = await rolesByProject(store, userId, projects, keys);
  const claims: Record<string, unknown> = {};
  for (const name of names) {
    claims[name] = name === ZITADEL_ROLES_CLAIM && projectId ? (byProject.get(projectId) ?? {}) : mergedRoles(byProject);
  }
  if (names.includes(ZITADEL_ROLES_CLAIM)) {
    for (const [id, roles] of byProject) claims[projectRolesClaim(id)] = roles;
  }
  return claims;
}

/** Whether a claim is one of the reserved ones decided here (oidc-provider's scope table cannot name per-project claims). */
export const isReservedClaim = (name: string) => name.startsWith('urn:zitadel:iam:') || name.startsWith('urn:service:iam:');
