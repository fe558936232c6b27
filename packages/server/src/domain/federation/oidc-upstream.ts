/**
 * Signing in at an OIDC identity provider's upstream issuer (ZITADEL's legacy OIDC IdP), with
 * openid-client: the authorization-code flow with PKCE, `state` and `nonce`, this service being
 * the upstream's confidential client (`clientId` + the sealed client secret, client_secret_basic).
 *
 * - Discovery (`<issuer>/.well-known/openid-configuration`) is read once per provider settings and
 *   kept DISCOVERY_FRESH_MS; concurrent sign-ins share one read, a failed read is not kept.
 * - Every call to the upstream goes through `fetchCapped` (outbound/limited-fetch.ts): a deadline
 *   and a size cap, redirects not followed; failures are `UpstreamError`s with words a login
 *   page can show.
 * - The identity: the ID token's claims (validated by openid-client: signature by the upstream's
 *   JWKS, issuer, audience, expiry, nonce), completed from the userinfo endpoint when the upstream
 *   has one; the user name and display name follow the provider's mappings.
 */
import * as oc from 'openid-client';
import { fetchCapped, OutboundError, type OutboundLimits } from '../../outbound/limited-fetch.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { IdpRow } from '../../store/repositories/idps.js';
import { OIDC_CLIENT_SECRET_PURPOSE, type OidcMappingField, oidcConfigOf } from '../idps/idp.js';

export const UPSTREAM_LIMITS: OutboundLimits = { timeoutMs: 10_000, maxBytes: 512 * 1024 };
export const DISCOVERY_FRESH_MS = 10 * 60_000;
/** Providers whose discovery is remembered at once; the oldest goes first. */
const MAX_PROVIDERS = 200;

/** ZITADEL's path for the upstream's redirect back (register it at the upstream). */
export const OIDC_CALLBACK_PATH = '/ui/login/login/externalidp/callback';

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly reason: 'unreachable' | 'refused' | 'invalid_response' | 'no_secret',
  ) {
    super(message);
  }
}

/** What the browser's round trip must bring back unchanged (sealed into `state`). */
export interface PendingAuthorization {
  codeVerifier: string;
  nonce: string;
}

/** The claims that decide who signed in (string claims of the ID token and userinfo). */
export type UpstreamClaims = Record<string, unknown> & { sub: string };

const MAPPED_CLAIM: Record<OidcMappingField, string | undefined> = {
  OIDC_MAPPING_FIELD_UNSPECIFIED: undefined,
  OIDC_MAPPING_FIELD_PREFERRED_USERNAME: 'preferred_username',
  OIDC_MAPPING_FIELD_EMAIL: 'email',
};

/** The claim a mapping names, when the upstream sent it as a non-empty string. */
export function mappedClaim(claims: Record<string, unknown>, field: OidcMappingField): string | undefined {
  const name = MAPPED_CLAIM[field];
  const value = name ? claims[name] : undefined;
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

const upstreamFetch: oc.CustomFetch = (url, options) =>
  fetchCapped(url, UPSTREAM_LIMITS, { method: options.method, headers: options.headers as HeadersInit, body: options.body as BodyInit | undefined, signal: options.signal });

function describe(error: unknown, issuer: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (error instanceof OutboundError) return new UpstreamError(`The identity provider at ${issuer} could not be used: ${error.message}.`, 'unreachable');
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundError) return new UpstreamError(`The identity provider at ${issuer} could not be used: ${cause.message}.`, 'unreachable');
  if (error instanceof oc.ResponseBodyError) {
    return new UpstreamError(`The identity provider refused the sign-in (${error.error}${error.error_description ? `: ${error.error_description}` : ''}).`, 'refused');
  }
  if (error instanceof oc.WWWAuthenticateChallengeError) {
    // A 401 with a challenge: the upstream did not accept this service's client credentials.
    const challenge = error.cause[0]?.parameters;
    const why = challenge?.error ?? `HTTP ${error.status}`;
    return new UpstreamError(
      `The identity provider refused the sign-in (${why}${challenge?.error_description ? `: ${challenge.error_description}` : ''}); its client id or secret may be wrong.`,
      'refused',
    );
  }
  if (error instanceof oc.AuthorizationResponseError) {
    return new UpstreamError(`The identity provider refused the sign-in (${error.error}${error.error_description ? `: ${error.error_description}` : ''}).`, 'refused');
  }
  return new UpstreamError(`The identity provider at ${issuer} answered in a way that cannot be trusted (${(error as Error).message}).`, 'invalid_response');
}

export class OidcUpstreams {
  private readonly configs = new Map<string, { readAt: number; config: Promise<oc.Configuration> }>();

  constructor(
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  /** The client configuration for this provider's current settings (discovery read or reused). */
  private configFor(idp: IdpRow): Promise<oc.Configuration> {
    const settings = oidcConfigOf(idp);
    if (!idp.oidcClientSecretSealed) {
      return Promise.reject(
        new UpstreamError(`The identity provider "${idp.name}" has no client secret (it was imported without one). An administrator sets it with UpdateOrgIDPOIDCConfig.`, 'no_secret'),
      );
    }
    // A change of settings (sequence) or of the secret reads discovery again.
    const key = `${idp.id}:${idp.sequence}`;
    const cached = this.configs.get(key);
    if (cached && this.now() - cached.readAt < DISCOVERY_FRESH_MS) return cached.config;
    const secret = this.secrets.openText(idp.oidcClientSecretSealed, OIDC_CLIENT_SECRET_PURPOSE);
    const issuer = new URL(settings.issuer);
    const config = oc
      .discovery(issuer, settings.clientId, undefined, oc.ClientSecretBasic(secret), {
        // An administrator chose this issuer; plain http is their decision (loopback, tests).
        execute: issuer.protocol === 'http:' ? [oc.allowInsecureRequests] : [],
        [oc.customFetch]: upstreamFetch,
        timeout: UPSTREAM_LIMITS.timeoutMs / 1000,
      })
      .then((configuration) => {
        configuration[oc.customFetch] = upstreamFetch;
        configuration.timeout = UPSTREAM_LIMITS.timeoutMs / 1000;
        return configuration;
      });
    for (const old of this.configs.keys()) if (old.startsWith(`${idp.id}:`)) this.configs.delete(old);
    this.configs.set(key, { readAt: this.now(), config });
    if (this.configs.size > MAX_PROVIDERS) this.configs.delete(this.configs.keys().next().value!);
    config.catch(() => this.configs.get(key)?.config === config && this.configs.delete(key));
    return config;
  }

  /** Where to send the browser, and what must come back with it. */
  async authorizationUrl(idp: IdpRow, redirectUri: string, state: (pending: PendingAuthorization) => string): Promise<URL> {
    const settings = oidcConfigOf(idp);
    try {
      const config = await this.configFor(idp);
      const pending: PendingAuthorization = { codeVerifier: oc.randomPKCECodeVerifier(), nonce: oc.randomNonce() };
      const scopes = new Set(['openid', ...settings.scopes]);
      return oc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: [...scopes].join(' '),
        state: state(pending),
        nonce: pending.nonce,
        code_challenge: await oc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
      });
    } catch (error) {
      throw describe(error, settings.issuer);
    }
  }

  /**
   * The upstream's answer (`callbackUrl`: this service's callback with the query the upstream
   * sent) turned into claims: the code exchanged, the ID token validated, userinfo added.
   */
  async claimsFromCallback(idp: IdpRow, callbackUrl: URL, expectedState: string, pending: PendingAuthorization): Promise<UpstreamClaims> {
    const settings = oidcConfigOf(idp);
    try {
      const config = await this.configFor(idp);
      const tokens = await oc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedNonce: pending.nonce,
        expectedState,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new UpstreamError('The identity provider sent no ID token.', 'invalid_response');
      let userinfo: Record<string, unknown> = {};
      if (config.serverMetadata().userinfo_endpoint) userinfo = await oc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      // The ID token is authoritative for the subject; userinfo adds what the token left out.
      return { ...userinfo, ...idClaims, sub: idClaims.sub };
    } catch (error) {
      throw describe(error, settings.issuer);
    }
  }
}
