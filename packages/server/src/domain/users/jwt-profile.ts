/**
 * Who a JWT-profile assertion authenticates (RFC 7523 §2.1, the grant ZITADEL's SDKs use for
 * service users): a JWT the machine user signed with one of its keys (machine-keys.ts). The checks
 * are ZITADEL's (`internal/api/oidc/token_jwt_profile.go` over zitadel/oidc's `VerifyJWTAssertion`):
 * - `aud` contains the issuer — here also with a trailing slash, or the token endpoint's URL
 *   (RFC 7523 §3 allows it), as the client assertions of introspection are taken;
 * - `exp` more than ZITADEL's offset of one second ahead; `iat` present, at most that second in
 *   the future and at most an hour in the past; `nbf`, when present, at most that second in the
 *   future (RFC 7519 §4.1.5; zitadel/oidc ignores it, so ZITADEL takes an assertion before its time);
 * - `iss` = `sub` = the user id (ZITADEL takes the key from `iss` and the user from `sub` without
 *   comparing them; here a key only ever speaks for its own user);
 * - the key (`kid`) is the user's and unexpired, read from the store on every grant, so a removed
 *   or expired key is refused at once in every process; the signature verifies with it under an
 *   RSA algorithm (the keys are RSA: RS256/384/512, PS256/384/512, never `none` or an HMAC);
 * - the user is a machine user whose state may authenticate (may-authenticate.ts).
 * The claims are checked before the key is read (as ZITADEL does), the user only once the signature
 * holds, so nobody without the key learns whether the user is locked.
 *
 * A malformed assertion is an InvalidArgument (OAuth's `invalid_request`), a refused one
 * Unauthenticated (`invalid_grant`); the message says why.
 */
import { constants, createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { UserRow } from '../../store/repositories/users.js';
import type { Store } from '../../store/store.js';
import { invalidArgument, unauthenticated } from '../errors.js';
import { mayAuthenticate } from './may-authenticate.js';

/** zitadel/oidc's offset for `exp` and `iat` (ZITADEL passes one second). */
export const ASSERTION_CLOCK_SKEW_S = 1;
/** The oldest `iat` ZITADEL takes (its `maxAgeIAT`): one hour. */
export const ASSERTION_MAX_AGE_S = 3600;
/** The JWS algorithms a machine key (RSA) signs with, and how node:crypto verifies each (RFC 7518 §3.3, §3.5). */
const ALGORITHMS: Record<string, { hash: string; pss: boolean }> = {
  RS256: { hash: 'sha256', pss: false },
  RS384: { hash: 'sha384', pss: false },
  RS512: { hash: 'sha512', pss: false },
  PS256: { hash: 'sha256', pss: true },
  PS384: { hash: 'sha384', pss: true },
  PS512: { hash: 'sha512', pss: true },
};

/** The addresses an assertion's `aud` may name: the issuer, with or without a trailing slash, and the token endpoint. */
export function assertionAudiences(issuer: string, tokenEndpoint: string): string[] {
  const bare = issuer.replace(/\/+$/, '');
  return [bare, `${bare}/`, tokenEndpoint];
}

const malformed = (why: string) => invalidArgument('JWTPROF-m4lf0', `assertion is not a valid JWT: ${why}`);
const refused = (id: string, why: string) => unauthenticated(id, why);

interface AssertionClaims {
  kid: string;
  alg: string;
  userId: string;
  aud: string[];
  exp: number;
  iat: number;
}

function decodePart(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw malformed(`its ${what} is not base64url-encoded JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(`its ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The header and claims this grant reads, or why they are malformed or refused (no key read yet). */
function readClaims(assertion: string, audiences: string[], nowS: number): AssertionClaims {
  const parts = assertion.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[\w-]*$/.test(p)) || !parts[2]) throw malformed('expected three base64url parts, the last one a signature');
  const header = decodePart(parts[0], 'header');
  const claims = decodePart(parts[1], 'payload');
  const { kid, alg } = header;
  if (typeof kid !== 'string' || !kid) throw refused('JWTPROF-k1d0', 'the assertion names no key: its header needs the key id ("kid") of the key file');
  if (typeof alg !== 'string' || !Object.hasOwn(ALGORITHMS, alg))
    throw refused('JWTPROF-a1g0', `the assertion's algorithm ${JSON.stringify(alg ?? null)} is not allowed: machine keys are RSA keys (${Object.keys(ALGORITHMS).join(', ')})`);
  const { iss, sub } = claims;
  if (typeof sub !== 'string' || !sub) throw refused('JWTPROF-s0b0', 'the assertion names no subject ("sub"): it must be the machine user\'s id');
  if (iss !== sub) throw refused('JWTPROF-1ss0', 'the assertion\'s issuer ("iss") and subject ("sub") must both be the machine user\'s id');
  const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
  if (!aud.some((a) => audiences.includes(a))) throw refused('JWTPROF-a0d0', `the assertion's audience ("aud") must contain the issuer ${audiences[0]}`);
  const { exp, iat } = claims;
  if (typeof exp !== 'number') throw refused('JWTPROF-3xp0', 'the assertion has no expiry ("exp")');
  if (!(nowS + ASSERTION_CLOCK_SKEW_S < exp)) throw refused('JWTPROF-3xp1', 'the assertion has expired ("exp")');
  if (typeof iat !== 'number') throw refused('JWTPROF-1at0', 'the assertion does not say when it was issued ("iat")');
  if (iat > nowS + ASSERTION_CLOCK_SKEW_S) throw refused('JWTPROF-1at1', 'the assertion was issued in the future ("iat"): check the clock of the machine that signed it');
  if (iat < nowS - ASSERTION_MAX_AGE_S) throw refused('JWTPROF-1at2', 'the assertion was issued more than an hour ago ("iat"): sign a new one');
  const { nbf } = claims;
  if (nbf !== undefined && typeof nbf !== 'number') throw refused('JWTPROF-nbf0', 'the assertion\'s "nbf" is not a number of seconds');
  if (typeof nbf === 'number' && nbf > nowS + ASSERTION_CLOCK_SKEW_S)
    throw refused('JWTPROF-nbf1', 'the assertion is not valid yet ("nbf" is in the future): check the clock of the machine that signed it');
  return { kid, alg, userId: sub, aud, exp, iat };
}

/**
 * Public keys parsed from their PEM, by PEM: a key's material never changes, only whether it may
 * be used, which the store answers on every grant. Parsing costs more than verifying; bounded.
 */
const parsedKeys = new Map<string, KeyObject>();
const PARSED_KEYS_MAX = 1000;

function publicKeyOf(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (!key) {
    key = createPublicKey(pem);
    if (parsedKeys.size >= PARSED_KEYS_MAX) parsedKeys.delete(parsedKeys.keys().next().value!);
    parsedKeys.set(pem, key);
  }
  return key;
}

/**
 * Whether the JWS's signature (its third part) is `alg`'s over its first two parts, as sent.
 * node:crypto's one synchronous call, where jose's (WebCrypto: a key conversion and a job per
 * call) cost three times as much for the same check on every grant; the header and claims are
 * read and checked above, so only the signature is left to verify.
 */
function signatureHolds(assertion: string, alg: string, key: KeyObject): boolean {
  const { hash, pss } = ALGORITHMS[alg];
  // As jose refuses them: RSA keys of fewer than 2048 bits sign nothing that is taken.
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return false;
  const end = assertion.lastIndexOf('.');
  const signed = Buffer.from(assertion.slice(0, end), 'ascii');
  const signature = Buffer.from(assertion.slice(end + 1), 'base64url');
  try {
    return verify(hash, signed, pss ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } : key, signature);
  } catch {
    return false; // not an RSA key, or a signature of the wrong length
  }
}

/**
 * The machine user the assertion authenticates, or a DomainError saying why not (see above).
 * `audiences`: assertionAudiences(issuer, tokenEndpoint).
 */
export async function machineUserOfAssertion(store: Store, assertion: string, audiences: string[], now = new Date()): Promise<UserRow> {
  const claims = readClaims(assertion, audiences, Math.floor(now.getTime() / 1000));
  const found = await store.read.machineKeys.usableKeyWithUser(claims.userId, claims.kid, now);
  if (!found) {
    const key = await store.read.machineKeys.get(claims.userId, claims.kid);
    if (key && key.expiresAt.getTime() > now.getTime()) throw refused('JWTPROF-us3r0', `user ${claims.userId} does not exist`);
    throw key
      ? refused('JWTPROF-k3y1', `key ${claims.kid} of user ${claims.userId} expired on ${key.expiresAt.toISOString()}`)
      : refused('JWTPROF-k3y0', `user ${claims.userId} has no key ${claims.kid} (unknown or removed)`);
  }
  if (!signatureHolds(assertion, claims.alg, publicKeyOf(found.publicKey))) {
    throw refused('JWTPROF-s1g0', `the assertion's signature does not verify with key ${claims.kid}`);
  }
  const { user } = found;
  if (user.type !== 'machine') throw refused('JWTPROF-us3r1', `user ${claims.userId} is not a machine user`);
  if (!mayAuthenticate(user.state)) throw refused('JWTPROF-us3r2', `user ${claims.userId} may not authenticate (${user.state})`);
  return user;
}
