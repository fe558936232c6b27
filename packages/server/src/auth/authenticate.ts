/**
 * Bearer token → the caller and what it may do in the organisation it acts on.
 * Token kinds are tried in order by `TokenVerifier`s; personal access tokens are the first.
 */
import type { Caller, RequestContext } from '../domain/context.js';
import { permissionDenied, unauthenticated } from '../domain/errors.js';
import { Permissions } from '../domain/permissions.js';
import type { Store } from '../store/store.js';
import { AuthCache } from './auth-cache.js';
import { hashToken } from './tokens.js';

/** Returns the caller a token belongs to, or undefined when the token is not of its kind. */
export type TokenVerifier = (token: string) => Promise<Caller | undefined>;

/** Not a PAT: a JWT's dots (auth/tokens.ts makes PATs of base64url characters only). */
const NOT_A_PAT = /\./;

const INVALID_TOKEN = () => unauthenticated('AUTH-7fs1e', 'Token is invalid or expired');

/**
 * Personal access tokens. A valid token's owner is cached (auth-cache.ts) until the token
 * expires, the TTL passes, or a write to tokens/users commits; unknown, expired and inactive
 * tokens are looked up every time.
 */
export function personalAccessTokenVerifier(store: Store, cache = new AuthCache<Caller | undefined>(store)): TokenVerifier {
  return async (token) =>
    // A JWT (an OAuth access token) is never a PAT: no lookup, which would be uncached.
    NOT_A_PAT.test(token)
      ? undefined
      : cache.get(hashToken(token), async () => {
          const owner = await store.read.tokens.findOwnerByHash(hashToken(token));
          if (!owner) return { uncached: undefined };
          if (owner.expiresAt.getTime() <= Date.now() || owner.userState !== 'USER_STATE_ACTIVE') throw INVALID_TOKEN();
          return { value: { userId: owner.userId, orgId: owner.orgId }, notAfter: owner.expiresAt.getTime() };
        });
}

/** A caller's permissions per (user, context organisation); see auth-cache.ts for how long they are kept. */
export type PermissionsCache = AuthCache<Permissions>;

/**
 * `credentials = auth-scheme 1*SP token68` (RFC 9110 §11.4): the scheme is case-insensitive
 * (`bearer`, `BEARER`), and one or more spaces may follow it.
 */
const BEARER_CREDENTIALS = /^Bearer +(\S+)$/i;

/** The token of a `Bearer` `Authorization` header, undefined for anything else: the API's and userinfo's one parser. */
export function parseBearer(header: string | undefined): string | undefined {
  return header ? BEARER_CREDENTIALS.exec(header.trim())?.[1] : undefined;
}

/** `Authorization` header → token, or 401 as ZITADEL words it. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw unauthenticated('AUTH-x8d9a', 'auth header missing');
  const token = parseBearer(header);
  if (!token) throw unauthenticated('AUTH-toLo1', 'invalid auth header');
  return token;
}

export async function authenticate(
  store: Store,
  verifiers: readonly TokenVerifier[],
  instanceId: string,
  authorization: string | undefined,
  orgHeader: string | undefined,
  permissionsCache: PermissionsCache = new AuthCache<Permissions>(store, { maxEntries: 0 }),
): Promise<RequestContext> {
  const token = bearerToken(authorization);
  let caller: Caller | undefined;
  for (const verify of verifiers) {
    caller = await verify(token);
    if (caller) break;
  }
  if (!caller) throw INVALID_TOKEN();

  const orgId = orgHeader?.trim() || caller.orgId;
  const userId = caller.userId;
  const permissions = await permissionsCache.get(`${userId}/${orgId}`, async () => {
    if (orgId !== caller.orgId && !(await store.read.orgs.exists(orgId))) {
      throw permissionDenied('AUTH-Bs7Ds', "Organisation doesn't exist");
    }
    return { value: new Permissions(await store.read.members.forUserInOrg(userId, orgId)) };
  });
  return { instanceId, caller, orgId, permissions };
}
