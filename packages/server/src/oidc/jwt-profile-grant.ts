/**
 * The JWT-profile grant (RFC 7523 §2.1, `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`)
 * at the token endpoint: a machine user trades an assertion signed with one of its keys for an
 * access token, as ZITADEL's SDKs do (@zitadel/node's `ServiceAccount.authenticate`).
 *
 * Answered before oidc-provider (the front door, front-door.ts, sends the token endpoint's jwt-bearer
 * requests here: `isJwtProfileGrant`):
 * those requests carry no client authentication, and oidc-provider authenticates a client before
 * any grant handler runs. Who the assertion authenticates is the domain's question
 * (domain/users/jwt-profile.ts). The token is then minted by oidc-provider's own model, exactly as
 * its grants mint theirs: an `AccessToken` for the user (`accountId`), of the user's access token
 * type (opaque and stored, or a JWT signed with the provider's key), with the same resource server,
 * scopes, extra claims and JWT customizer (provider.ts). Introspection, the API's token check,
 * userinfo, revocation and the user's removal therefore treat it like any other access token. Its
 * client is the user's JWT-profile client (clients.ts `jwtProfileClient`: the user id, as ZITADEL
 * names it). With `openid` among the granted scopes an ID token comes with it, as ZITADEL answers.
 *
 * Tokens are oidc-provider's working state, not domain state: issuing one appends no event, as for
 * every other grant (adapter.ts).
 */

import type Provider from 'oidc-provider';
import type { AdapterPayload, Client, ResourceServer, ResourceServerInstance } from 'oidc-provider';
import { DomainError, GrpcCode } from '../domain/errors.js';
import { assertionAudiences, machineUserOfAssertion } from '../domain/users/jwt-profile.js';
import type { Store } from '../store/store.js';
import type { NodeResponse } from '../transport/http-server.js';
import { type ClientExtras, jwtProfileClient } from './clients.js';
import { machineIdToken } from './machine-id-token.js';
import { providerSigningAlgorithm, RESOURCE, ROUTES, resourceServerInfo } from './provider.js';
import { noteOAuthFailure } from './request-log.js';
import { hasScope } from './scopes.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Whether a token request's form asks for this grant (a repeated grant_type is refused by `issue`). */
export const isJwtProfileGrant = (params: URLSearchParams): boolean => params.get('grant_type') === JWT_BEARER_GRANT;

export interface JwtProfileGrantDeps {
  store: Store;
  instanceId: string;
  /** The issuer without a trailing slash. */
  issuer: string;
}

/** An OAuth error answer (RFC 6749 §5.2). */
class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'server_error',
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

/** Built clients by metadata, per provider (building one validates its metadata: ~0.2 ms). */
const builtClients = new WeakMap<Provider, Map<string, Client>>();
const BUILT_CLIENTS_MAX = 1000;

function clientFor(provider: Provider, metadata: AdapterPayload): Client {
  let clients = builtClients.get(provider);
  if (!clients) builtClients.set(provider, (clients = new Map()));
  const key = JSON.stringify(metadata);
  let client = clients.get(key);
  if (!client) {
    // The typings declare no constructor; oidc-provider's `new Client(metadata)` validates it.
    client = new (provider.Client as unknown as new (metadata: AdapterPayload) => Client)(metadata);
    if (clients.size >= BUILT_CLIENTS_MAX) clients.delete(clients.keys().next().value!);
    clients.set(key, client);
  }
  return client;
}

/** The single value of a parameter; a repeated one is refused as oidc-provider refuses it. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `'${name}' parameter must not be provided twice`);
  return values[0];
}

function answer(res: NodeResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' });
  res.end(JSON.stringify(body));
}

export function jwtProfileGrant(deps: JwtProfileGrantDeps) {
  const { store, instanceId, issuer } = deps;
  const audiences = assertionAudiences(issuer, issuer + ROUTES.token);

  async function issue(provider: Provider, params: URLSearchParams): Promise<Record<string, unknown>> {
    const assertion = single(params, 'assertion');
    const requested = single(params, 'scope')?.trim() ?? '';
    single(params, 'grant_type');
    if (!assertion) throw new OAuthError('invalid_request', "missing required parameter 'assertion'");
    // ZITADEL refuses a request without scopes (zitadel/oidc's ValidateAuthReqScopes).
    if (!requested) throw new OAuthError('invalid_request', "missing required parameter 'scope' (e.g. 'openid urn:zitadel:iam:org:project:id:zitadel:aud')");

    let user;
    try {
      user = await machineUserOfAssertion(store, assertion, audiences);
    } catch (error) {
      if (error instanceof DomainError) throw new OAuthError(error.code === GrpcCode.InvalidArgument ? 'invalid_request' : 'invalid_grant', error.message);
      throw error;
    }

    const metadata = jwtProfileClient(user);
    const client = clientFor(provider, metadata);
    const info = await resourceServerInfo(store, providerSigningAlgorithm(provider), client.clientId, metadata as ClientExtras, requested);
    const resourceServer = new (provider.ResourceServer as unknown as new (id: string, info: ResourceServer) => ResourceServerInstance)(RESOURCE, info);
    // As for client credentials: what the resource server allows of what was asked, in the order asked.
    const allowed = new Set(info.scope!.split(' '));
    const scope = [...new Set(requested.split(/\s+/))].filter((s) => allowed.has(s)).join(' ');

    // No grant (the typings want its id): nobody consented to anything, the token stands alone as
    // a client-credentials token does, and oidc-provider skips what a grant would add.
    const token = new provider.AccessToken({ accountId: user.id, client, scope: scope || undefined, gty: JWT_BEARER_GRANT } as ConstructorParameters<Provider['AccessToken']>[0]);
    token.resourceServer = resourceServer;
    const accessToken = await token.save();
    const body: Record<string, unknown> = { access_token: accessToken, token_type: token.tokenType, expires_in: token.expiration, scope: scope || undefined };
    if (hasScope(scope, 'openid')) body.id_token = await machineIdToken(provider, store, instanceId, user, client, scope, accessToken);
    return body;
  }

  /** Answers a token request whose form asks for this grant (`isJwtProfileGrant`). */
  return async function answerJwtProfileGrant(res: NodeResponse, provider: Provider, params: URLSearchParams): Promise<void> {
    try {
      answer(res, 200, await issue(provider, params));
    } catch (error) {
      const failure = error instanceof OAuthError ? error : new OAuthError('server_error', 'the token could not be issued', 500);
      noteOAuthFailure(res, { error: failure.error, description: failure.status >= 500 ? String((error as Error)?.message ?? error) : failure.description });
      answer(res, failure.status, { error: failure.error, error_description: failure.description });
    }
  };
}

/** oidc-provider's two discovery documents (OpenID's and RFC 8414's). */
const DISCOVERY_PATHS: ReadonlySet<string> = new Set(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);

/** Adds the grant to the discovery document's `grant_types_supported` (oidc-provider lists only its own). */
export function advertiseJwtProfileGrant(provider: Provider): void {
  // Only discovery waits for the answer; every other request passes straight on.
  provider.use((ctx, next) => {
    if (!DISCOVERY_PATHS.has(ctx.path)) return next();
    return next().then(() => {
      if (ctx.oidc?.route !== 'discovery') return;
      const supported = (ctx.body as { grant_types_supported?: unknown } | undefined)?.grant_types_supported;
      if (Array.isArray(supported) && !supported.includes(JWT_BEARER_GRANT)) supported.push(JWT_BEARER_GRANT);
    });
  });
}
