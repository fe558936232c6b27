/**
 * Verifies a password against a stored hash in any format ZITADEL (through zitadel/passwap)
 * accepts on user import, so imported users can log in with the password they already have.
 * Hashing itself is always done by a maintained library or Node's crypto; this module only
 * parses the encodings and compares in constant time.
 *
 * The check here is synchronous and slow by design: it runs only in the verification workers
 * (password-verifier-worker.ts), never on the event loop. Callers use `verifyPassword` from
 * password-verifier.ts, which also refuses hashes beyond the cost bounds (hash-cost.ts).
 *
 * Formats (the encoded string's prefix decides):
 * - argon2id / argon2i / argon2d PHC strings (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`): @node-rs/argon2
 * - bcrypt `$2a$`, `$2b$`, `$2y$` (all three are the same algorithm; `$2y$` is PHP's name): bcryptjs
 * - pbkdf2 `$pbkdf2$`, `$pbkdf2-sha256$`, `$pbkdf2-sha512$` (`rounds$salt$hash`, both base64:
 *   passlib's "adapted" form where `.` stands for `+`, or the standard one Keycloak migration tools
 *   write, each with or without `=` padding, as passwap reads them): crypto.pbkdf2Sync
 * - passlib scrypt `$scrypt$ln=…,r=…,p=…$salt$hash` (standard base64, no padding); passwap also
 *   reads the same layout under the `$7$` prefix: crypto.scryptSync
 * - md5crypt `$1$`: apache-md5
 * - sha256-crypt `$5$` / sha512-crypt `$6$` (with optional `rounds=`): unixcrypt
 *
 * `rehash` is set for weak formats (md5crypt, pbkdf2-sha1): after a successful login the caller
 * replaces the stored hash with an argon2id one.
 */

import { pbkdf2Sync, scryptSync, timingSafeEqual } from 'node:crypto';
import { verifySync as argon2Verify } from '@node-rs/argon2';
import apacheMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { verify as shaCryptVerify } from 'unixcrypt';

export type PasswordHashFormat = 'argon2id' | 'argon2i' | 'argon2d' | 'bcrypt' | 'pbkdf2-sha1' | 'pbkdf2-sha256' | 'pbkdf2-sha512' | 'scrypt' | 'md5crypt' | 'sha256crypt' | 'sha512crypt';

export interface PasswordCheck {
  ok: boolean;
  /** The password matched, but the stored hash is weak and should be replaced (argon2id). */
  rehash?: boolean;
}

const WEAK: ReadonlySet<PasswordHashFormat> = new Set(['md5crypt', 'pbkdf2-sha1']);

// apache-md5 is CommonJS (`module.exports = fn`) but its typings declare an ES default export;
// under NodeNext resolution the default import is the function itself at run time.
const md5crypt = apacheMd5 as unknown as (password: string, salt?: string) => string;

/** Which supported format an encoded hash is in, or undefined when it is none of them. */
export function passwordHashFormat(encoded: string): PasswordHashFormat | undefined {
  if (encoded.startsWith('$argon2id$')) return 'argon2id';
  if (encoded.startsWith('$argon2i$')) return 'argon2i';
  if (encoded.startsWith('$argon2d$')) return 'argon2d';
  if (/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(encoded)) return 'bcrypt';
  if (encoded.startsWith('$pbkdf2$')) return 'pbkdf2-sha1';
  if (encoded.startsWith('$pbkdf2-sha256$')) return 'pbkdf2-sha256';
  if (encoded.startsWith('$pbkdf2-sha512$')) return 'pbkdf2-sha512';
  if (encoded.startsWith('$scrypt$') || encoded.startsWith('$7$')) return 'scrypt';
  if (encoded.startsWith('$1$')) return 'md5crypt';
  if (encoded.startsWith('$5$')) return 'sha256crypt';
  if (encoded.startsWith('$6$')) return 'sha512crypt';
  return undefined;
}

/**
 * Does `plain` match `encoded`? A malformed or unsupported hash never matches (and does not
 * throw): a login must answer "wrong password", not 500, for a bad imported hash. Blocks the
 * calling thread for as long as the hash's cost says: call it in a worker only.
 */
export function verifyPasswordInThisThread(plain: string, encoded: string): PasswordCheck {
  const format = passwordHashFormat(encoded);
  if (!format) return { ok: false };
  let ok: boolean;
  try {
    ok = verifyFormat(format, plain, encoded);
  } catch {
    ok = false;
  }
  return ok && WEAK.has(format) ? { ok, rehash: true } : { ok };
}

function verifyFormat(format: PasswordHashFormat, plain: string, encoded: string): boolean {
  switch (format) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d':
      return argon2Verify(encoded, plain);
    case 'bcrypt':
      return bcrypt.compareSync(plain, encoded);
    case 'pbkdf2-sha1':
      return verifyPbkdf2(plain, encoded, 'sha1');
    case 'pbkdf2-sha256':
      return verifyPbkdf2(plain, encoded, 'sha256');
    case 'pbkdf2-sha512':
      return verifyPbkdf2(plain, encoded, 'sha512');
    case 'scrypt':
      return verifyScrypt(plain, encoded);
    case 'md5crypt':
      // apache-md5 feeds its input to md5 as one byte per character; handing it the UTF-8
      // bytes as a latin1 string makes it hash exactly the bytes crypt(3)/openssl hash.
      return safeEqual(md5crypt(Buffer.from(plain, 'utf8').toString('latin1'), encoded), encoded);
    case 'sha256crypt':
    case 'sha512crypt':
      return shaCryptVerify(plain, encoded);
  }
}

/**
 * pbkdf2's salt and hash: standard base64 or passlib's adapted base64 (`.` for `+`), each with or
 * without `=` padding, as passwap decodes them. One value uses one alphabet.
 */
function pbkdf2Base64Decode(value: string): Buffer {
  const m = /^([A-Za-z0-9+./]*)(={0,2})$/.exec(value);
  if (!m || (m[1].includes('+') && m[1].includes('.'))) throw new Error('not base64');
  const [, body, padding] = m;
  // A lone trailing character is no byte; padding, when present, must complete the last group.
  if (body.length % 4 === 1 || (padding && value.length % 4 !== 0)) throw new Error('not base64');
  return Buffer.from(body.replace(/\./g, '+'), 'base64');
}

function b64Decode(value: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new Error('not base64');
  return Buffer.from(value, 'base64');
}

// `$pbkdf2-sha256$29000$<salt>$<hash>`; the key length is the stored hash's length.
function verifyPbkdf2(plain: string, encoded: string, digest: 'sha1' | 'sha256' | 'sha512'): boolean {
  const [, , roundsText, saltText, hashText, ...rest] = encoded.split('$');
  if (rest.length > 0 || !/^\d{1,9}$/.test(roundsText ?? '') || !saltText || !hashText) return false;
  const rounds = Number(roundsText);
  const expected = pbkdf2Base64Decode(hashText);
  if (rounds < 1 || expected.length === 0) return false;
  const actual = pbkdf2Sync(plain, pbkdf2Base64Decode(saltText), rounds, expected.length, digest);
  return safeEqual(actual, expected);
}

// Kept as a second line behind hash-cost.ts's bound (128·N·r·p ≤ 64 MiB; ln=16, r=8 is 64 MiB):
// OpenSSL's buffer is 128·N·r plus 128·r·p, and the allowance below is 1 MiB over the bound.
const SCRYPT_MAX_LN = 19;
const SCRYPT_MAX_MEM = 65 * 1024 * 1024;

// `$scrypt$ln=16,r=8,p=1$<salt>$<hash>`: N = 2^ln, salt used as its decoded bytes.
function verifyScrypt(plain: string, encoded: string): boolean {
  const [, , params, saltText, hashText, ...rest] = encoded.split('$');
  const m = /^ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})$/.exec(params ?? '');
  if (rest.length > 0 || !m || !saltText || !hashText) return false;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > SCRYPT_MAX_LN || r < 1 || p < 1) return false;
  const N = 2 ** ln;
  const expected = b64Decode(hashText);
  if (expected.length === 0) return false;
  const actual = scryptSync(plain, b64Decode(saltText), expected.length, {
    N,
    r,
    p,
    // Node refuses by default above 32 MiB; passlib's default (ln=16, r=8) needs 64 MiB.
    maxmem: SCRYPT_MAX_MEM,
  });
  return safeEqual(actual, expected);
}

function safeEqual(a: Buffer | string, b: Buffer | string): boolean {
  const x = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const y = Buffer.isBuffer(b) ? b : Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
