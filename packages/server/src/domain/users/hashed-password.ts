/**
 * Imported password hashes (user import and organisation import) are accepted only in an
 * encoding auth/password-hashes.ts can verify: a hash no login could ever check would leave the
 * user locked out without anyone noticing. ZITADEL refuses them the same way (issue #7793).
 */
import { passwordHashFormat } from '../../auth/password-hashes.js';
import { invalidArgument } from '../errors.js';

export const UNSUPPORTED_HASH = { id: 'USER-JDk4t', message: 'Password hash encoding not supported' } as const;

export const isSupportedPasswordHash = (encoded: string): boolean => passwordHashFormat(encoded) !== undefined;

export function checkHashedPassword(encoded: string): void {
  if (!isSupportedPasswordHash(encoded)) throw invalidArgument(UNSUPPORTED_HASH.id, UNSUPPORTED_HASH.message);
}
