/**
 * Access tokens issued by our authorization server, as the API and userinfo see them: JWTs are
 * checked against our signing keys, opaque ones are looked up in the provider's storage.
 */
import type { JWTPayload } from 'jose';
import type Provider from 'oidc-provider';
import { AuthCache } from '../auth/auth-cache.js';
import type { TokenVerifier } from '../auth/authenticate.js';
import type { Caller } from '../domain/context.js';
import { unauthenticated } from '../domain/errors.js';
import { authenticatableUser } from '../domain/users/may-authenticate.js';
import type { Store } from '../store/store.js';
import type { KeyRing } from './keys.js';
import { asksForApiAudience, SERVICE_AUDIENCE } from './scopes.js';

export interface VerifiedAccessToken {
  /** The user the token acts for (a machine user's id for client-credentials tokens). */
  userId: string;
  clientId: string;
  scope: string;
  audience: string[];
  /** The claims a JWT carries, or the extra claims stored with an opaque token. */
  claims: Record<string, unknown>;
}

/** A JWT's three base64url parts. Personal access tokens (auth/tokens.ts) never have this shape. */
export const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

export function accessTokenReader(provider: Provider, keys: KeyRing, issuer: string, store: Store) {
  const verifiedJwts = new AuthCache<VerifiedAccessToken | undefined>(store);
  async function machineUserOf(clientId: string): Promise<string | undefined> {
    return (await store.read.logins.machineSecrets.byClientId(clientId))?.userId;
  }

  async function verifyJwt(token: string): Promise<VerifiedAccessToken | undefined> {
    let payload: JWTPayload;
    try {
      ({ payload } = await keys.verify(token, { issuer, typ: 'at+jwt' }));
    } catch {
      return undefined;
    }
    const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (typeof payload.sub !== 'string') return undefined;
    return { userId: payload.sub, clientId: String(payload.client_id ?? ''), scope: String(payload.scope ?? ''), audience: aud, claims: payload };
  }

  /** The token if it is one of ours and valid now; undefined otherwise. */
  return async function read(token: string): Promise<VerifiedAccessToken | undefined> {
    if (JWT_SHAPE.test(token)) {
      // A signature checked once holds until the token expires; kept for the cache's TTL (a key's
      // removal, like a user's state, is seen within it), so userinfo does not check it per call.
      return verifiedJwts.get(token, async () => {
        const verified = await verifyJwt(token);
        const exp = verified?.claims.exp;
        return verified && typeof exp === 'number' ? { value: verified, notAfter: exp * 1000 } : { uncached: verified };
      });
    }
    const access = await provider.AccessToken.find(token);
    if (access && !access.isExpired && access.accountId) {
      return { userId: access.accountId, clientId: access.clientId!, scope: access.scope ?? '', audience: [String(access.aud ?? '')], claims: { ...(access.extra ?? {}) } };
    }
    const cc = await provider.ClientCredentials.find(token);
    if (cc && !cc.isExpired && cc.clientId) {
      const userId = await machineUserOf(cc.clientId);
      if (userId) return { userId, clientId: cc.clientId, scope: cc.scope ?? '', audience: [String(cc.aud ?? '')], claims: { ...(cc.extra ?? {}) } };
    }
    return undefined;
  };
}

export type AccessTokenReader = ReturnType<typeof accessTokenReader>;

/** Whether the token was issued for this API (`…:id:service:aud` scope): others are refused on /admin and /management. */
export function isForThisApi(token: VerifiedAccessToken): boolean {
  return token.audience.includes(SERVICE_AUDIENCE) || asksForApiAudience(token.scope);
}

/**
 * The API's verifier for OAuth access tokens (tried after personal access tokens). A valid JWT's
 * caller is cached as a PAT's is (auth/auth-cache.ts: until the token expires, a write to users,
 * tokens or memberships in this process, or the TTL for other processes), so a client calling with
 * one JWT does not pay its signature check and its user's read on every request. An opaque token's
 * caller is not kept here: its row is (oidc/adapter.ts, which sees its revocation), its user is read.
 */
export function oauthAccessTokenVerifier(read: AccessTokenReader, store: Store, cache = new AuthCache<Caller | undefined>(store)): TokenVerifier {
  async function verify(token: string): Promise<{ caller: Caller; expiresAt?: number } | undefined> {
    const access = await read(token);
    if (!access) return undefined;
    if (!isForThisApi(access)) throw unauthenticated('AUTH-7fs1e', 'Token is not valid for this API (audience scope missing)');
    const user = await authenticatableUser(store, access.userId);
    if (!user) throw unauthenticated('AUTH-7fs1e', 'Token is invalid or expired');
    const exp = access.claims.exp;
    return { caller: { userId: user.id, orgId: user.orgId }, ...(typeof exp === 'number' ? { expiresAt: exp * 1000 } : {}) };
  }
  return async (token) => {
    if (!JWT_SHAPE.test(token)) return (await verify(token))?.caller;
    return cache.get(token, async () => {
      const verified = await verify(token);
      // A JWT without exp is not one of ours (oidc-provider always sets it): never cached.
      return verified?.expiresAt ? { value: verified.caller, notAfter: verified.expiresAt } : { uncached: verified?.caller };
    });
  };
}
