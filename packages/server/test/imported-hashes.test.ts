import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSupportedPasswordHash } from '../src/domain/users/hashed-password.js';
import { createTestInstance, describeEachStore, type TestInstance } from './support/instance.js';

const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
// Encodings passwap/ZITADEL-style importers meet but this service cannot verify at login.
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
