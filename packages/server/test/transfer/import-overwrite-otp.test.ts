/**
 * An import under OVERWRITE takes an existing user's TOTP secret from the document (issue 51: a
 * second factor set up at a sync's source arrives at the target): the new secret's codes sign in,
 * the old one's no longer; the change event names the field, never the secret; the same document
 * again changes nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkTotpLogin, totpCode } from '../../src/domain/login/totp.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const OLD_SECRET = 'JBSWY3DPEHPK3PXP';
const NEW_SECRET = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU';

describeEachStore('an import under OVERWRITE and an existing user\u2019s TOTP secret', (dialect) => {
  let t: TestInstance;
  const orgId = '318446427791228000';
  const userId = '318446427791228001';
  const document = (otpCode: string) => ({
    orgs: [
      {
        orgId,
        org: { name: 'Otp Org' },
        humanUsers: [
          {
            userId,
            user: {
              userName: 'otp.user',
              profile: { firstName: 'O', lastName: 'T' },
              email: { email: 'otp@example.com', isEmailVerified: true },
              hashedPassword: { value: '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy' },
              otpCode,
            },
          },
        ],
      },
    ],
  });
  const importDoc = async (otpCode: string) => (await t.call('POST', '/admin/v1/import', { body: { timeout: '30s', conflictPolicy: 'OVERWRITE', dataOrgs: document(otpCode) } })).json();
  const signsIn = async (secret: string, at: number) => (await checkTotpLogin(t.store, processSecretBox(), t.instanceId, userId, totpCode(secret, at), at)).ok;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    await importDoc(OLD_SECRET);
  });
  afterAll(() => t?.close());

  it('replaces the secret, with an event naming the field only, and is unchanged the second time', async () => {
    expect(await signsIn(OLD_SECRET, Date.now())).toBe(true);
    const changed = await importDoc(NEW_SECRET);
    expect(changed.summaryByType.human_user).toMatchObject({ changed: 1 });
    // Later time steps: a code is accepted once per step.
    expect(await signsIn(NEW_SECRET, Date.now() + 60_000)).toBe(true);
    expect(await signsIn(OLD_SECRET, Date.now() + 120_000)).toBe(false);
    const events = (await (await t.call('POST', '/admin/v1/events/_search', { body: { aggregateId: userId, asc: true } })).json()).events;
    const change = events.find((e: { type: { type: string } }) => e.type.type === 'user.human.changed');
    expect(change.payload).toMatchObject({ changed: ['otp'] });
    expect(JSON.stringify(events)).not.toContain(NEW_SECRET);
    const again = await importDoc(NEW_SECRET);
    expect(again.summaryByType.human_user).toMatchObject({ unchanged: 1, changed: 0 });
  });
});
