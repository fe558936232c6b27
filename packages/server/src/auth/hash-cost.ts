/**
 * Upper bounds on the cost parameters of stored password hashes. A hash carries its own cost,
 * and whoever may store a hash (a user manager, an import) could otherwise make every login
 * attempt for that user — by anyone, at the login page — run for minutes or exhaust memory
 * (`$6$rounds=999999999$…`). The bounds are generous for real exports (ZITADEL, passlib,
 * Keycloak, glibc and PHP defaults are at or below them) and keep one verification within seconds.
 * They are documented in docs/oidc.md and the spec's `hashedPassword` descriptions.
 *
 * Memory is bounded per verification, not per parameter: 64 MiB (ZITADEL's usual argon2id setting,
 * passlib's scrypt default), so the pool's two workers (password-verifier.ts) hold at most 128 MiB
 * between them whatever the store holds. Before this bound, scrypt ln=20 r=8 p=4 passed: 1 GiB and
 * 12.7 s per login attempt, and four anonymous clients took the process to 2.2 GB.
 *
 * Checked on every write of a hash (user import, organisation import) and again before a stored
 * hash is verified at login, for hashes stored before the bounds existed.
 */
import { type PasswordHashFormat, passwordHashFormat } from './password-hashes.js';
import { ARGON2ID } from './passwords.js';

export const HASH_COST_LIMITS = {
  /** bcrypt's log2 cost (2^15 = 32,768 expansions; PHP's default is 10, passwap's 10–12). */
  bcryptCost: 15,
  /** sha256-crypt / sha512-crypt `rounds=` (glibc's default 5,000). */
  shaCryptRounds: 1_000_000,
  /** pbkdf2 iterations (Keycloak 27,500–600,000; OWASP's sha1 advice 1,300,000). */
  pbkdf2Rounds: 5_000_000,
  /** pbkdf2 derived key length in bytes: each digest-sized block costs the full rounds again. */
  pbkdf2KeyBytes: 64,
  /** argon2 `m=` in KiB: the memory bound (ZITADEL's argon2id is usually configured with 64 MiB, OWASP 19–46 MiB). */
  argon2MemoryKiB: 65_536,
  /** argon2 `t=` passes. */
  argon2Time: 20,
  /** argon2 `p=` lanes. */
  argon2Parallelism: 16,
  /**
   * scrypt 128·N·r·p bytes (N = 2^ln), the memory bound: passlib's default ln=16, r=8, p=1 is
   * exactly 64 MiB. OpenSSL computes the p lanes one after another in one 128·N·r buffer, but each
   * lane costs the full N·r again, so counting p bounds the CPU with the same number (and an
   * implementation running lanes side by side would need all of it).
   */
  scryptWorkBytes: 64 * 1024 * 1024,
} as const;

const L = HASH_COST_LIMITS;

const above = (format: string, what: string, value: string | number, limit: number) => `${format} ${what} ${value} is above the limit of ${limit}`;

/**
 * Why `encoded` costs more than the bounds allow (a sentence naming the parameter and its
 * limit), or undefined when it is within them. Formats without a cost parameter (md5crypt: fixed
 * 1,000 rounds) and values that are not hashes at all are not this function's concern.
 */
export function hashCostProblem(encoded: string): string | undefined {
  const format = passwordHashFormat(encoded);
  return format ? problemOf(format, encoded) : undefined;
}

function problemOf(format: PasswordHashFormat, encoded: string): string | undefined {
  const fields = encoded.split('$');
  switch (format) {
    case 'bcrypt': {
      const cost = Number(fields[2]);
      return cost > L.bcryptCost ? above(format, 'cost', cost, L.bcryptCost) : undefined;
    }
    case 'sha256crypt':
    case 'sha512crypt': {
      // `$6$rounds=N$salt$hash`; without `rounds=` the default 5,000 applies.
      const m = /^rounds=(\d+)$/.exec(fields[2] ?? '');
      const rounds = m ? Number(m[1]) : 0;
      return rounds > L.shaCryptRounds ? above(format, 'rounds', m![1], L.shaCryptRounds) : undefined;
    }
    case 'pbkdf2-sha1':
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      const text = fields[2] ?? '';
      if (/^\d+$/.test(text) && Number(text) > L.pbkdf2Rounds) return above(format, 'rounds', text, L.pbkdf2Rounds);
      // base64 of more than pbkdf2KeyBytes (padding and either alphabet aside).
      const keyChars = (fields[4] ?? '').replace(/=+$/, '').length;
      const keyBytes = Math.floor((keyChars * 3) / 4);
      return keyBytes > L.pbkdf2KeyBytes ? above(format, 'key length', `${keyBytes} bytes`, L.pbkdf2KeyBytes) : undefined;
    }
    case 'argon2id':
    case 'argon2i':
    case 'argon2d': {
      const params = argon2Params(encoded);
      const checks: Array<['m' | 't' | 'p', string, number]> = [
        ['m', 'memory', L.argon2MemoryKiB],
        ['t', 'time', L.argon2Time],
        ['p', 'parallelism', L.argon2Parallelism],
      ];
      for (const [name, what, limit] of checks) {
        const v = params[name];
        if (v !== undefined && v > limit) {
          return `${format} ${what} ${name}=${v}${name === 'm' ? ' KiB' : ''} is above the limit of ${limit}`;
        }
      }
      return undefined;
    }
    case 'scrypt': {
      const params = scryptParams(encoded);
      if (!params) return undefined;
      const { ln, r, p } = params;
      const bytes = scryptWorkBytes(params);
      return bytes > L.scryptWorkBytes ? `scrypt memory 128·2^${ln}·${r}·${p} = ${bytes} bytes is above the limit of ${L.scryptWorkBytes} (64 MiB)` : undefined;
    }
    case 'md5crypt':
      return undefined;
  }
}

/** argon2's `m` (KiB), `t` and `p` from `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (the version field is optional in old PHC strings; any order). */
function argon2Params(encoded: string): { m?: number; t?: number; p?: number } {
  const params = encoded.split('$').find((f) => /(?:^|,)[mtp]=/.test(f)) ?? '';
  const value = (name: string) => {
    const m = new RegExp(`(?:^|,)${name}=(\\d+)(?:,|$)`).exec(params);
    return m ? Number(m[1]) : undefined;
  };
  return { m: value('m'), t: value('t'), p: value('p') };
}

/** scrypt's `ln`, `r`, `p` from `$scrypt$ln=…,r=…,p=…$salt$hash` (or `$7$…`). */
function scryptParams(encoded: string): { ln: number; r: number; p: number } | undefined {
  const m = /^ln=(\d+),r=(\d+),p=(\d+)$/.exec(encoded.split('$')[2] ?? '');
  return m ? { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : undefined;
}

const scryptWorkBytes = ({ ln, r, p }: { ln: number; r: number; p: number }) => 128 * 2 ** ln * r * p;

/**
 * What one verification of the service's own hash costs (passwords.ts: argon2id m=19,456 KiB,
 * t=2, p=1; about 30 ms of one core), expressed per format: a hash above any of these costs more
 * to verify, in memory or CPU, than the hash this service would write for the same password.
 * The CPU thresholds are the parameters at which each format's verification took about as long
 * as the default's, measured with the libraries used here (bcryptjs cost 8 ≈ 31 ms, sha512-crypt
 * 10,000 rounds ≈ 20 ms, pbkdf2-sha256 100,000 ≈ 33 ms, pbkdf2-sha512 40,000 ≈ 30 ms).
 */
export const DEFAULT_HASH_COST = {
  argon2MemoryKiB: ARGON2ID.memoryCost,
  /** m·t: argon2's work is its memory filled t times, however many lanes share it. */
  argon2MemoryPasses: ARGON2ID.memoryCost * ARGON2ID.timeCost,
  scryptWorkBytes: ARGON2ID.memoryCost * 1024,
  bcryptCost: 8,
  shaCryptRounds: 10_000,
  /** pbkdf2 rounds times the digest-sized blocks of the stored key. */
  pbkdf2Sha256Work: 100_000,
  pbkdf2Sha512Work: 40_000,
  /** sha1's rounds cost about what sha256's do here (measured: 100,000 of either ≈ 80–130 ms on a loaded core). */
  pbkdf2Sha1Work: 100_000,
} as const;

const D = DEFAULT_HASH_COST;
const PBKDF2_DIGEST_BYTES = { 'pbkdf2-sha1': 20, 'pbkdf2-sha256': 32, 'pbkdf2-sha512': 64 } as const;

/**
 * Does verifying `encoded` cost more (memory or CPU) than verifying the service's own argon2id
 * hash? A successful sign-in then replaces it (password-login.ts), so an imported costly hash —
 * ZITADEL's bcrypt 14 takes 1.5 s, Keycloak's pbkdf2-sha512 210,000 0.16 s — is paid for once,
 * not at every sign-in, and a hash at the bounds stops being a lever after its owner signs in.
 * md5crypt and pbkdf2-sha1 are re-hashed as weak anyway (password-hashes.ts); pbkdf2-sha1 is still
 * judged here, because the password verifier's share per client address (password-verifier.ts)
 * asks this function which checks hold a worker long, and 5,000,000 rounds of it take 8–10 s.
 */
export function costlierThanDefault(encoded: string): boolean {
  const format = passwordHashFormat(encoded);
  const fields = encoded.split('$');
  switch (format) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d': {
      const { m = 0, t = 1 } = argon2Params(encoded);
      return m > D.argon2MemoryKiB || m * t > D.argon2MemoryPasses;
    }
    case 'scrypt': {
      const params = scryptParams(encoded);
      return !!params && scryptWorkBytes(params) > D.scryptWorkBytes;
    }
    case 'bcrypt':
      return Number(fields[2]) > D.bcryptCost;
    case 'sha256crypt':
    case 'sha512crypt': {
      const m = /^rounds=(\d+)$/.exec(fields[2] ?? '');
      return !!m && Number(m[1]) > D.shaCryptRounds;
    }
    case 'pbkdf2-sha1':
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      const keyBytes = Math.floor(((fields[4] ?? '').replace(/=+$/, '').length * 3) / 4);
      const work = Number(fields[2]) * Math.max(1, Math.ceil(keyBytes / PBKDF2_DIGEST_BYTES[format]));
      return work > { 'pbkdf2-sha1': D.pbkdf2Sha1Work, 'pbkdf2-sha256': D.pbkdf2Sha256Work, 'pbkdf2-sha512': D.pbkdf2Sha512Work }[format];
    }
    default:
      return false;
  }
}
