/**
 * Client assertions (private_key_jwt, RFC 7523 §2.2) accepted as ZITADEL accepts them.
 *
 * ZITADEL's resource-server libraries (passport-zitadel, @zitadel/node, zitadel-go's `rs`) sign an
 * assertion without `jti`, valid for an hour, and send the same one again and again until it
 * expires; ZITADEL checks signature, `iss` = `sub`, `aud` ∋ issuer, `exp`, and an `iat` at most one
 * hour old, and nothing else. oidc-provider refuses both: it requires a `jti` and allows each one
 * once (lib/shared/jwt_client_auth.js), and no hook changes that — `assertJwtClientAuthClaimsAndHeader`
 * runs after those checks and can only add refusals.
 *
 * So this module is the one judge of client assertions, and oidc-provider only ever sees one
 * minted here. The front door (front-door.ts) reads the form of each machine endpoint's request
 * (token, introspection, revocation, PAR) whose client authenticates in it, and when the form
 * carries a client assertion of a `private_key_jwt` client (`presentedAssertion`), this module
 * - checks it with the rules below against the client's unexpired keys (read from the store on
 *   every request, so a removed or expired key is refused at once, in every process);
 * - accepted: answers a relay assertion for the same client (fresh `jti`, a minute's `exp`) signed
 *   with this provider's relay key — an in-memory key made at start, never stored or sent
 *   anywhere, whose public half `withRelayKey` adds to such clients' `jwks`;
 * - refused: answers the same assertion without its signature, so that oidc-provider refuses it
 *   in its own words (401 invalid_client), through its error events and log line.
 * The front door puts that in the form's place (`withClientAssertion`) before oidc-provider reads
 * it. What oidc-provider decides about the rest (the client, the grant, the token) is unchanged.
 *
 * The rules: `iss` = `sub` = the client id; `aud` names the issuer (with or without a trailing
 * slash), the endpoint's URL or the token endpoint's URL; signed (RS256, the keys' algorithm) by one
 * of the client's unexpired keys, by `kid` when it names one; `exp` not passed and `iat` not in the
 * future nor more than an hour old (ZITADEL's limit, so a reusable assertion is usable for an hour
 * at most), both with oidc-provider's clock tolerance; without `iat` (ZITADEL refuses that, RFC 7523
 * and oidc-provider do not, and this service accepted it before) `exp` must be within the hour;
 * `jti` optional and not tracked (a repeated assertion is accepted until it expires, as by ZITADEL).
 */
import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, exportJWK, type JWK, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { AdapterPayload } from 'oidc-provider';
import type { ClientLookup } from './adapter.js';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** oidc-provider's default clock tolerance (seconds), which it applied to client assertions before. */
export const CLOCK_TOLERANCE = 15;
/** ZITADEL's `maxAgeIAT` for client assertions. */
export const ASSERTION_MAX_AGE = 3600;
/** Lifetime of a relay assertion: it is verified by oidc-provider within the same request. */
const RELAY_TTL = 60;

type Verdict = { accepted: true } | { accepted: false; reason: string };

export interface AssertionContext {
  issuer: string;
  /** The URL of the endpoint the assertion was sent to. */
  endpointUrl: string;
  tokenEndpointUrl: string;
  /** Seconds since the epoch (for tests). */
  now?: number;
}

/** The client's own keys: every key of its `jwks` except the relay's. */
function clientKeys(client: AdapterPayload, relayKid: string): JWK[] {
  const keys = ((client.jwks as { keys?: JWK[] } | undefined)?.keys ?? []) as JWK[];
  return keys.filter((k) => k.kid !== relayKid);
}

/** Checks a client assertion by the rules in the module comment. */
export async function verifyClientAssertion(assertion: string, keys: JWK[], context: AssertionContext): Promise<Verdict & { payload?: JWTPayload }> {
  const now = context.now ?? Math.floor(Date.now() / 1000);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet({ keys }), { algorithms: ['RS256'], clockTolerance: CLOCK_TOLERANCE, currentDate: new Date(now * 1000) }));
  } catch (error) {
    return { accepted: false, reason: `signature or time: ${(error as Error).message}` };
  }
  if (!payload.iss || payload.iss !== payload.sub) return { accepted: false, reason: 'iss and sub must be the client id' };
  const accepted = new Set([context.issuer, `${context.issuer}/`, context.endpointUrl, context.tokenEndpointUrl]);
  const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audience.some((aud) => typeof aud === 'string' && accepted.has(aud))) return { accepted: false, reason: 'aud must name the issuer or the endpoint' };
  if (typeof payload.exp !== 'number') return { accepted: false, reason: 'exp missing' };
  if (typeof payload.iat === 'number') {
    if (payload.iat > now + CLOCK_TOLERANCE) return { accepted: false, reason: 'iat in the future' };
    if (payload.iat < now - ASSERTION_MAX_AGE - CLOCK_TOLERANCE) return { accepted: false, reason: 'iat older than an hour' };
  } else if (payload.exp > now + ASSERTION_MAX_AGE + CLOCK_TOLERANCE) {
    // Without iat (optional in RFC 7523, accepted here before), the hour is counted back from exp.
    return { accepted: false, reason: 'without iat, exp must be within an hour' };
  }
  return { accepted: true, payload };
}

/** This provider's relay key: oidc-provider accepts a client assertion only when it is signed with it. */
export class ClientAssertionRelay {
  readonly kid = `relay-${randomUUID()}`;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: Promise<JWK>;

  constructor(private readonly issuer: string) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicJwk = exportJWK(publicKey).then((jwk) => ({ ...jwk, kid: this.kid, alg: 'ES256', use: 'sig' }));
  }

  /** A `private_key_jwt` client as oidc-provider is to see it: its keys and the relay key. */
  async withRelayKey(client: AdapterPayload | undefined): Promise<AdapterPayload | undefined> {
    if (!client || client.token_endpoint_auth_method !== 'private_key_jwt') return client;
    const keys = ((client.jwks as { keys?: JWK[] } | undefined)?.keys ?? []) as JWK[];
    return { ...client, jwks: { keys: [...keys, await this.publicJwk] } };
  }

  /** An assertion for `clientId` that oidc-provider accepts (once): `aud` the issuer, a fresh `jti`. */
  sign(clientId: string): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.kid })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(this.issuer)
      .setIssuedAt()
      .setExpirationTime(`${RELAY_TTL}s`)
      .setJti(randomUUID())
      .sign(this.privateKey);
  }
}

/** The same JWT without its signature: malformed for every verifier. */
function unsigned(assertion: string): string {
  return assertion.split('.').slice(0, 2).join('.') + '.';
}

/** A client assertion as the form presents it, with the client it names. */
export interface PresentedAssertion {
  assertion: string;
  clientId: string;
}

/**
 * The client assertion this module is to judge: exactly one, of the JWT-bearer type, naming its
 * client in `sub`. Undefined when it is not ours to judge (repeated or absent parameters, another
 * assertion type, no JWT), and oidc-provider answers as before (400 invalid_request "invalid
 * client_assertion format", unknown client, wrong method).
 */
export function presentedAssertion(params: URLSearchParams): PresentedAssertion | undefined {
  const assertion = params.getAll('client_assertion');
  if (assertion.length !== 1 || params.getAll('client_assertion_type').join() !== CLIENT_ASSERTION_TYPE) return undefined;
  let sub: unknown;
  try {
    ({ sub } = decodeJwt(assertion[0]));
  } catch {
    return undefined;
  }
  return typeof sub === 'string' ? { assertion: assertion[0], clientId: sub } : undefined;
}

/** The form with `assertion` in place of the one it presented. */
export function withClientAssertion(params: URLSearchParams, assertion: string): URLSearchParams {
  const rewritten = new URLSearchParams(params);
  rewritten.set('client_assertion', assertion);
  return rewritten;
}

export interface ClientAssertionJudgeOptions {
  issuer: string;
  tokenEndpoint: string;
  /** The client lookup (without the relay key). */
  findClient: ClientLookup;
  relay: ClientAssertionRelay;
}

/**
 * The assertion oidc-provider is to see in place of `presented`, sent to the endpoint at `path`: a
 * relay assertion when accepted, the same without its signature when refused; undefined when its
 * client is no key-authenticated client of ours (oidc-provider then answers as before).
 */
export function clientAssertionJudge(options: ClientAssertionJudgeOptions) {
  const { issuer, findClient, relay } = options;
  return async (presented: PresentedAssertion, path: string): Promise<string | undefined> => {
    const client = await findClient(presented.clientId);
    if (!client || client.token_endpoint_auth_method !== 'private_key_jwt') return undefined;
    const verdict = await verifyClientAssertion(presented.assertion, clientKeys(client, relay.kid), {
      issuer,
      endpointUrl: issuer + path,
      tokenEndpointUrl: issuer + options.tokenEndpoint,
    });
    return verdict.accepted ? relay.sign(presented.clientId) : unsigned(presented.assertion);
  };
}
