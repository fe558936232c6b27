/**
 * The ID token a machine user's grant answers beside its access token when `openid` was granted.
 *
 * ZITADEL builds every grant's answer the same way (internal/api/oidc/token.go,
 * accessTokenResponseFromSession): the access token, and an ID token whenever the session's scopes
 * hold `openid`, whatever the grant — client credentials and the JWT-profile grant included. OAuth
 * libraries follow ZITADEL there (zitadel-go's `rp.ClientCredentials` asks for `openid`), and
 * openid-client checks such an ID token before it answers. oidc-provider's client-credentials grant
 * never issues one, so the token endpoint adds it (clientCredentialsIdToken); the JWT-profile grant
 * (jwt-profile-grant.ts) mints its own with the same function.
 *
 * The claims are those of ZITADEL's ID token for a machine: the subject and the reserved claims
 * claims.ts decides (roles, org), no profile (a machine's grant asserts no userinfo into it), and
 * `at_hash` binding it to the access token it came with.
 */
import type Provider from 'oidc-provider';
import type { Client, KoaContextWithOIDC } from 'oidc-provider';
import { authenticatableUser } from '../domain/users/may-authenticate.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';
import { personClaims } from './claims.js';
import type { ClientExtras } from './clients.js';
import { hasScope } from './scopes.js';

/** Signs the ID token of `user`'s grant to `client` for `scope`, bound to `accessToken`. */
export async function machineIdToken(provider: Provider, store: Store, instanceId: string, user: UserRow, client: Client, scope: string, accessToken: string): Promise<string> {
  const claims = await personClaims(store, instanceId, user, { use: 'id_token', scope });
  const idToken = new provider.IdToken(claims, { client });
  // The library reads the granted scope from the token to mask the claims; no grant carries it here.
  (idToken as unknown as { scope: string }).scope = scope;
  idToken.set('at_hash', accessToken);
  return idToken.issue({ use: 'idtoken' });
}

/**
 * Koa middleware for oidc-provider's token endpoint: a successful client-credentials answer whose
 * granted scope holds `openid` gets the machine user's ID token. A user that may no longer authenticate gets
 * none (its secret's client is refused at the next request anyway: clients.ts).
 */
export function clientCredentialsIdToken(deps: { store: Store; instanceId: string }) {
  const { store, instanceId } = deps;
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.status !== 200 || ctx.oidc?.params?.grant_type !== 'client_credentials') return;
    const body = ctx.body as { access_token?: unknown; scope?: unknown; id_token?: string } | undefined;
    if (!body || typeof body.access_token !== 'string' || typeof body.scope !== 'string' || !hasScope(body.scope, 'openid')) return;
    const client = ctx.oidc.client;
    const userId = (client?.metadata() as ClientExtras | undefined)?.user_id;
    if (!client || !userId) return;
    const user = await authenticatableUser(store, userId);
    if (user) body.id_token = await machineIdToken(ctx.oidc.provider, store, instanceId, user, client, body.scope, body.access_token);
  };
}
