/**
 * The one place a person's claims are built, for the ID token (oidc-provider's `findAccount`,
 * provider.ts) and for userinfo (http/routes/oidc-ui.ts): `sub`, the profile and e-mail claims, the
 * roles under the name of each roles scope asked for, and ZITADEL's metadata claim. Where they go
 * decides what is included, as in ZITADEL:
 * - the ID token carries profile and e-mail only when the app asserts them (idTokenUserinfoAssertion),
 *   and roles only when it asserts roles (idTokenRoleAssertion; under our claim name without a roles scope);
 * - userinfo answers what the scopes ask for; roles without a roles scope when the app's project
 *   asserts them (projectRoleAssertion, under ZITADEL's claim name); metadata for ZITADEL's metadata scope.
 */
import { metadataClaim } from '../domain/users/metadata.js';
import { loginNameReader } from '../domain/users/login-names.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';
import { audienceProjects, hasScope, ROLES_CLAIM, rolesClaim, rolesClaimNames, USER_METADATA_SCOPE, userClaims, ZITADEL_ROLES_CLAIM } from './scopes.js';

export interface ClaimsRequest {
  use: 'id_token' | 'userinfo';
  scope: string | undefined;
  /** The project of the application the token was issued to, if any. */
  projectId?: string;
  idTokenUserinfoAssertion?: boolean;
  idTokenRoleAssertion?: boolean;
}

export async function personClaims(store: Store, instanceId: string, user: UserRow, request: ClaimsRequest): Promise<{ sub: string } & Record<string, unknown>> {
  const { use, scope } = request;
  const claims: { sub: string } & Record<string, unknown> = { sub: user.id };
  const userinfo = use === 'userinfo';
  if ((hasScope(scope, 'profile') || hasScope(scope, 'email')) && (userinfo || request.idTokenUserinfoAssertion)) {
    const std = userClaims(user, (await loginNameReader(store.read, instanceId).of(user)).preferredLoginName);
    if (hasScope(scope, 'profile')) Object.assign(claims, std.profile);
    if (hasScope(scope, 'email')) Object.assign(claims, std.email);
  }
  let roleClaims = rolesClaimNames(scope);
  if (userinfo) {
    if (!roleClaims.length && request.projectId && (await store.read.projects.get(request.projectId))?.projectRoleAssertion) roleClaims = [ZITADEL_ROLES_CLAIM];
  } else {
    roleClaims = request.idTokenRoleAssertion ? (roleClaims.length ? roleClaims : [ROLES_CLAIM]) : [];
  }
  if (roleClaims.length) {
    const projects = [...new Set([...(request.projectId ? [request.projectId] : []), ...audienceProjects(scope)])];
    const roles = await rolesClaim(store, user.id, projects);
    for (const name of roleClaims) claims[name] = roles;
  }
  if (userinfo && hasScope(scope, USER_METADATA_SCOPE)) claims[USER_METADATA_SCOPE] = await metadataClaim(store.read, user.id);
  return claims;
}
