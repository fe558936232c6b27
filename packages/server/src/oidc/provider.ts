/**
 * The authorization server: oidc-provider (a certified OpenID Provider library) configured with
 * ZITADEL's paths, scopes and claims, our store as its storage, and our keys.
 *
 * How ZITADEL's scopes map onto oidc-provider: the library takes a token's audience only from
 * one "resource server" (RFC 8707). Every token here is for our single resource server
 * (RESOURCE), whose allowed scopes are the OIDC ones, the reserved ones without a value and, per
 * request, those with a value (`…:aud`, `…:org:id:{id}`, `…:project:role:{key}`: the library drops
 * scopes it was not told of); the JWT customizer then writes ZITADEL's audience array (the app's
 * project, the client, each `…:id:{projectId}:aud` project, and `service` for this API). Which
 * claims the scopes yield is claims.ts's decision.
 */
import Provider, { type Configuration, errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import { orgScopeRefusal } from '../domain/login/org-scope.js';
import { projectAccessRefusal } from '../domain/login/project-access.js';
import { signInStanding, standingRefusal } from '../domain/login/sign-in-standing.js';
import { authenticatableUser } from '../domain/users/may-authenticate.js';
import type { Store } from '../store/store.js';
import { errorPage, logoutPage, messagePage } from '../ui/pages.js';
import { storeAdapter } from './adapter.js';
import { tokenAmr } from './authentication-methods.js';
import { isReservedClaim, personClaims, reservedClaims } from './claims.js';
import { CLOCK_TOLERANCE } from './client-assertions.js';
import { type ClientExtras, compareHashedClientSecret, EXTRA_CLIENT_METADATA, type OAuthClients, refusedRedirectReason } from './clients.js';
import { cookieSigner } from './cookie-keys.js';
import { signInPolicy } from './interaction-policy.js';
import { answerIntrospection } from './introspection.js';
import { DEFAULT_SIGNING_ALGORITHM, type KeyRing, SIGNING_ALGORITHMS, type SigningAlgorithm, signingAlgorithm } from './keys.js';
import { clientCredentialsIdToken } from './machine-id-token.js';
import {
  hasScope,
  isOrgScope,
  OIDC_SCOPES,
  PROJECTS_ROLES_SCOPE,
  RESOURCE_OWNER_SCOPE,
  ROLES_CLAIM,
  ROLES_SCOPE,
  requestedOrg,
  SERVICE_AUDIENCE_SCOPE,
  tokenAudience,
  USER_METADATA_SCOPE,
  valueScopesIn,
  ZITADEL_AUDIENCE_SCOPE,
  ZITADEL_ROLES_CLAIM,
  ZITADEL_ROLES_SCOPE,
} from './scopes.js';

/** The resource indicator of every token (clients never need to send it). */
export const RESOURCE = 'urn:service:iam';

export const ROUTES = {
  authorization: '/oauth/v2/authorize',
  token: '/oauth/v2/token',
  jwks: '/oauth/v2/keys',
  introspection: '/oauth/v2/introspect',
  revocation: '/oauth/v2/revoke',
  pushed_authorization_request: '/oauth/v2/par',
  userinfo: '/oidc/v1/userinfo',
  end_session: '/oidc/v1/end_session',
} as const;

/** Token lifetimes in seconds. JWT access tokens cannot be recalled, so they live one hour. */
export const TTL = {
  AccessToken: 3600,
  ClientCredentials: 3600,
  IdToken: 3600,
  AuthorizationCode: 60,
  Interaction: 3600,
  Session: 14 * 24 * 3600,
  Grant: 90 * 24 * 3600,
  RefreshToken: 30 * 24 * 3600,
} as const;

export interface OidcProviderDeps {
  store: Store;
  /** Whose default policies apply (login names in the profile claims). */
  instanceId: string;
  issuer: string;
  /** The provider signs with `keys.current` as it is now; server.ts builds a new provider when it changes. */
  keys: KeyRing;
  /** Its clients (clients.ts `oauthClients`), shared with its front door. */
  clients: OAuthClients;
}

/**
 * The client's own metadata. The JWT-profile grant (jwt-profile-grant.ts) mints tokens outside a
 * request of the provider's: then there is no `ctx` and the token carries its client.
 */
const extras = (ctx: KoaContextWithOIDC | undefined, token?: { client?: { metadata(): unknown } }): ClientExtras => ((ctx?.oidc?.client ?? token?.client)?.metadata() ?? {}) as ClientExtras;

/** The scopes every token may carry (the value-carrying ones are added per request: `valueScopesIn`). */
const FIXED_SCOPES = [...OIDC_SCOPES, ROLES_SCOPE, ZITADEL_ROLES_SCOPE, PROJECTS_ROLES_SCOPE, USER_METADATA_SCOPE, RESOURCE_OWNER_SCOPE, SERVICE_AUDIENCE_SCOPE, ZITADEL_AUDIENCE_SCOPE];

/**
 * The resource server every token is for (RESOURCE), as a client's token sees it: the scopes it may
 * carry (those named in `scopes` among them), its audience and its format. Also the JWT-profile
 * grant's (jwt-profile-grant.ts), so both grants allow the same scopes.
 */
export async function resourceServerInfo(store: Store, alg: SigningAlgorithm, clientId: string, meta: ClientExtras, ...scopes: (string | undefined)[]): Promise<ResourceServer> {
  let requested = valueScopesIn(...scopes);
  // A machine user signs in nowhere: as in ZITADEL, an org scope naming another organisation
  // is dropped from its token (a person's sign-in is refused instead: loadExistingGrant).
  if (meta.kind === 'machine' && meta.user_id && requested.some(isOrgScope)) {
    const refused = await orgScopeRefusal(store.read, requestedOrg(requested.join(' ')), meta.user_id);
    if (refused) requested = requested.filter((s) => !isOrgScope(s));
  }
  return {
    scope: [...FIXED_SCOPES, ...requested].join(' '),
    audience: meta.project_id ?? clientId,
    accessTokenFormat: meta.access_token_type === 'jwt' ? 'jwt' : 'opaque',
    accessTokenTTL: TTL.AccessToken,
    // JWT access tokens are signed as ID tokens are: with the newest signing key's algorithm.
    jwt: { sign: { alg } },
  };
}

const signingAlgorithms = new WeakMap<Provider, SigningAlgorithm>();

/** The algorithm a provider signs its ID tokens and JWT access tokens with (its newest key's). */
export const providerSigningAlgorithm = (provider: Provider): SigningAlgorithm => signingAlgorithms.get(provider) ?? DEFAULT_SIGNING_ALGORITHM;

/**
 * The provider's idea of where it is answered: the issuer's origin (EXTERNAL_URL), never the
 * request's. oidc-provider builds every URL it hands out — discovery's endpoints and `jwks_uri`,
 * the interaction's return address (the Location after a sign-in), the sign-out form's action —
 * from Koa's `ctx.href`, which Koa takes from the Host header (`:authority` over HTTP/2), an
 * absolute-form target, or, with `proxy` on, X-Forwarded-Host/Proto. A forged one poisoned
 * cached discovery documents and, behind a reverse proxy, named its internal address. Koa's
 * request getters are overridden on this provider's request prototype only, so `ctx.host`,
 * `ctx.hostname`, `ctx.protocol`, `ctx.secure` (its cookies' Secure flag: set whenever
 * EXTERNAL_URL is https, whatever a proxy forwards), `ctx.href` and `ctx.URL` all answer the
 * issuer's. `proxy` still decides `ctx.ip` (X-Forwarded-For).
 */
function pinOriginToIssuer(provider: Provider, issuer: string): void {
  const { protocol, host, hostname, origin } = new URL(issuer);
  const scheme = protocol.slice(0, -1);
  /** The path and query of a target, also of an absolute-form one (`GET http://host/path`). */
  const pathOf = (target: string) => (/^https?:\/\//i.test(target) ? target.replace(/^https?:\/\/[^/?#]*/i, '') || '/' : target);
  const fixed = (value: () => unknown) => ({ get: value, configurable: true });
  Object.defineProperties(provider.request, {
    host: fixed(() => host),
    hostname: fixed(() => hostname),
    protocol: fixed(() => scheme),
    href: fixed(function (this: { originalUrl: string }) {
      return origin + pathOf(this.originalUrl);
    }),
    URL: fixed(function (this: { originalUrl: string }) {
      return new URL(origin + pathOf(this.originalUrl));
    }),
  });
}

export function createOidcProvider(deps: OidcProviderDeps): Provider {
  // The provider is rebuilt when the keys change (server.ts): the newest key's algorithm holds for its life.
  const alg = signingAlgorithm(deps.keys.current);
  const provider = new Provider(deps.issuer, providerConfiguration(deps, alg));
  pinOriginToIssuer(provider, deps.issuer);
  signingAlgorithms.set(provider, alg);
  replaceModelMethods(provider);
  addRequestSteps(provider, deps);
  return provider;
}

/** What oidc-provider is told: paths, scopes and claims, our storage and keys, and the hooks below. */
function providerConfiguration(deps: OidcProviderDeps, alg: SigningAlgorithm): Configuration {
  const { store, instanceId, clients } = deps;
  const keys = deps.keys.current;
  return {
    // Client assertions are judged by the front door (client-assertions.ts): oidc-provider verifies only relayed ones.
    adapter: storeAdapter(store, async (clientId) => clients.relay.withRelayKey(await clients.find(clientId))),
    clockTolerance: CLOCK_TOLERANCE,
    clients: [],
    jwks: { keys: keys.signing as never },
    // Every client's ID tokens are signed with the newest key, whatever its algorithm (as ZITADEL's
    // active web key signs them); discovery lists the algorithms of the published keys.
    clientDefaults: { grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: alg },
    enabledJWA: { idTokenSigningAlgValues: [...SIGNING_ALGORITHMS] },
    // A signer with Keygrip's format and the keys built once (cookie-keys.ts): oidc-provider and koa's
    // cookies take any Keygrip, though the configuration's type names arrays only.
    cookies: { keys: cookieSigner(keys.cookie) as unknown as string[] },
    routes: ROUTES,
    scopes: [...OIDC_SCOPES],
    claims: {
      // Claims of no scope, in every ID token (discovery's claims_supported lists them).
      auth_time: null,
      amr: null,
      // The roles claim is offered with openid so that an asserting app's ID token may carry it
      // (claims() decides when: a roles scope, or idTokenRoleAssertion).
      openid: ['sub', ROLES_CLAIM],
      profile: ['name', 'given_name', 'family_name', 'nickname', 'locale', 'preferred_username', 'updated_at'],
      email: ['email', 'email_verified'],
      [ROLES_SCOPE]: [ROLES_CLAIM],
      [ZITADEL_ROLES_SCOPE]: [ZITADEL_ROLES_CLAIM],
    },
    responseTypes: ['code', 'id_token', 'id_token token'],
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    extraClientMetadata: { properties: [...EXTRA_CLIENT_METADATA] },
    // oidc-provider's prompts plus the login policy's check lifetimes (interaction-policy.ts).
    interactions: { policy: signInPolicy(store, instanceId), url: (_ctx, interaction) => `/ui/login/${interaction.uid}` },
    ttl: { ...TTL },
    conformIdTokenClaims: true,
    features: providerFeatures(store, alg),
    ...grantAndAccountHooks(store, instanceId),
    ...accessTokenHooks(store),
    async renderError(ctx, out) {
      const error = String(out.error ?? 'server_error');
      // A redirect URI the app registered but may not use without devMode is not "unregistered":
      // say why it is refused and what to change.
      const params = (ctx.oidc?.params ?? {}) as Record<string, unknown>;
      const nextStep = error === 'invalid_redirect_uri' ? await refusedRedirectReason(store, params.client_id, params.redirect_uri).catch(() => undefined) : undefined;
      ctx.type = 'html';
      ctx.body = errorPage(error, out.error_description ? String(out.error_description) : undefined, nextStep);
    },
  };
}

/** The library's features: which are on, and our pages and resource server where it asks. */
function providerFeatures(store: Store, alg: SigningAlgorithm): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    introspection: {
      enabled: true,
      // A public client may look at its own tokens only; a confidential client at any.
      allowedPolicy: (ctx, client, token) => client.clientAuthMethod !== 'none' || token.clientId === ctx.oidc.client?.clientId,
    },
    revocation: { enabled: true },
    clientCredentials: { enabled: true },
    // Our own pages (no external assets, as the login page) instead of the library's defaults.
    rpInitiatedLogout: {
      enabled: true,
      async logoutSource(ctx, form) {
        ctx.type = 'html';
        ctx.body = logoutPage(form, ctx.host); // the issuer's host (pinOriginToIssuer)
      },
      async postLogoutSuccessSource(ctx) {
        ctx.type = 'html';
        ctx.body = messagePage('Signed out', 'You are signed out. You can close this window.');
      },
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, _client, oneOf) => (oneOf?.length ? oneOf[0] : RESOURCE),
      useGrantedResource: () => true,
      getResourceServerInfo: async (ctx, resource, client) => {
        if (resource !== RESOURCE) throw new errors.InvalidTarget();
        const entities = ctx.oidc.entities as { RefreshToken?: { scope?: string }; AuthorizationCode?: { scope?: string } };
        return resourceServerInfo(
          store,
          alg,
          client.clientId,
          client.metadata() as ClientExtras,
          String(ctx.oidc.params?.scope ?? ''),
          entities.RefreshToken?.scope,
          entities.AuthorizationCode?.scope,
        );
      },
    },
  };
}

/** Who the grant and the account are: first-party consent, and the person a grant acts for. */
function grantAndAccountHooks(store: Store, instanceId: string): Pick<Configuration, 'loadExistingGrant' | 'findAccount'> {
  return {
    // Our applications are first-party: consent is granted without asking, for what was requested.
    async loadExistingGrant(ctx) {
      const { client, session, params } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      // The project's checks (hasProjectCheck, projectRoleCheck): no grant for a refused user, so the
      // consent step runs, and it shows the refusal (http/routes/oidc-ui.ts).
      if (await projectAccessRefusal(store.read, client.clientId, session.accountId)) return undefined;
      // ZITADEL's org scopes (`urn:zitadel:iam:org:id:{id}`, `…:org:domain:primary:{domain}`) admit only that organisation's users.
      if (await orgScopeRefusal(store.read, requestedOrg(String(params?.scope ?? '')), session.accountId)) return undefined;
      const id = ctx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId);
      const found = id ? await ctx.oidc.provider.Grant.find(id) : undefined;
      const grant = found ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
      const scope = String(params?.scope ?? '');
      for (const [indicator, rs] of Object.entries(ctx.oidc.resourceServers ?? {})) {
        grant.addResourceScope(
          indicator,
          scope
            .split(' ')
            .filter((s) => rs.scopes.has(s))
            .join(' '),
        );
      }
      await grant.save();
      return grant;
    },
    // Asked by oidc-provider for every grant that acts for a person: the authorization (with the
    // browser's session, whose standing interaction-policy.ts judges), and a code's exchange and a
    // refresh, whose `token` is the code or the refresh token: the sign-in it came from must still
    // stand under the login policy as it is now (sign-in-standing.ts), else `invalid_grant`.
    async findAccount(ctx, sub, token) {
      const user = await authenticatableUser(store, sub);
      if (!user) return undefined; // → invalid_grant on refresh
      if (token?.kind === 'RefreshToken' || token?.kind === 'AuthorizationCode') {
        const { authTime, amr } = token as unknown as { authTime?: number; amr?: string[] };
        const standing = await signInStanding(store.read, instanceId, { userId: sub, at: authTime, amr }, { lifetimes: token.kind === 'RefreshToken' });
        if (!standing.stands) throw new errors.CustomOIDCProviderError('invalid_grant', standingRefusal(standing.lacks));
      }
      return {
        accountId: sub,
        async claims(use, scope) {
          const client = extras(ctx);
          return personClaims(store, instanceId, user, {
            use: use === 'id_token' ? 'id_token' : 'userinfo',
            scope,
            projectId: client.project_id,
            idTokenUserinfoAssertion: client.id_token_userinfo_assertion,
            idTokenRoleAssertion: client.id_token_role_assertion,
          });
        },
      };
    },
  };
}

/** What every access token carries: the reserved claims, and a JWT's audience, subject and times. */
function accessTokenHooks(store: Store): Pick<Configuration, 'extraTokenClaims' | 'formats'> {
  return {
    // Runs on every access token minted (code exchange, refresh, client credentials), so roles
    // always reflect the grants at that moment. JWTs carry these claims; opaque tokens keep them
    // for introspection.
    async extraTokenClaims(ctx, token) {
      const client = extras(ctx, token);
      const accountId = ('accountId' in token ? token.accountId : undefined) ?? (client.kind === 'machine' ? client.user_id : undefined);
      if (!accountId) return undefined;
      const claims = await reservedClaims(
        store,
        { id: accountId },
        {
          use: 'access_token',
          scope: token.scope,
          projectId: client.project_id,
          accessTokenRoleAssertion: client.access_token_role_assertion,
        },
      );
      return Object.keys(claims).length ? claims : undefined;
    },
    formats: {
      customizers: {
        jwt(ctx, token, jwt) {
          const client = extras(ctx, token);
          jwt.payload.aud = tokenAudience(client.project_id, token.clientId, token.scope);
          jwt.payload.azp = token.clientId;
          if (client.kind === 'machine' && client.user_id) jwt.payload.sub = client.user_id;
          const skew = Math.round(client.clock_skew ?? 0);
          if (skew > 0 && typeof jwt.payload.iat === 'number') jwt.payload.iat -= skew;
          if (skew > 0 && typeof jwt.payload.exp === 'number') jwt.payload.exp += skew;
        },
      },
    },
  };
}

/** Where no configuration serves: the client secret's comparison and the ID token's claims. */
function replaceModelMethods(provider: Provider): void {
  // Two methods of this provider's own model classes (each provider makes its own: neither the
  // library's modules nor another provider are touched) are replaced, where no configuration serves:
  // - Client#compareClientSecret: secrets are stored as hashes. Overriding it is the library's way
  //   (node-oidc-provider#631, "allow overloading prototype for comparing client secrets"); there is
  //   no configuration for it.
  // - IdToken#payload: the library masks the ID token's claims with its scope → claims table, which
  //   cannot name ZITADEL's per-project roles claims (`urn:zitadel:iam:org:project:{projectId}:roles`),
  //   and no hook runs between that mask and the signature (`extraTokenClaims` and
  //   `formats.customizers` are for access tokens only, `findAccount`'s claims are what gets masked).
  //   The reserved claims were already decided for the ID token by claims.ts, so they pass the mask.
  //   How and when the person signed in pass it too, as in every ZITADEL ID token: `auth_time` (the
  //   library keeps it only when `max_age` asked) and `amr` in ZITADEL's values (authentication-methods.ts).
  (provider.Client.prototype as unknown as { compareClientSecret: typeof compareHashedClientSecret }).compareClientSecret = compareHashedClientSecret;
  const idToken = provider.IdToken.prototype as unknown as { payload(): Promise<Record<string, unknown>>; available: Record<string, unknown> };
  const maskedPayload = idToken.payload;
  idToken.payload = async function payload(this: typeof idToken) {
    const payload = await maskedPayload.call(this);
    for (const [name, value] of Object.entries(this.available)) if (isReservedClaim(name) && !(name in payload)) payload[name] = value;
    const { auth_time: authTime, amr } = this.available;
    if (typeof authTime === 'number') payload.auth_time = authTime;
    delete payload.amr;
    const methods = Array.isArray(amr) ? tokenAmr(amr) : [];
    if (methods.length) payload.amr = methods;
    return payload;
  };
}

/** Steps before the library's own, on this provider's requests. */
function addRequestSteps(provider: Provider, deps: OidcProviderDeps): void {
  const { store, instanceId, issuer, clients } = deps;
  // offline_access is dropped unless consent is prompted for (OIDC Core 11); ZITADEL issues
  // refresh tokens without it, so the prompt is added and answered automatically. This runs before
  // the library has checked anything, so a parameter may be repeated (an array): then the query is
  // left as it came, for the library's own check to refuse (400 invalid_request, "must not be
  // provided twice"). Only GET: the library serves no POST here (enableHttpPostMethods is off, as
  // it would need SameSite=None cookies), and a POST's parameters are in its body anyway.
  provider.use((ctx, next) => {
    if (ctx.path === ROUTES.authorization && ctx.method === 'GET') {
      const { scope, prompt } = ctx.query;
      if (typeof scope === 'string' && (prompt === undefined || typeof prompt === 'string')) {
        const prompts = (prompt ?? '').split(' ').filter(Boolean);
        if (hasScope(scope, 'offline_access') && !prompts.includes('consent') && !prompts.includes('none')) {
          ctx.query = { ...ctx.query, prompt: [...prompts, 'consent'].join(' ') };
        }
      }
    }
    return next();
  });

  // What the library does not answer at the introspection endpoint: JWTs, PATs, ZITADEL's `aud` (introspection.ts).
  const introspection = answerIntrospection({ store, instanceId, issuer, keys: deps.keys, clientExtras: clients.extras });
  provider.use((ctx, next) => (ctx.path === ROUTES.introspection ? introspection(ctx as KoaContextWithOIDC, next) : next()));

  // Client credentials with `openid` answer an ID token too, as ZITADEL's do (machine-id-token.ts).
  const idTokenForClientCredentials = clientCredentialsIdToken({ store, instanceId });
  provider.use((ctx, next) => (ctx.path === ROUTES.token ? idTokenForClientCredentials(ctx as KoaContextWithOIDC, next) : next()));
}
