/**
 * Verifies a password against a stored hash in any format ZITADEL (through zitadel/passwap)
 * accepts on user import, so imported users can log in with the password they already have.
 * Hashing itself is always done by a maintained library or Node's crypto; this module only
 * parses the encodings and compares in constant time.
 *
 * Formats (the encoded string's prefix decides):
 * - argon2id / argon2i / argon2d PHC strings (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`): @node-rs/argon2
 * - bcrypt `$2a$`, `$2b$`, `$2y$` (all three are the same algorithm; `$2y$` is PHP's name): bcryptjs
 * - passlib pbkdf2 `$pbkdf2$`, `$pbkdf2-sha256$`, `$pbkdf2-sha512$` (`rounds$salt$hash`, both in
 *   passlib's "adapted base64" where `.` stands for `+`): crypto.pbkdf2
 * - passlib scrypt `$scrypt$ln=…,r=…,p=…$salt$hash` (standard base64, no padding); passwap also
 *   reads the same layout under the `$7$` prefix: crypto.scrypt
 * - md5crypt `$1$`: apache-md5
 * - sha256-crypt `$5$` / sha512-crypt `$6$` (with optional `rounds=`): unixcrypt
 *
 * `rehash` is set for weak formats (md5crypt, pbkdf2-sha1): after a successful login the caller
 * replaces the stored hash with an argon2id one.
 */
import { verify as argon2Verify } from '@node-rs/argon2';
import apacheMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { pbkdf2, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import { verify as shaCryptVerify } from 'unixcrypt';

export type PasswordHashFormat =
  | 'argon2id'
  | 'argon2i'
  | 'argon2d'
  | 'bcrypt'
  | 'pbkdf2-sha1'
  | 'pbkdf2-sha256'
  | 'pbkdf2-sha512'
  | 'scrypt'
  | 'md5crypt'
  | 'sha256crypt'
  | 'sha512crypt';

export interface PasswordCheck {
  ok: boolean;
  /** The password matched, but the stored hash is weak and should be replaced (argon2id). */
  rehash?: boolean;
}

const WEAK: ReadonlySet<PasswordHashFormat> = new Set(['md5crypt', 'pbkdf2-sha1']);

// apache-md5 is CommonJS (`module.exports = fn`) but its typings declare an ES default export;
// under NodeNext resolution the default import is the function itself at run time.
const md5crypt = apacheMd5 as unknown as (password: string, salt?: string) => string;

const pbkdf2Async = promisify(pbkdf2);
const scryptAsync = promisify(scrypt) as (pw: BinaryLike, salt: BinaryLike, keylen: number, opts: ScryptOptions) => Promise<Buffer>;

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
 * throw): a login must answer "wrong password", not 500, for a bad imported hash.
 */
export async function verifyPassword(plain: string, encoded: string): Promise<PasswordCheck> {
  const format = passwordHashFormat(encoded);
  if (!format) return { ok: false };
  let ok: boolean;
  try {
    ok = await verifyFormat(format, plain, encoded);
  } catch {
    ok = false;
  }
  return ok && WEAK.has(format) ? { ok, rehash: true } : { ok };
}

async function verifyFormat(format: PasswordHashFormat, plain: string, encoded: string): Promise<boolean> {
  switch (format) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d':
      return argon2Verify(encoded, plain);
    case 'bcrypt':
      return bcrypt.compare(plain, encoded);
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

/** passlib's adapted base64: standard alphabet with `.` for `+`, no padding. */
function ab64Decode(value: string): Buffer {
  if (!/^[A-Za-z0-9./]*$/.test(value)) throw new Error('not adapted base64');
  return Buffer.from(value.replace(/\./g, '+'), 'base64');
}

function b64Decode(value: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new Error('not base64');
  return Buffer.from(value, 'base64');
}

// `$pbkdf2-sha256$29000$<salt>$<hash>`; the key length is the stored hash's length.
async function verifyPbkdf2(plain: string, encoded: string, digest: 'sha1' | 'sha256' | 'sha512'): Promise<boolean> {
  const [, , roundsText, saltText, hashText, ...rest] = encoded.split('$');
  if (rest.length > 0 || !/^\d{1,9}$/.test(roundsText ?? '') || !saltText || !hashText) return false;
  const rounds = Number(roundsText);
  const expected = ab64Decode(hashText);
  if (rounds < 1 || expected.length === 0) return false;
  const actual = await pbkdf2Async(plain, ab64Decode(saltText), rounds, expected.length, digest);
  return safeEqual(actual, expected);
}

// Upper bounds keep a hostile imported hash from tying up the process (ln=20, r=8 is 1 GiB).
const SCRYPT_MAX_LN = 20;
const SCRYPT_MAX_MEM = 1024 * 1024 * 1024 + 64 * 1024 * 1024;

// `$scrypt$ln=16,r=8,p=1$<salt>$<hash>`: N = 2^ln, salt used as its decoded bytes.
async function verifyScrypt(plain: string, encoded: string): Promise<boolean> {
  const [, , params, saltText, hashText, ...rest] = encoded.split('$');
  const m = /^ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})$/.exec(params ?? '');
  if (rest.length > 0 || !m || !saltText || !hashText) return false;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > SCRYPT_MAX_LN || r < 1 || p < 1) return false;
  const N = 2 ** ln;
  const expected = b64Decode(hashText);
  if (expected.length === 0) return false;
  const actual = await scryptAsync(plain, b64Decode(saltText), expected.length, {
    N,
    r,
    p,
    // Node refuses by default above 32 MiB; passlib's default (ln=16, r=8) needs 64 MiB.
    maxmem: Math.min(SCRYPT_MAX_MEM, 128 * N * r + 128 * r * p + 16 * 1024 * 1024),
  });
  return safeEqual(actual, expected);
}

function safeEqual(a: Buffer | string, b: Buffer | string): boolean {
  const x = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const y = Buffer.isBuffer(b) ? b : Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
