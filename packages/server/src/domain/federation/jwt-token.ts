/**
 * Validation of the JWT a JWT identity provider's proxy hands over (ZITADEL's
 * `internal/api/ui/login/jwt_handler.go`, `validateToken`): signed by a key of the provider's
 * `keysEndpoint`, `iss` equal to its `issuer`, an `exp` that has not passed (a token without one is
 * refused: it would sign in forever, ZITADEL's CVE-2026-56665), not before its `nbf` and, when it
 * says when it was issued, issued at most an hour ago, all with ZITADEL's 3 s of clock skew; and,
 * when the provider names an audience, an `aud` that contains it (ZITADEL's GHSA-g5h5-m4hm-xjrr;
 * an empty audience checks none, as in ZITADEL). Only asymmetric algorithms: a JWKS publishes
 * public keys, and `none` or an HMAC "signature" proves nothing.
 */
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { OutboundError } from '../../outbound/limited-fetch.js';
import type { ProviderKeys } from './provider-keys.js';

export const CLOCK_SKEW_S = 3;
export const MAX_TOKEN_AGE_S = 3600;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Why a token was refused; `message` is shown on the login page and logged. */
export class ExternalTokenError extends Error {
  constructor(
    readonly reason: 'missing' | 'malformed' | 'signature' | 'issuer' | 'audience' | 'expired' | 'too_old' | 'keys_unavailable' | 'claims',
    message: string,
  ) {
    super(message);
  }
}

export interface ProviderJwtSettings {
  issuer: string;
  keysEndpoint: string;
  headerName: string;
  /** What `aud` must contain; '' checks nothing. */
  audience: string;
}

/** The token from the configured header (`Authorization` when none is set); `Bearer ` is optional. */
export function tokenFromHeader(headers: (name: string) => string | undefined, headerName: string): string {
  const raw = headers(headerName || 'authorization')?.trim();
  if (!raw)
    throw new ExternalTokenError(
      'missing',
      `The request carried no token in the "${headerName || 'authorization'}" header. The application in front of the sign-in (the provider's JWT endpoint) must add it.`,
    );
  return raw.replace(/^bearer\s+/i, '');
}

export async function validateProviderToken(token: string, provider: ProviderJwtSettings, keys: ProviderKeys, now = new Date()): Promise<JWTPayload & { sub: string }> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new ExternalTokenError('malformed', 'The token is not a JWT.');
  }
  let keySet;
  try {
    keySet = await keys.forToken(provider.keysEndpoint, kid);
  } catch (error) {
    if (error instanceof OutboundError) throw new ExternalTokenError('keys_unavailable', `The provider's keys could not be read: ${error.message}.`);
    throw error;
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet, {
      issuer: provider.issuer,
      ...(provider.audience ? { audience: provider.audience } : {}),
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_SKEW_S,
      algorithms: ALGORITHMS,
      currentDate: now,
    }));
  } catch (error) {
    throw explain(error, provider, token);
  }
  const nowS = Math.floor(now.getTime() / 1000);
  if (payload.iat !== undefined && nowS - payload.iat > MAX_TOKEN_AGE_S + CLOCK_SKEW_S) {
    throw new ExternalTokenError('too_old', 'The token was issued more than an hour ago. Sign in to the application again to get a fresh one.');
  }
  if (payload.iat !== undefined && payload.iat - nowS > CLOCK_SKEW_S) throw new ExternalTokenError('claims', 'The token says it was issued in the future.');
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new ExternalTokenError('claims', 'The token names no subject ("sub").');
  return payload as JWTPayload & { sub: string };
}

function explain(error: unknown, provider: ProviderJwtSettings, token: string): ExternalTokenError {
  if (error instanceof errors.JWTExpired) return new ExternalTokenError('expired', 'The token has expired. Sign in to the application again to get a fresh one.');
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss') {
    const iss = (() => {
      try {
        return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).iss as unknown;
      } catch {
        return undefined;
      }
    })();
    return new ExternalTokenError('issuer', `The token was issued by ${typeof iss === 'string' ? `"${iss}"` : 'no issuer'}, not by this provider's issuer "${provider.issuer}".`);
  }
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing') {
    return new ExternalTokenError('expired', 'The token has no expiry ("exp"), so it would be good forever; the provider must issue tokens that expire.');
  }
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
    return new ExternalTokenError('audience', `The token is not meant for this service: its audience ("aud") does not contain "${provider.audience}".`);
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new ExternalTokenError('signature', "The token's signature does not match any of the provider's keys.");
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new ExternalTokenError('signature', 'The token is not signed with an asymmetric algorithm (RS*, PS*, ES*, EdDSA).');
  if (error instanceof errors.JWTClaimValidationFailed) return new ExternalTokenError('claims', `The token's "${error.claim}" claim is not valid (${error.reason}).`);
  return new ExternalTokenError('malformed', `The token could not be read (${(error as Error).message}).`);
}
