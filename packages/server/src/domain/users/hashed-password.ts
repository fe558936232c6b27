/**
 * Imported password hashes (user import and organisation import) are accepted only in an
 * encoding auth/password-hashes.ts can verify: a hash no login could ever check would leave the
 * user locked out without anyone noticing. ZITADEL refuses them the same way (issue #7793).
 * Nor beyond the cost bounds of auth/hash-cost.ts: a stored hash decides how long every login
 * attempt for its user runs, and the login page is open to anyone.
 */
import { hashCostProblem } from '../../auth/hash-cost.js';
import { passwordHashFormat } from '../../auth/password-hashes.js';
import { invalidArgument } from '../errors.js';

export const UNSUPPORTED_HASH = { id: 'USER-JDk4t', message: 'Password hash encoding not supported' } as const;
/** A supported hash whose cost parameter is beyond the bounds; the message names the parameter. */
export const HASH_COST_TOO_HIGH_ID = 'USER-H4c0s';

export const isSupportedPasswordHash = (encoded: string): boolean => passwordHashFormat(encoded) !== undefined;

export { hashCostProblem };

export function checkHashedPassword(encoded: string): void {
  if (!isSupportedPasswordHash(encoded)) throw invalidArgument(UNSUPPORTED_HASH.id, UNSUPPORTED_HASH.message);
  const costly = hashCostProblem(encoded);
  if (costly) throw invalidArgument(HASH_COST_TOO_HIGH_ID, `invalid hashedPassword.value: ${costly}`);
}
