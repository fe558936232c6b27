/**
 * Personal access tokens at the introspection endpoint, answered as ZITADEL answers them
 * (internal/api/oidc/introspect.go, `assertClientScopesForPAT`): oidc-provider does not know PATs
 * and answers `{"active":false}`; provider.ts then asks here.
 *
 * In ZITADEL a PAT has no client and no audience of its own, so it is active for every client
 * that authenticates at the endpoint: its audience becomes the introspecting client and that
 * client's project, and its scope gains `urn:zitadel:iam:org:project:role:{key}` for every role
 * of that project (so the user's roles there are answered). Its scopes are ZITADEL's fixed PAT
 * scopes; of ZITADEL's two sets (management v1 leaves `profile` out, user v2 and new machine
 * users have it) this service answers the one with `profile`, so that a resource server learns
 * the user's name (`username`, `preferred_username`, `name`). The rest is ZITADEL's answer: `sub`,
 * `exp` (the PAT's expiry), `iat`/`nbf` (its creation), `iss`, `jti` (the PAT's id), `token_type`,
 * the claims of its scopes (built by claims.ts, as for userinfo), no `client_id`.
 * Which PATs are active is the API's rule (auth/authenticate.ts): unexpired, of an active user.
 */
import { hashToken } from '../auth/tokens.js';
import type { Store } from '../store/store.js';
import { personClaims } from './claims.js';
import { RESOURCE_OWNER_SCOPE, ROLE_KEY_SCOPE_PREFIX, USER_METADATA_SCOPE } from './scopes.js';

/** ZITADEL's scopes of every PAT (user v2's set). */
export const PAT_SCOPES = ['openid', 'profile', USER_METADATA_SCOPE, RESOURCE_OWNER_SCOPE] as const;
/** Enough for any project's roles (ZITADEL lists them all). */
const MAX_ROLES = 1000;

/** A PAT never has a JWT's dots (auth/tokens.ts). */
const NOT_A_PAT = /\./;

export interface IntrospectingClient {
  clientId: string;
  /** The client's project (an application's); none for a machine user's client. */
  projectId?: string;
}

/** The introspection answer for a PAT, or undefined when the token is no active PAT. */
export async function introspectPersonalAccessToken(store: Store, instanceId: string, issuer: string, token: string, caller: IntrospectingClient): Promise<Record<string, unknown> | undefined> {
  if (NOT_A_PAT.test(token)) return undefined;
  const owner = await store.read.tokens.findOwnerByHash(hashToken(token));
  if (!owner || owner.expiresAt.getTime() <= Date.now() || owner.userState !== 'USER_STATE_ACTIVE') return undefined;
  const [user, pat] = await Promise.all([store.read.users.get(owner.userId), store.read.tokens.getForUser(owner.userId, owner.tokenId)]);
  if (!user || !pat) return undefined;

  const { projectId } = caller;
  const roleKeys = projectId ? (await store.read.projects.roles.search({ projectId, limit: MAX_ROLES, offset: 0, asc: true })).rows.map((r) => r.roleKey) : [];
  // The role scopes make the one claims builder answer the user's roles in that project, under
  // ZITADEL's roles claim and its per-project one.
  const scope = [...PAT_SCOPES, ...roleKeys.map((key) => ROLE_KEY_SCOPE_PREFIX + key)].join(' ');
  const claims = await personClaims(store, instanceId, user, { use: 'userinfo', scope, projectId });
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
  return {
    ...claims,
    active: true,
    scope,
    token_type: 'Bearer',
    exp: seconds(owner.expiresAt),
    iat: seconds(pat.createdAt),
    nbf: seconds(pat.createdAt),
    aud: [...new Set([caller.clientId, ...(projectId ? [projectId] : [])])],
    iss: issuer,
    jti: owner.tokenId,
    // ZITADEL's introspection answer repeats preferred_username as username (RFC 7662).
    ...(typeof claims.preferred_username === 'string' ? { username: claims.preferred_username } : {}),
  };
}
