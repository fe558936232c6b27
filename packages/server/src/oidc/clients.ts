/**
 * oidc-provider asks for clients by client_id; they come from our store: OIDC applications of
 * projects, and machine users that have a client secret (client-credentials grant). Secrets are
 * stored as sha-256 hashes (they are 32 random bytes, like PATs), so the provider's plain-text
 * comparison is replaced by `compareHashedClientSecret`.
 *
 * An application with the auth method PRIVATE_KEY_JWT is a `private_key_jwt` client whose `jwks`
 * are the public keys of its unexpired keys (domain/apps/app-keys.ts). Nothing here caches: every
 * lookup reads the store, and oidc-provider keeps a built client only under the hash of exactly
 * this metadata (`Client.find`), so a removed or expired key is refused from the next request on,
 * in every process sharing the database.
 */
import { createPublicKey, type JsonWebKey, timingSafeEqual } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';
import { AuthCache } from '../auth/auth-cache.js';
import { hashToken } from '../auth/tokens.js';
import { isApiApp } from '../domain/apps/api-apps.js';
import { usesPrivateKeyJwt } from '../domain/apps/app-keys.js';
import { durationSeconds, nonCompliantRedirects, type OidcAppConfig, refusedRedirectExplanation, storedOidcConfig } from '../domain/apps/oidc-config.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';
import type { ClientLookup } from './adapter.js';
import { ClientAssertionRelay } from './client-assertions.js';

/** Our own client metadata (declared in `extraClientMetadata.properties`). */
export const EXTRA_CLIENT_METADATA = [
  'kind',
  'project_id',
  'user_id',
  'access_token_type',
  'access_token_role_assertion',
  'id_token_role_assertion',
  'id_token_userinfo_assertion',
  'clock_skew',
] as const;

export interface ClientExtras {
  kind?: 'app' | 'machine';
  project_id?: string;
  user_id?: string;
  access_token_type?: 'jwt' | 'opaque';
  access_token_role_assertion?: boolean;
  id_token_role_assertion?: boolean;
  id_token_userinfo_assertion?: boolean;
  clock_skew?: number;
}

/** What a provider and its front door ask about clients (one set per provider: server.ts builds both). */
export interface OAuthClients {
  /** A client's metadata for oidc-provider, without the relay key (`clientLookup`). */
  find: ClientLookup;
  /** Our own metadata of a client, from the same cache (`clientExtrasLookup`). */
  extras: (clientId: string) => Promise<Readonly<ClientExtras> | undefined>;
  /** The key of the assertions oidc-provider accepts from key-authenticated clients (client-assertions.ts). */
  relay: ClientAssertionRelay;
}

export function oauthClients(store: Store, issuer: string): OAuthClients {
  const cache = new AuthCache<AdapterPayload | undefined>(store);
  return { find: clientLookup(store, cache), extras: clientExtrasLookup(store, cache), relay: new ClientAssertionRelay(issuer) };
}

/**
 * A client's metadata by client id, for oidc-provider's adapter: every token, introspection and
 * revocation request looks its client up, which cost two or three queries each time. Kept like
 * authentication's results (auth/auth-cache.ts): a committed write to applications, their keys,
 * machine secrets or users is seen at once in this process, another process's within the cache's
 * TTL. Unknown clients are looked up every time; a client authenticating with keys
 * (private_key_jwt) too, as its keys' expiry is not kept here.
 */
export function clientLookup(store: Store, cache = new AuthCache<AdapterPayload | undefined>(store)) {
  return async (clientId: string): Promise<AdapterPayload | undefined> => {
    const payload = await cachedClient(store, cache, clientId);
    // A copy for each caller: the cached one is shared by every request for this client.
    return payload && copyOfMetadata(payload);
  };
}

/**
 * Our own metadata of a client (its kind, project, user), from the same cache as `clientLookup`
 * (pass the same one) and without building oidc-provider's Client: what the introspection answer
 * needs of the token's client. Read-only: it is the cached object itself.
 */
export function clientExtrasLookup(store: Store, cache: AuthCache<AdapterPayload | undefined>) {
  return async (clientId: string): Promise<Readonly<ClientExtras> | undefined> => (await cachedClient(store, cache, clientId)) as ClientExtras | undefined;
}

/**
 * A deep copy of client metadata. Its values are strings, numbers, booleans and arrays of strings,
 * except a key-authenticated client's `jwks` (never cached): cheaper than structuredClone, which
 * cost more than the rest of the lookup on every token and introspection request.
 */
function copyOfMetadata(payload: AdapterPayload): AdapterPayload {
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(payload)) {
    copy[name] = Array.isArray(value) ? [...value] : value !== null && typeof value === 'object' ? structuredClone(value) : value;
  }
  return copy as AdapterPayload;
}

function cachedClient(store: Store, cache: AuthCache<AdapterPayload | undefined>, clientId: string): Promise<AdapterPayload | undefined> {
  return cache.get(clientId, async () => {
    const found = await lookUpClient(store, clientId);
    return found && found.token_endpoint_auth_method !== 'private_key_jwt' ? { value: found } : { uncached: found };
  });
}

async function lookUpClient(store: Store, clientId: string): Promise<AdapterPayload | undefined> {
  const app = await store.read.oidcApps.byClientId(clientId);
  if (app) {
    if (app.state !== 'APP_STATE_ACTIVE') return undefined;
    const keyAuth = usesPrivateKeyJwt(app) ? { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: await usableKeys(store, app.id) } } : {};
    // An API application signs nobody in: it only authenticates, to introspect (or revoke) tokens.
    if (isApiApp(app)) {
      return {
        client_id: app.clientId,
        client_secret: app.clientSecretHash ?? undefined,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        kind: 'app',
        project_id: app.projectId,
        ...keyAuth,
      } as AdapterPayload;
    }
    return {
      client_id: app.clientId,
      ...(app.clientSecretHash ? { client_secret: app.clientSecretHash } : {}),
      ...toClientMetadata(storedOidcConfig(app.config)),
      kind: 'app',
      project_id: app.projectId,
      ...keyAuth,
    } as AdapterPayload;
  }
  const secret = await store.read.logins.machineSecrets.byClientId(clientId);
  if (!secret) {
    const machine = await store.read.users.get(clientId);
    return machine?.type === 'machine' ? jwtProfileClient(machine) : undefined;
  }
  const user = await store.read.users.get(secret.userId);
  if (!user || user.type !== 'machine' || user.state !== 'USER_STATE_ACTIVE') return undefined;
  return {
    client_id: secret.clientId,
    client_secret: secret.secretHash,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    kind: 'machine',
    user_id: user.id,
    access_token_type: accessTokenTypeOf(user),
  } as AdapterPayload;
}

/** The format of a machine user's access tokens (its `accessTokenType`), whichever grant issues them. */
function accessTokenTypeOf(user: UserRow): 'jwt' | 'opaque' {
  return (user.data as Record<string, unknown>).accessTokenType === 'ACCESS_TOKEN_TYPE_JWT' ? 'jwt' : 'opaque';
}

/**
 * The client a machine user's JWT-profile tokens name (oidc/jwt-profile-grant.ts; ZITADEL too names
 * the user as their `client_id`). Nobody signs in or gets a grant through it (no grant or response
 * types); it is public (`none`), so whoever holds such a token may revoke it, or introspect it, by
 * this client id alone, as RFC 7009 has public clients do. The lookup answers it for any machine
 * user's id that is no application's or client secret's client id, whatever the user's state:
 * oidc-provider's introspection fails on a token whose client it cannot find (a user's state is
 * checked where its tokens are used, not here).
 */
export function jwtProfileClient(user: UserRow): AdapterPayload {
  return {
    client_id: user.id,
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'none',
    kind: 'machine',
    user_id: user.id,
    access_token_type: accessTokenTypeOf(user),
  } as AdapterPayload;
}

/**
 * The application's unexpired public keys as a JWK set (`kid` = the key id, which ZITADEL's key
 * file carries as `keyId`). oidc-provider applies the same metadata to every endpoint that
 * authenticates clients: token, introspection, revocation.
 */
async function usableKeys(store: Store, appId: string): Promise<JsonWebKey[]> {
  const rows = await store.read.appKeys.usable(appId, new Date());
  return rows.map((row) => ({ ...createPublicKey(row.publicKey).export({ format: 'jwk' }), kid: row.id, alg: 'RS256', use: 'sig' }));
}

/** Replaces the provider's plain-text comparison: `clientSecret` holds the hash. */
export async function compareHashedClientSecret(this: { clientSecret?: string }, actual: string): Promise<boolean> {
  if (!this.clientSecret || typeof actual !== 'string') return false;
  const a = Buffer.from(hashToken(actual));
  const b = Buffer.from(this.clientSecret);
  return a.length === b.length && timingSafeEqual(a, b);
}

const RESPONSE_TYPES: Record<OidcAppConfig['responseTypes'][number], string> = {
  OIDC_RESPONSE_TYPE_CODE: 'code',
  OIDC_RESPONSE_TYPE_ID_TOKEN: 'id_token',
  OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN: 'id_token token',
};
const GRANT_TYPES: Partial<Record<OidcAppConfig['grantTypes'][number], string>> = {
  OIDC_GRANT_TYPE_AUTHORIZATION_CODE: 'authorization_code',
  OIDC_GRANT_TYPE_IMPLICIT: 'implicit',
  OIDC_GRANT_TYPE_REFRESH_TOKEN: 'refresh_token',
};
const AUTH_METHODS: Partial<Record<OidcAppConfig['authMethodType'], string>> = {
  OIDC_AUTH_METHOD_TYPE_BASIC: 'client_secret_basic',
  OIDC_AUTH_METHOD_TYPE_POST: 'client_secret_post',
  OIDC_AUTH_METHOD_TYPE_NONE: 'none',
  OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT: 'private_key_jwt',
};

/**
 * For the error page of `invalid_redirect_uri`: the explanation when the client registered the URI
 * but it is left out of its metadata (toClientMetadata below) for breaking the app type's rules.
 */
export async function refusedRedirectReason(store: Store, clientId: unknown, redirectUri: unknown): Promise<string | undefined> {
  if (typeof clientId !== 'string' || typeof redirectUri !== 'string') return undefined;
  const app = await store.read.oidcApps.byClientId(clientId);
  if (!app || isApiApp(app)) return undefined;
  return refusedRedirectExplanation(storedOidcConfig(app.config), redirectUri);
}

/** ZITADEL's app settings → oidc-provider client metadata. Without devMode, non-compliant redirect URIs are left out. */
export function toClientMetadata(config: OidcAppConfig): Record<string, unknown> {
  const allowed = (uris: string[]) => (config.devMode ? uris : uris.filter((u) => !nonCompliantRedirects(config, [u]).length));
  return {
    application_type: config.appType === 'OIDC_APP_TYPE_NATIVE' ? 'native' : 'web',
    redirect_uris: allowed(config.redirectUris),
    post_logout_redirect_uris: allowed(config.postLogoutRedirectUris),
    response_types: config.responseTypes.map((r) => RESPONSE_TYPES[r]),
    grant_types: config.grantTypes.map((g) => GRANT_TYPES[g]).filter(Boolean),
    token_endpoint_auth_method: AUTH_METHODS[config.authMethodType] ?? 'client_secret_basic',
    access_token_type: config.accessTokenType === 'OIDC_TOKEN_TYPE_JWT' ? 'jwt' : 'opaque',
    access_token_role_assertion: config.accessTokenRoleAssertion,
    id_token_role_assertion: config.idTokenRoleAssertion,
    id_token_userinfo_assertion: config.idTokenUserinfoAssertion,
    clock_skew: durationSeconds(config.clockSkew) ?? 0,
  };
}
