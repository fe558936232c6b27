/**
 * Client assertions (private_key_jwt, RFC 7523 §2.2) accepted as ZITADEL accepts them.
 *
 * ZITADEL's resource-server libraries (passport-zitadel, @zitadel/node, zitadel-go's `rs`) sign an
 * assertion without `jti`, valid for an hour, and send the same one again and again until it
 * expires; ZITADEL checks signature, `iss` = `sub`, `aud` ∋ issuer, `exp`, and an `iat` at most one
 * hour old, and nothing else. oidc-provider refuses both: it requires a `jti` and allows each one
 * once, and it has no hook to change that.
 *
 * So this module is the one judge of client assertions, and oidc-provider only ever sees one
 * minted here: a middleware before the provider's routes reads the form of each machine
 * endpoint's request (token, introspection, revocation, PAR), and when it carries a client
 * assertion of a `private_key_jwt` client,
 * - checks it with the rules below against the client's unexpired keys (read from the store on
 *   every request, so a removed or expired key is refused at once, in every process);
 * - accepted: replaces it with a relay assertion for the same client (fresh `jti`, a minute's
 *   `exp`) signed with this provider's relay key — an in-memory key made at start, never stored
 *   or sent anywhere, whose public half `withRelayKey` adds to such clients' `jwks`;
 * - refused: replaces it with the same assertion without its signature, so that oidc-provider
 *   refuses it in its own words (401 invalid_client), through its error events and log line.
 * What oidc-provider decides about the rest (the client, the grant, the token) is unchanged.
 *
 * The rules: `iss` = `sub` = the client id; `aud` names the issuer (with or without a trailing
 * slash), the endpoint's URL or the token endpoint's URL; signed (RS256, the keys' algorithm) by one
 * of the client's unexpired keys, by `kid` when it names one; `exp` not passed and `iat` not in the
 * future nor more than an hour old (ZITADEL's limit, so a reusable assertion is usable for an hour
 * at most), both with oidc-provider's clock tolerance; without `iat` (ZITADEL refuses that, RFC 7523
 * and oidc-provider do not, and this service accepted it before) `exp` must be within the hour;
 * `jti` optional and not tracked (a repeated assertion is accepted until it expires, as by ZITADEL).
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createLocalJWKSet, decodeJwt, exportJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import type { ClientLookup } from './adapter.js';
import { replayRequest } from './token-request.js';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** oidc-provider's default clock tolerance (seconds), which it applied to client assertions before. */
export const CLOCK_TOLERANCE = 15;
/** ZITADEL's `maxAgeIAT` for client assertions. */
export const ASSERTION_MAX_AGE = 3600;
/** Lifetime of a relay assertion: it is verified by oidc-provider within the same request. */
const RELAY_TTL = 60;
/** oidc-provider's own limit for a form body (shared/selective_body.js). */
const FORM_LIMIT = 56 * 1024;

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

/** The form and its bytes (oidc-provider then needs them in a request of its own). */
type FormBody = { params: URLSearchParams; body: Buffer } | { tooLarge: true } | undefined;

/** The request's form, read from the stream; undefined when declared too large for oidc-provider. */
async function readForm(req: IncomingMessage): Promise<FormBody> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > FORM_LIMIT) return undefined; // oidc-provider refuses it itself
  const chunks: Buffer[] = [];
  let received = 0;
  // Not destroyed on an early return: the 400 below still needs the connection.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    received += (chunk as Buffer).length;
    if (received > FORM_LIMIT) return { tooLarge: true };
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  return { params: new URLSearchParams(body.toString('utf8')), body };
}

/**
 * oidc-provider reads `body` as it reads any request's: from a replay standing in for the one whose
 * stream the gate consumed. Left consumed, it would fall back to `req.body` and print "already
 * parsed request body detected" in the service's log.
 */
function handOn(ctx: KoaContextWithOIDC, body: Buffer): void {
  const replay = replayRequest(ctx.req, body);
  ctx.req = ctx.request.req = ctx.response.req = replay;
}

export interface ClientAssertionGateOptions {
  issuer: string;
  /** Paths of the endpoints that authenticate clients. */
  endpoints: ReadonlySet<string>;
  tokenEndpoint: string;
  /** The client lookup (without the relay key). */
  findClient: ClientLookup;
  relay: ClientAssertionRelay;
}

/** The middleware of the module comment (`provider.use`, before any other). */
export function clientAssertionGate(options: ClientAssertionGateOptions) {
  const { issuer, endpoints, findClient, relay } = options;
  // Not async where it only passes the request on: every request to the provider goes through here.
  return (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> =>
    // With an Authorization header the client authenticates otherwise (mixing is refused anyway).
    ctx.method !== 'POST' || !endpoints.has(ctx.path) || ctx.get('authorization') || !ctx.is('application/x-www-form-urlencoded') ? next() : gate(ctx, next);

  async function gate(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    const form = await readForm(ctx.req);
    if (form && 'tooLarge' in form) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_request', error_description: 'failed to parse the request body' };
      return;
    }
    if (!form) return next();
    const judged = await judgedAssertion(form.params, ctx.path);
    if (judged !== undefined) form.params.set('client_assertion', judged);
    handOn(ctx, judged === undefined ? form.body : Buffer.from(form.params.toString()));
    return next();
  }

  /**
   * The assertion oidc-provider is to see in its place: a relay assertion when accepted, the same
   * without its signature when refused; undefined when it is not ours to judge (repeated or absent
   * parameters, another assertion type, not a key-authenticated client of ours), and oidc-provider
   * answers as before (400 invalid_request "invalid client_assertion format", unknown client, wrong method).
   */
  async function judgedAssertion(params: URLSearchParams, path: string): Promise<string | undefined> {
    const assertion = params.getAll('client_assertion');
    if (assertion.length !== 1 || params.getAll('client_assertion_type').join() !== CLIENT_ASSERTION_TYPE) return undefined;
    let sub: unknown;
    try {
      ({ sub } = decodeJwt(assertion[0]));
    } catch {
      return undefined;
    }
    const client = typeof sub === 'string' ? await findClient(sub) : undefined;
    if (!client || client.token_endpoint_auth_method !== 'private_key_jwt') return undefined;
    const verdict = await verifyClientAssertion(assertion[0], clientKeys(client, relay.kid), {
      issuer,
      endpointUrl: issuer + path,
      tokenEndpointUrl: issuer + options.tokenEndpoint,
    });
    return verdict.accepted ? await relay.sign(String(sub)) : unsigned(assertion[0]);
  }
}
