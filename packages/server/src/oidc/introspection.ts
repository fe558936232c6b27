/**
 * The introspection endpoint around oidc-provider's: the library authenticates the client and
 * answers for the opaque tokens it stores; this module answers for what it does not know.
 *
 * - JWT access tokens: the library refuses them by throwing `unsupported_token_type` before it
 *   looks anything up (an error object, its handler, an error event, and a warning line in our
 *   request log for a request that then succeeds). So the front door hands it the request with the
 *   JWT set aside (`withJwtSetAside`) and a NUL in its place: a token nothing can store (the adapter
 *   answers "not found" for it without a query, nul-guard.ts), so the library authenticates the
 *   client as always and answers `{"active":false}`; then the JWT is answered from its signature
 *   and its user (`answerIntrospection`). A request whose client is refused keeps the library's
 *   answer.
 * - Opaque tokens are stored with one audience only (oidc-provider's setAudience refuses more:
 *   "only a single audience value is supported"), so their answer gets the same `aud` array a JWT
 *   of that client and scope would carry, and a machine user's client-credentials token names the
 *   user as `sub` (as its JWTs do, and ZITADEL answers).
 * - Personal access tokens are unknown to the library: pat-introspection.ts answers for them, to
 *   any confidential client (a public one sees its own tokens only, and a PAT is no client's).
 * - The user's userinfo for the token's scope, as ZITADEL's answer carries it (`SetUserInfo` in its
 *   `internal/api/oidc/introspect.go`): with `profile` the profile claims and `username` (the
 *   preferred login name, as for PATs), with `email` the e-mail claims, for JWTs and opaque tokens
 *   alike (`userinfoFor`, kept like the rest; nothing is read for a token without those scopes).
 *
 * A JWT's answer is kept like authentication's results (auth/auth-cache.ts): its signature does not
 * change, and a write to users in this process is seen at once, another process's within the
 * cache's TTL (a locked, deactivated or removed user's tokens go inactive then); never past the
 * token's expiry. A resource server introspects the same token on every request it serves.
 */
import type { JWTPayload } from 'jose';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { AuthCache } from '../auth/auth-cache.js';
import { authenticatableUser } from '../domain/users/may-authenticate.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';
import { JWT_SHAPE } from './access-tokens.js';
import { standardClaims } from './claims.js';
import type { ClientExtras } from './clients.js';
import { setAsideTokenOf } from './form-request.js';
import type { KeyRing } from './keys.js';
import { introspectPersonalAccessToken } from './pat-introspection.js';
import { hasScope, tokenAudience } from './scopes.js';
import { cachedClaimsSettings } from './userinfo.js';

/** What oidc-provider is given in place of a JWT (see above). */
const SET_ASIDE = '\u0000';

/**
 * The form oidc-provider is to see for an introspection request that names one token, a JWT: the
 * JWT replaced by SET_ASIDE, and the JWT itself for `answerIntrospection` (the front door hands it
 * on with the request: form-request.ts `FormReplay`). Undefined for any other form: an opaque token
 * is the library's, a repeated `token` the library refuses.
 */
export function withJwtSetAside(params: URLSearchParams): { params: URLSearchParams; token: string } | undefined {
  const tokens = params.getAll('token');
  if (tokens.length !== 1 || !JWT_SHAPE.test(tokens[0])) return undefined;
  const rewritten = new URLSearchParams(params);
  rewritten.set('token', SET_ASIDE);
  return { params: rewritten, token: tokens[0] };
}

export interface IntrospectionDeps {
  store: Store;
  instanceId: string;
  issuer: string;
  keys: KeyRing;
  /** Our metadata of a client (clients.ts `clientExtrasLookup`). */
  clientExtras: (clientId: string) => Promise<Readonly<ClientExtras> | undefined>;
}

type IntrospectionBody = { error?: string; active?: boolean; token_type?: string; client_id?: string; scope?: string; aud?: unknown; sub?: string };

/** oidc-provider middleware (provider.use): completes or replaces the library's answer, as above. */
export function answerIntrospection(deps: IntrospectionDeps) {
  const { store, instanceId, issuer } = deps;
  const jwtClaims = new AuthCache<JWTPayload | undefined>(store);
  const userinfoClaims = new AuthCache<Record<string, unknown>>(store);
  const settings = cachedClaimsSettings(store, instanceId);

  /** The profile and e-mail claims the scope asks for, and `username` with the profile (ZITADEL's answer). */
  async function userinfoOf(user: UserRow, scope: string | undefined): Promise<Record<string, unknown>> {
    const claims = await standardClaims(user, scope, settings);
    return typeof claims.preferred_username === 'string' ? { ...claims, username: claims.preferred_username } : claims;
  }

  /** The same for an opaque token's user, read and kept only when the scope asks for any (else undefined, at once). */
  function userinfoFor(userId: string, scope: string | undefined): Promise<Record<string, unknown>> | undefined {
    if (!hasScope(scope, 'profile') && !hasScope(scope, 'email')) return undefined;
    return userinfoClaims.get(`${userId} ${scope}`, async () => {
      const user = await authenticatableUser(store, userId);
      return user ? { value: await userinfoOf(user, scope) } : { uncached: {} };
    });
  }

  /** The JWT's claims when it is active: ours, unexpired, of a user who may authenticate. */
  function activeJwtClaims(token: string): Promise<JWTPayload | undefined> {
    return jwtClaims.get(token, async () => {
      let payload: JWTPayload;
      try {
        ({ payload } = await deps.keys.verify(token, { issuer, typ: 'at+jwt' }));
      } catch {
        return { uncached: undefined };
      }
      const user = typeof payload.sub === 'string' ? await authenticatableUser(store, payload.sub) : undefined;
      // oidc-provider always sets exp: a JWT without it is not one of ours.
      if (!user || typeof payload.exp !== 'number') return { uncached: undefined };
      const scope = typeof payload.scope === 'string' ? payload.scope : undefined;
      return { value: { ...(await userinfoOf(user, scope)), ...payload }, notAfter: payload.exp * 1000 };
    });
  }

  async function answerJwt(ctx: KoaContextWithOIDC, token: string): Promise<void> {
    const caller = ctx.oidc.client;
    const claims = await activeJwtClaims(token);
    // A public client may look at its own tokens only (as allowedPolicy says for stored ones).
    const foreign = caller?.clientAuthMethod === 'none' && claims?.client_id !== caller.clientId;
    ctx.status = 200;
    ctx.body = claims && !foreign ? { active: true, token_type: 'Bearer', ...claims } : { active: false };
  }

  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.oidc?.route !== 'introspection') return;
    const body = ctx.body as IntrospectionBody | undefined;
    // A structured token that was not set aside (another shape than our JWTs'), refused by the library.
    if (ctx.status === 400 && body?.error === 'unsupported_token_type') return answerJwt(ctx, String(ctx.oidc.params?.token ?? ''));
    if (ctx.status !== 200) return;
    if (body?.active && body.token_type && body.client_id) {
      const owner = await deps.clientExtras(body.client_id);
      body.aud = tokenAudience(owner?.project_id, body.client_id, body.scope);
      if (!body.sub && owner?.kind === 'machine' && owner.user_id) body.sub = owner.user_id;
      const userinfo = body.sub ? userinfoFor(body.sub, body.scope) : undefined;
      if (userinfo) ctx.body = { ...(await userinfo), ...body };
      return;
    }
    if (body?.active !== false) return;
    const jwt = setAsideTokenOf(ctx.req);
    if (jwt !== undefined) return answerJwt(ctx, jwt);
    const caller = ctx.oidc.client;
    if (!caller || caller.clientAuthMethod === 'none') return;
    const token = String(ctx.oidc.params?.token ?? '');
    const pat = await introspectPersonalAccessToken(store, instanceId, issuer, token, { clientId: caller.clientId, projectId: (caller.metadata() as ClientExtras).project_id });
    if (pat) ctx.body = pat;
  };
}
