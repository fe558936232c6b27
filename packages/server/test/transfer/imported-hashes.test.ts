import { pbkdf2Sync } from 'node:crypto';
import { hash as argon2Hash, type Options } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPasswordLogin } from '../../src/domain/login/password-login.js';
import { isSupportedPasswordHash } from '../../src/domain/users/hashed-password.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
// Encodings passwap/ZITADEL-style importers meet but this service cannot verify at login.
const B64 = 'cmFuZG9tc2FsdGlzaGFyZA';
const HASH53 = 'aLYFkieuqJyeynvptPTxpehSViui5WeAPuR2Xw1wui9CPHEaacmFq';
/**
 * Each format's cost bound (docs/oidc.md): the hash at the limit is stored, one step beyond is
 * refused with a message naming the parameter. The values need not verify: only their cost is read.
 */
const BOUNDS: Array<{ name: string; atLimit: string; beyond: string; says: string }> = [
  { name: 'bcrypt cost', atLimit: `$2b$15$${HASH53}`, beyond: `$2b$16$${HASH53}`, says: 'bcrypt cost 16 is above the limit of 15' },
  { name: 'bcrypt cost 31', atLimit: `$2y$04$${HASH53}`, beyond: `$2a$31$${HASH53}`, says: 'bcrypt cost 31 is above the limit of 15' },
  { name: 'sha512-crypt rounds', atLimit: `$6$rounds=1000000$S4lt$${HASH53}`, beyond: `$6$rounds=1000001$S4lt$${HASH53}`, says: 'sha512crypt rounds 1000001 is above the limit of 1000000' },
  { name: 'sha256-crypt rounds', atLimit: `$5$rounds=1000000$S4lt$${HASH53}`, beyond: `$5$rounds=999999999$S4lt$${HASH53}`, says: 'sha256crypt rounds 999999999 is above the limit of 1000000' },
  { name: 'pbkdf2 rounds', atLimit: `$pbkdf2-sha256$5000000$${B64}$${B64}`, beyond: `$pbkdf2-sha256$5000001$${B64}$${B64}`, says: 'pbkdf2-sha256 rounds 5000001 is above the limit of 5000000' },
  { name: 'pbkdf2-sha1 rounds', atLimit: `$pbkdf2$5000000$${B64}$${B64}`, beyond: `$pbkdf2$999999999$${B64}$${B64}`, says: 'pbkdf2-sha1 rounds 999999999 is above the limit of 5000000' },
  {
    name: 'argon2 memory (64 MiB)',
    atLimit: `$argon2id$v=19$m=65536,t=20,p=16$${B64}$${B64}`,
    beyond: `$argon2id$v=19$m=65537,t=1,p=1$${B64}$${B64}`,
    says: 'argon2id memory m=65537 KiB is above the limit of 65536',
  },
  {
    name: 'argon2 memory the old bound allowed',
    atLimit: `$argon2id$v=19$m=65536,t=3,p=4$${B64}$${B64}`,
    beyond: `$argon2id$v=19$m=262144,t=1,p=1$${B64}$${B64}`,
    says: 'argon2id memory m=262144 KiB is above the limit of 65536',
  },
  { name: 'argon2 time', atLimit: `$argon2i$v=19$m=4096,t=20,p=1$${B64}$${B64}`, beyond: `$argon2i$v=19$m=4096,t=21,p=1$${B64}$${B64}`, says: 'argon2i time t=21 is above the limit of 20' },
  {
    name: 'argon2 parameters in another order',
    atLimit: `$argon2id$v=19$t=3,p=1,m=65536$${B64}$${B64}`,
    beyond: `$argon2id$v=19$t=3,p=1,m=1048576$${B64}$${B64}`,
    says: 'argon2id memory m=1048576 KiB is above the limit of 65536',
  },
  { name: 'argon2 lanes', atLimit: `$argon2d$v=19$m=4096,t=1,p=16$${B64}$${B64}`, beyond: `$argon2d$v=19$m=4096,t=1,p=17$${B64}$${B64}`, says: 'argon2d parallelism p=17 is above the limit of 16' },
  // scrypt: 128·N·r·p ≤ 64 MiB, whichever parameter makes it up.
  {
    name: 'scrypt N',
    atLimit: `$scrypt$ln=16,r=8,p=1$${B64}$${B64}`,
    beyond: `$scrypt$ln=17,r=8,p=1$${B64}$${B64}`,
    says: 'scrypt memory 128·2^17·8·1 = 134217728 bytes is above the limit of 67108864 (64 MiB)',
  },
  {
    name: 'scrypt p',
    atLimit: `$7$ln=14,r=8,p=4$${B64}$${B64}`,
    beyond: `$7$ln=14,r=8,p=5$${B64}$${B64}`,
    says: 'scrypt memory 128·2^14·8·5 = 83886080 bytes is above the limit of 67108864 (64 MiB)',
  },
  {
    name: 'scrypt r',
    atLimit: `$scrypt$ln=12,r=128,p=1$${B64}$${B64}`,
    beyond: `$scrypt$ln=12,r=129,p=1$${B64}$${B64}`,
    says: 'scrypt memory 128·2^12·129·1 = 67633152 bytes is above the limit of 67108864 (64 MiB)',
  },
  {
    name: 'scrypt of issue 33 (1 GiB, 12.7 s)',
    atLimit: `$scrypt$ln=19,r=1,p=1$${B64}$${B64}`,
    beyond: `$scrypt$ln=20,r=8,p=4$${B64}$${B64}`,
    says: 'scrypt memory 128·2^20·8·4 = 4294967296 bytes is above the limit of 67108864 (64 MiB)',
  },
];

const UNSUPPORTED = ['plain-text-password', '5f4dcc3b5aa765d61d8327deb882cf99', '{SSHA}abcdefgh', '$2a$x', '$unknown$v=1$abc'];

describe('isSupportedPasswordHash', () => {
  it('accepts the formats login can verify and nothing else', () => {
    expect(isSupportedPasswordHash(BCRYPT)).toBe(true);
    expect(isSupportedPasswordHash('$argon2id$v=19$m=4096,t=3,p=1$cmFuZG9tc2FsdGlzaGFyZA$DYojYpnUWSMmTtrkVXyaNWVGxLmGe1n8VJBPDdFkbjU')).toBe(true);
    for (const value of UNSUPPORTED) expect(isSupportedPasswordHash(value), value).toBe(false);
  });
});

describeEachStore('imported password hashes must be verifiable', (dialect) => {
  let t: TestInstance;
  let orgId: string;
  const human = (userName: string, hashedPassword: { value: string }, userId?: string) => ({
    ...(userId ? { userId } : {}),
    userName,
    profile: { firstName: 'H', lastName: 'P' },
    email: { email: `${userName}@example.com`, isEmailVerified: true },
    hashedPassword,
  });
  const importUser = (body: unknown) => t.call('POST', '/management/v1/users/human/_import', { body, headers: { 'x-service-orgid': orgId } });
  const importData = (orgs: unknown[]) => t.call('POST', '/admin/v1/import', { body: { timeout: '30s', dataOrgs: { orgs } } });

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgId = (await (await t.call('POST', '/management/v1/orgs', { body: { name: 'Hash Org' } })).json()).id;
  });
  afterAll(() => t.close());

  it('user import: 400 USER-JDk4t for each unsupported encoding, nothing written', async () => {
    for (const [i, value] of UNSUPPORTED.entries()) {
      const res = await importUser(human(`bad${i}`, { value }, `bad-hash-${i}`));
      expect(res.status, value).toBe(400);
      const body = await res.json();
      expect(body, value).toMatchObject({
        code: 3,
        message: 'Password hash encoding not supported (USER-JDk4t)',
        details: [{ id: 'USER-JDk4t', message: 'Password hash encoding not supported' }],
      });
      expect(await t.store.read.users.get(`bad-hash-${i}`), value).toBeUndefined();
    }
    const ok = await importUser(human('good', { value: BCRYPT }, 'good-hash'));
    expect(ok.status).toBe(200);
    expect((await t.store.read.users.get('good-hash'))?.passwordHash).toBe(BCRYPT);
  });

  it('organisation import: 400 USER-JDk4t naming the path; nothing of the document is written', async () => {
    const res = await importData([
      {
        orgId: 'hash-org-1',
        org: { name: 'Hash One' },
        humanUsers: [
          { userId: 'h-ok', user: human('ok', { value: BCRYPT }) },
          { userId: 'h-bad', user: human('bad', { value: '{SSHA}abcdefgh' }) },
        ],
      },
    ]);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe(3);
    expect(body.details[0].id).toBe('USER-JDk4t');
    expect(body.message).toBe('invalid orgs[0].humanUsers[1].user.hashedPassword.value: Password hash encoding not supported (USER-JDk4t)');
    expect(await t.store.read.orgs.get('hash-org-1')).toBeUndefined();
    expect(await t.store.read.users.get('h-ok')).toBeUndefined();
  });

  it('organisation import: a bad hash among other problems keeps the generic id and names both', async () => {
    const res = await importData([
      {
        orgId: 'hash-org-2',
        org: { name: 'Hash Two' },
        humanUsers: [
          { userId: 'h2-bad', user: human('bad2', { value: 'md5:abc' }) },
          { userId: 'h2-mail', user: { ...human('mail', { value: BCRYPT }), email: { email: 'broken@' } } },
        ],
      },
    ]);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.details[0].id).toBe('IMPORT-V4l1d');
    expect(body.message).toContain('orgs[0].humanUsers[0].user.hashedPassword.value: Password hash encoding not supported');
    expect(body.message).toContain('orgs[0].humanUsers[1].user.email.email');
    expect(await t.store.read.orgs.get('hash-org-2')).toBeUndefined();
  });

  describe('cost bounds', () => {
    for (const [i, b] of BOUNDS.entries()) {
      it(`${b.name}: user import stores the hash at the limit, refuses it beyond with a 400 naming the field`, async () => {
        const ok = await importUser(human(`limit${i}`, { value: b.atLimit }, `limit-${i}`));
        expect(ok.status, b.atLimit).toBe(200);
        expect((await t.store.read.users.get(`limit-${i}`))?.passwordHash).toBe(b.atLimit);

        const res = await importUser(human(`beyond${i}`, { value: b.beyond }, `beyond-${i}`));
        expect(res.status, b.beyond).toBe(400);
        const body = await res.json();
        expect(body.code).toBe(3);
        expect(body.details[0].id).toBe('USER-H4c0s');
        expect(body.message).toBe(`invalid hashedPassword.value: ${b.says} (USER-H4c0s)`);
        expect(await t.store.read.users.get(`beyond-${i}`)).toBeUndefined();
      });

      it(`${b.name}: organisation import refuses it beyond the limit naming the path, stores it at the limit`, async () => {
        const res = await importData([
          {
            orgId: `bound-org-${i}`,
            org: { name: `Bound ${i}` },
            humanUsers: [
              { userId: `bo-${i}-ok`, user: human(`ok${i}`, { value: b.atLimit }) },
              { userId: `bo-${i}-bad`, user: human(`bad${i}`, { value: b.beyond }) },
            ],
          },
        ]);
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.details[0].id).toBe('USER-H4c0s');
        expect(body.message).toBe(`invalid orgs[0].humanUsers[1].user.hashedPassword.value: ${b.says} (USER-H4c0s)`);
        expect(await t.store.read.orgs.get(`bound-org-${i}`)).toBeUndefined();

        const good = await importData([{ orgId: `bound-org-${i}`, org: { name: `Bound ${i}` }, humanUsers: [{ userId: `bo-${i}-ok`, user: human(`ok${i}`, { value: b.atLimit }) }] }]);
        expect(good.status).toBe(200);
        expect((await t.store.read.users.get(`bo-${i}-ok`))?.passwordHash).toBe(b.atLimit);
      });
    }

    it('a stored hash beyond the bounds (written before they existed) is refused at login without being run', async () => {
      const userId = 'slipped-in';
      expect((await importUser(human('slipped', { value: BCRYPT }, userId))).status).toBe(200);
      // pbkdf2 with 999,999,999 rounds would keep a thread busy for many minutes if it were run.
      const slipped = `$pbkdf2-sha256$999999999$${B64}$${B64}`;
      const before = (await t.store.read.users.get(userId))!;
      await t.store.transaction((tx) => tx.logins.setPasswordHash(userId, slipped, before.sequence, new Date()));

      const started = performance.now();
      const outcome = await checkPasswordLogin(t.store, t.instanceId, 'slipped', 'password');
      expect(performance.now() - started).toBeLessThan(1000);
      expect(outcome).toEqual({ ok: false, reason: 'invalid_credentials', refusedHash: 'pbkdf2-sha256 rounds 999999999 is above the limit of 5000000', userId });
      // Counted as a failed check (it counts towards the lockout policy like any other).
      const { events } = await t.store.read.events.search({ aggregateId: userId, limit: 100, offset: 0, asc: true });
      expect(events.map((e) => e.type)).toContain('user.human.password.check.failed');
    }, 10_000);
  });

  describe('the memory bound at login', () => {
    // Hashes the old bounds let in (1 GiB and 256 MiB), stored as if written before this bound.
    for (const [name, stored, reason] of [
      ['scrypt ln=20 r=8 p=4', `$scrypt$ln=20,r=8,p=4$${B64}$${B64}`, 'scrypt memory 128·2^20·8·4 = 4294967296 bytes is above the limit of 67108864 (64 MiB)'],
      ['argon2id m=262144', `$argon2id$v=19$m=262144,t=20,p=16$${B64}$${B64}`, 'argon2id memory m=262144 KiB is above the limit of 65536'],
    ] as const) {
      it(`a stored ${name} is refused at login without being run, and the user still reads`, async () => {
        const userName = `mem-${name.split(' ')[0]}`;
        const userId = `${userName}-id`;
        expect((await importUser(human(userName, { value: BCRYPT }, userId))).status).toBe(200);
        const before = (await t.store.read.users.get(userId))!;
        await t.store.transaction((tx) => tx.logins.setPasswordHash(userId, stored, before.sequence, new Date()));

        const started = performance.now();
        const outcome = await checkPasswordLogin(t.store, t.instanceId, userName, 'password');
        expect(performance.now() - started).toBeLessThan(1000);
        expect(outcome).toEqual({ ok: false, reason: 'invalid_credentials', refusedHash: reason, userId });
        // The row stays readable: the user's own read and the organisation's export both answer.
        const read = await t.call('GET', `/management/v1/users/${userId}`, { headers: { 'x-service-orgid': orgId } });
        expect(read.status).toBe(200);
        const exported = await t.call('POST', '/admin/v1/export', { body: { orgIds: [orgId], withPasswords: true, timeout: '30s', responseOutput: true } });
        expect(exported.status).toBe(200);
        expect(JSON.stringify(await exported.json())).toContain(userId);
      }, 10_000);
    }
  });

  describe("real systems' defaults import, sign in, and a costlier hash than ours is replaced by argon2id", () => {
    const salt = Buffer.from('a7c3e1f09b2d4c6e8f10a2b4c6d8e0f1', 'hex');
    const defaults: Array<{ name: string; make: () => Promise<string>; costlier: boolean }> = [
      // ZITADEL's defaults.yaml: PasswordHasher bcrypt, cost 14 (about 1.5 s here).
      { name: 'ZITADEL bcrypt cost 14', make: async () => bcrypt.hash('password', 14), costlier: true },
      // ZITADEL's argon2id as usually configured: 64 MiB, 3 passes, 4 lanes.
      { name: 'ZITADEL argon2id 64 MiB', make: () => argon2Hash('password', { algorithm: 2 as NonNullable<Options['algorithm']>, memoryCost: 65_536, timeCost: 3, parallelism: 4 }), costlier: true },
      // Keycloak's default since 24 (standard base64, padded, as migration tools write it), and before.
      {
        name: 'Keycloak pbkdf2-sha512 210,000',
        make: async () => `$pbkdf2-sha512$210000$${salt.toString('base64')}$${pbkdf2Sync('password', salt, 210_000, 64, 'sha512').toString('base64')}`,
        costlier: true,
      },
      {
        name: 'Keycloak pbkdf2-sha256 27,500',
        make: async () => `$pbkdf2-sha256$27500$${salt.toString('base64')}$${pbkdf2Sync('password', salt, 27_500, 32, 'sha256').toString('base64')}`,
        costlier: false,
      },
    ];
    for (const [i, d] of defaults.entries()) {
      it(`${d.name}: imports, signs in${d.costlier ? ', is re-hashed with argon2id and signs in again' : ' and is kept (cheaper than ours)'}`, async () => {
        const encoded = await d.make();
        const userId = `real-default-${i}`;
        expect((await importUser(human(`realdefault${i}`, { value: encoded }, userId))).status).toBe(200);

        const first = await checkPasswordLogin(t.store, t.instanceId, `realdefault${i}`, 'password');
        expect(first).toMatchObject({ ok: true, userId, rehashed: d.costlier });
        const stored = (await t.store.read.users.get(userId))!.passwordHash!;
        const { events } = await t.store.read.events.search({ aggregateId: userId, limit: 100, offset: 0, asc: true });
        const updates = events.filter((e) => e.type === 'user.human.password.hash.updated');
        if (!d.costlier) {
          expect(stored).toBe(encoded);
          expect(updates).toHaveLength(0);
          return;
        }
        // The service's own format and parameters (passwords.ts), recorded as the legacy re-hash is.
        expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        expect(updates.map((e) => e.payload)).toEqual([{ algorithm: 'argon2id' }]);
        expect(await checkPasswordLogin(t.store, t.instanceId, `realdefault${i}`, 'password')).toMatchObject({ ok: true, rehashed: false });
        expect(await checkPasswordLogin(t.store, t.instanceId, `realdefault${i}`, 'passwordx')).toMatchObject({ ok: false, reason: 'invalid_credentials' });
        expect((await t.store.read.users.get(userId))!.passwordHash).toBe(stored);
      }, 30_000);
    }
  });

  it('organisation import: supported hashes and an empty value (no password) still import', async () => {
    const res = await importData([
      {
        orgId: 'hash-org-3',
        org: { name: 'Hash Three' },
        humanUsers: [
          { userId: 'h3-bcrypt', user: human('bc', { value: BCRYPT }) },
          { userId: 'h3-none', user: human('none', { value: '' }) },
        ],
      },
    ]);
    expect(res.status).toBe(200);
    expect((await t.store.read.users.get('h3-bcrypt'))?.passwordHash).toBe(BCRYPT);
    expect((await t.store.read.users.get('h3-none'))?.passwordHash).toBeNull();
  });
});
