/**
 * Hashing of plain passwords set through the API. argon2id in its PHC string form
 * (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`), the form ZITADEL itself stores and exports, so a
 * hash written here can be exported and imported elsewhere unchanged.
 */
import { hash, type Options } from '@node-rs/argon2';

/**
 * OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): safe and fast enough per request.
 * `Algorithm` is an ambient const enum the package does not export at run time, hence the
 * literal 2 (= Algorithm.Argon2id). Its cost is the yardstick of hash-cost.ts's `costlierThanDefault`.
 */
export const ARGON2ID = { algorithm: 2 as NonNullable<Options['algorithm']>, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const satisfies Options;

export function hashPassword(plain: string): Promise<string> {
  return hash(plain, ARGON2ID);
}
