/**
 * Hash formats accepted on import. Vectors come from real tools, never from this module:
 * - `passwap`: zitadel/passwap's test values (generated there with passlib / argon2 CLI / openssl),
 *   password "password";
 * - `htpasswd`: apache2-utils `htpasswd -nbB -C 10 u <pw>`;
 * - `openssl`: `openssl passwd -1|-5|-6 -salt <salt> <pw>` (OpenSSL 3.0).
 * Vectors generated in the test use the hashing libraries/Node crypto directly.
 */

import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { hash as argon2Hash, type Options } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { passwordHashFormat } from '../../src/auth/password-hashes.js';
import { verifyPassword } from '../../src/auth/password-verifier.js';

const UNICODE = 'pässwörd€';

// `rehash`: weak (md5crypt, pbkdf2-sha1), or costlier to verify than the service's own argon2id
// (hash-cost.ts `costlierThanDefault`: bcrypt above cost 8, scrypt above 19 MiB, ...).
const KNOWN: Array<{ name: string; source: string; plain: string; encoded: string; rehash: boolean }> = [
  { name: 'argon2id', source: 'passwap', plain: 'password', encoded: '$argon2id$v=19$m=4096,t=3,p=1$cmFuZG9tc2FsdGlzaGFyZA$DYojYpnUWSMmTtrkVXyaNWVGxLmGe1n8VJBPDdFkbjU', rehash: false },
  { name: 'argon2i', source: 'passwap', plain: 'password', encoded: '$argon2i$v=19$m=4096,t=3,p=1$cmFuZG9tc2FsdGlzaGFyZA$YMvo8AUoNtnKYGqeODruCjHdiEbl1pKL2MsYy9VgU/E', rehash: false },
  { name: 'bcrypt $2a$', source: 'passwap', plain: 'password', encoded: '$2a$12$aLYFkieuqJyeynvptPTxpehSViui5WeAPuR2Xw1wui9CPHEaacmFq', rehash: true },
  { name: 'bcrypt $2b$', source: 'passwap', plain: 'password', encoded: '$2b$12$bIRGj4QPPoSUMWsJE.4Pk.T1qTpDWz7HhMnuiQhGzGinKPsx/HQdq', rehash: true },
  { name: 'bcrypt $2y$', source: 'passwap', plain: 'password', encoded: '$2y$12$hXUrnqdq1RIIYZ2HPytIIe5lXdIvbhqrTvdPsSF7o.jFh817Z6lwm', rehash: true },
  { name: 'bcrypt $2y$', source: 'htpasswd', plain: 'password', encoded: '$2y$10$U3kWivZizfoQEJGCMF4lVe2/mi854Dvl/2YwXOf26XlqyeoW/KUaC', rehash: true },
  { name: 'bcrypt $2y$ (unicode)', source: 'htpasswd', plain: UNICODE, encoded: '$2y$10$Fl6/aTWLI5324OMJOZlDJOoboMdt0/gq0UDPrI2lorJigHrIlvpVe', rehash: true },
  { name: 'pbkdf2-sha1', source: 'passwap', plain: 'password', encoded: '$pbkdf2$12$cmFuZG9tc2FsdGlzaGFyZA$mwUqsMixIYMc/0eN4v1.l3SVDpk', rehash: true },
  { name: 'pbkdf2-sha256', source: 'passwap', plain: 'password', encoded: '$pbkdf2-sha256$12$cmFuZG9tc2FsdGlzaGFyZA$OFvEcLOIPFd/oq8egf10i.qJLI7A8nDjPLnolCWarQY', rehash: false },
  {
    name: 'pbkdf2-sha512',
    source: 'passwap',
    plain: 'password',
    encoded: '$pbkdf2-sha512$12$cmFuZG9tc2FsdGlzaGFyZA$e297piXvkpYxoYQAWD9zn1aKXCo3XmR91Xn9/WEGsHXU/7xaQzCV9upu4T5Jntq6AiZ6YX0diXnY7Ju5TEfUMA',
    rehash: false,
  },
  { name: 'scrypt', source: 'passwap', plain: 'password', encoded: '$scrypt$ln=16,r=8,p=1$cmFuZG9tc2FsdGlzaGFyZA$Rh+NnJNo1I6nRwaNqbDm6kmADswD1+7FTKZ7Ln9D8nQ', rehash: true },
  { name: 'md5crypt', source: 'passwap', plain: 'password', encoded: '$1$kJ4QkJaQ$3EbD/pJddrq5HW3mpZ4KZ1', rehash: true },
  { name: 'md5crypt (unicode)', source: 'openssl', plain: UNICODE, encoded: '$1$Zx9c8v7b$isjuixhF.T1K4INEWOBWB/', rehash: true },
  { name: 'sha256crypt', source: 'openssl', plain: 'password', encoded: '$5$S4ltS4lt$OPLOwEYZ56wkxrlK4KMNN8O9Mlup5Xc2Sv3GOgKtGj4', rehash: false },
  { name: 'sha256crypt rounds=10000', source: 'openssl', plain: 'password', encoded: '$5$rounds=10000$S4ltS4lt$SXM/2DEQ/T1acK6tEknndiPYkrOvXu.eY57cda2s5v8', rehash: false },
  { name: 'sha512crypt', source: 'openssl', plain: 'password', encoded: '$6$QwErTy12$aat5mfSj5FqToEdxwdR7BWuCeyGJJrDhfdrqI550M4avfZ3hOUHbYdjZ5l0QhDVHOB/o2TLHtWsQO1felxMpK/', rehash: false },
  { name: 'sha512crypt (unicode)', source: 'openssl', plain: UNICODE, encoded: '$6$QwErTy12$FNJ1aZ16VCrXxxzEDxvMEP62chZhka4u61QMGNQeooaLPOSsdPjxMAj.LiqCAvyvCIhkIs2TLAaAmWKjJ4y901', rehash: false },
];

describe('verifyPassword with externally generated vectors', () => {
  for (const v of KNOWN) {
    it(`${v.name} (${v.source}) accepts the right password`, async () => {
      const result = await verifyPassword(v.plain, v.encoded);
      expect(result.ok).toBe(true);
      expect(result.rehash ?? false).toBe(v.rehash);
    });
    it(`${v.name} (${v.source}) refuses a wrong password`, async () => {
      expect(await verifyPassword(`${v.plain}x`, v.encoded)).toEqual({ ok: false });
      expect(await verifyPassword('Password', v.encoded)).toEqual({ ok: false });
    });
  }
});

// passlib's adapted base64 for the pbkdf2 family: '.' instead of '+', no padding.
const ab64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');

describe('verifyPassword with hashes made by the libraries here', () => {
  const plain = 'correct horse ✓ battery';

  it('argon2id and argon2i from @node-rs/argon2', async () => {
    // The package's Algorithm enum is type-only at run time: 2 = argon2id, 1 = argon2i.
    for (const [algorithm, prefix] of [
      [2, '$argon2id$'],
      [1, '$argon2i$'],
    ] as const) {
      const encoded = await argon2Hash(plain, { algorithm: algorithm as NonNullable<Options['algorithm']> });
      expect(encoded.startsWith(prefix)).toBe(true);
      expect(await verifyPassword(plain, encoded)).toEqual({ ok: true });
      expect(await verifyPassword('nope', encoded)).toEqual({ ok: false });
    }
  });

  it('bcrypt from bcryptjs', async () => {
    const encoded = await bcrypt.hash(plain, 4);
    expect(await verifyPassword(plain, encoded)).toEqual({ ok: true });
    expect(await verifyPassword('nope', encoded)).toEqual({ ok: false });
  });

  it('pbkdf2 sha1/sha256/sha512 from Node crypto in passlib layout', async () => {
    const salt = randomBytes(16);
    for (const [prefix, digest, len, rehash] of [
      ['$pbkdf2$', 'sha1', 20, true],
      ['$pbkdf2-sha256$', 'sha256', 32, false],
      ['$pbkdf2-sha512$', 'sha512', 64, false],
    ] as const) {
      const key = pbkdf2Sync(plain, salt, 1000, len, digest);
      const encoded = `${prefix}1000$${ab64(salt)}$${ab64(key)}`;
      expect(await verifyPassword(plain, encoded)).toEqual(rehash ? { ok: true, rehash: true } : { ok: true });
      expect(await verifyPassword('nope', encoded)).toEqual({ ok: false });
    }
  });

  // Keycloak migration tools write standard base64 (`+`, `/`, `=`); passlib writes its adapted form
  // (`.` for `+`, no padding). ZITADEL's passwap reads both, each with or without padding.
  describe('pbkdf2 in all four base64 forms', () => {
    // A salt and keys whose base64 contain `+` and need padding, so each form differs from the others.
    const salt = Buffer.from('fb7fbe00aa01', 'hex');
    const forms: Array<[string, (b: Buffer) => string]> = [
      ['standard, padded', (b) => b.toString('base64')],
      ['standard, unpadded', (b) => b.toString('base64').replace(/=+$/, '')],
      ['adapted, padded', (b) => b.toString('base64').replace(/\+/g, '.')],
      ['adapted, unpadded', (b) => ab64(b)],
    ];
    for (const [prefix, digest, len] of [
      ['$pbkdf2$', 'sha1', 20],
      ['$pbkdf2-sha256$', 'sha256', 32],
      ['$pbkdf2-sha512$', 'sha512', 64],
    ] as const) {
      for (const [form, encode] of forms) {
        it(`${digest}, ${form}`, async () => {
          // Find a password whose key's encoding has a '+' and padding (20/32/64-byte keys always pad).
          let pw = plain;
          let key = pbkdf2Sync(pw, salt, 1000, len, digest);
          for (let i = 0; !key.toString('base64').includes('+'); i++) key = pbkdf2Sync((pw = `${plain}${i}`), salt, 1000, len, digest);
          const encoded = `${prefix}1000$${encode(salt)}$${encode(key)}`;
          expect((await verifyPassword(pw, encoded)).ok, encoded).toBe(true);
          expect(await verifyPassword(`${pw}x`, encoded)).toEqual({ ok: false });
        });
      }
    }
    it('refuses a value that is base64 in no form', async () => {
      const key = pbkdf2Sync(plain, salt, 1000, 32, 'sha256');
      expect(await verifyPassword(plain, `$pbkdf2-sha256$1000$${ab64(salt)}$${key.toString('base64')}!`)).toEqual({ ok: false });
      expect(await verifyPassword(plain, `$pbkdf2-sha256$1000$${ab64(salt)}$${key.toString('base64')}===`)).toEqual({ ok: false });
    });
  });

  it('scrypt from Node crypto, under both $scrypt$ and $7$', async () => {
    const salt = randomBytes(16);
    const key = scryptSync(plain, salt, 32, { N: 2 ** 10, r: 8, p: 1 });
    const tail = `ln=10,r=8,p=1$${salt.toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
    for (const prefix of ['$scrypt$', '$7$']) {
      expect(await verifyPassword(plain, prefix + tail)).toEqual({ ok: true });
      expect(await verifyPassword('nope', prefix + tail)).toEqual({ ok: false });
    }
  });
});

describe('malformed and unsupported hashes', () => {
  it.each([
    ['empty', ''],
    ['plain text', 'password'],
    ['unknown scheme', '$9$abc$def'],
    ['pbkdf2 without hash', '$pbkdf2-sha256$12$cmFuZG9tc2FsdGlzaGFyZA'],
    ['pbkdf2 bad rounds', '$pbkdf2-sha256$x$cmFuZG9tc2FsdGlzaGFyZA$OFvEcLOIPFd/oq8egf10i.qJLI7A8nDjPLnolCWarQY'],
    ['scrypt absurd cost', '$scrypt$ln=40,r=8,p=1$cmFuZG9tc2FsdGlzaGFyZA$Rh+NnJNo1I6nRwaNqbDm6kmADswD1+7FTKZ7Ln9D8nQ'],
    ['truncated argon2', '$argon2id$v=19$m=4096,t=3,p=1$cmFuZG9t'],
    ['truncated bcrypt', '$2b$12$bIRGj4QPPoSUMWsJE.4Pk'],
  ])('%s never matches and does not throw', async (_name, encoded) => {
    expect((await verifyPassword('password', encoded)).ok).toBe(false);
  });

  it('a password longer than 1024 bytes is not checked (sha-crypt would hash it once per round)', async () => {
    const long = 'p'.repeat(1025);
    const encoded = `$pbkdf2-sha256$1000$${ab64(Buffer.from('salt'))}$${ab64(pbkdf2Sync(long, 'salt', 1000, 32, 'sha256'))}`;
    expect(await verifyPassword(long, encoded)).toEqual({ ok: false });
    const limit = 'p'.repeat(1024);
    expect(await verifyPassword(limit, `$pbkdf2-sha256$1000$${ab64(Buffer.from('salt'))}$${ab64(pbkdf2Sync(limit, 'salt', 1000, 32, 'sha256'))}`)).toEqual({ ok: true });
  });

  it('names the format of each supported prefix', () => {
    expect(KNOWN.map((v) => passwordHashFormat(v.encoded))).toEqual([
      'argon2id',
      'argon2i',
      'bcrypt',
      'bcrypt',
      'bcrypt',
      'bcrypt',
      'bcrypt',
      'pbkdf2-sha1',
      'pbkdf2-sha256',
      'pbkdf2-sha512',
      'scrypt',
      'md5crypt',
      'md5crypt',
      'sha256crypt',
      'sha256crypt',
      'sha512crypt',
      'sha512crypt',
    ]);
    expect(passwordHashFormat('$apr1$abc$def')).toBeUndefined();
  });
});
