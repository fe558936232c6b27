/**
 * Opaque bearer tokens (personal access tokens). 32 random bytes are far beyond guessing, so a
 * fast sha-256 is the right stored form: it lets the hot path find a token by equality.
 */
import { hash, randomBytes } from 'node:crypto';

export function generateToken(): string {
  // Not beginning with "-": a token is pasted after command-line options (`--token …`), and
  // many option parsers would read it as an option. Drawing again costs a bit of entropy, not more.
  for (;;) {
    const token = randomBytes(32).toString('base64url');
    if (token[0] !== '-') return token;
  }
}

export function hashToken(token: string): string {
  // One-shot (Node >= 20.12): no Hash object per call; every authenticated request hashes its token.
  return hash('sha256', token, 'base64url');
}

/** ZITADEL's expiry for a PAT created without one. */
export const NO_EXPIRY = new Date('9999-12-31T23:59:59Z');
