/**
 * Bearer token → the caller and what it may do in the organisation it acts on.
 * Token kinds are tried in order by `TokenVerifier`s; personal access tokens are the first.
 */
import type { Caller, RequestContext } from '../domain/context.js';
import { permissionDenied, unauthenticated } from '../domain/errors.js';
import { Permissions } from '../domain/permissions.js';
import type { Store } from '../store/store.js';
import { hashToken } from './tokens.js';

/** Returns the caller a token belongs to, or undefined when the token is not of its kind. */
export type TokenVerifier = (token: string) => Promise<Caller | undefined>;

const INVALID_TOKEN = () => unauthenticated('AUTH-7fs1e', 'Token is invalid or expired');

export function personalAccessTokenVerifier(store: Store): TokenVerifier {
  return async (token) => {
    const owner = await store.read.tokens.findOwnerByHash(hashToken(token));
    if (!owner) return undefined;
    if (owner.expiresAt.getTime() <= Date.now() || owner.userState !== 'USER_STATE_ACTIVE') throw INVALID_TOKEN();
    return { userId: owner.userId, orgId: owner.orgId };
  };
}

/** `Authorization` header → token, or 401 as ZITADEL words it. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw unauthenticated('AUTH-x8d9a', 'auth header missing');
  const match = /^Bearer (\S+)$/.exec(header.trim());
  if (!match) throw unauthenticated('AUTH-toLo1', 'invalid auth header');
  return match[1];
}

export async function authenticate(
  store: Store,
  verifiers: readonly TokenVerifier[],
  instanceId: string,
  authorization: string | undefined,
  orgHeader: string | undefined,
): Promise<RequestContext> {
  const token = bearerToken(authorization);
  let caller: Caller | undefined;
  for (const verify of verifiers) {
    caller = await verify(token);
    if (caller) break;
  }
  if (!caller) throw INVALID_TOKEN();

  const orgId = orgHeader?.trim() || caller.orgId;
  if (orgId !== caller.orgId && !(await store.read.orgs.exists(orgId))) {
    throw permissionDenied('AUTH-Bs7Ds', "Organisation doesn't exist");
  }
  const memberships = await store.read.members.forUserInOrg(caller.userId, orgId);
  return { instanceId, caller, orgId, permissions: new Permissions(memberships) };
}
