/**
 * A sign-in's checks (password, authenticator code) append their events and move the user's row
 * along its trail, but change nothing authentication reads: they must not empty the authentication
 * caches (store/auth-writes.ts) that every API call beside them is served from — at a hundred
 * sign-ins a second, nothing would stay cached. A check that locks the user does change what
 * authentication reads, and does empty them: the locked user's tokens stop at once. The user's
 * change date (userinfo's `updated_at`) stays the last change's, as ZITADEL's does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkPasswordLogin } from '../../src/domain/login/password-login.js';
import { checkTotpLogin, TOTP_PERIOD_S, totpCode } from '../../src/domain/login/totp.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const PASSWORD = 'Passw0rd-Cache!';
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const ORG = '219387465738292100';
const USER = '219387465738292101';

describeEachStore('a sign-in keeps the authentication caches', (dialect) => {
  let t: TestInstance;
  const box = processSecretBox();
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    const res = await t.call('POST', '/admin/v1/import', {
      body: {
        timeout: '1m',
        dataOrgs: {
          orgs: [
            {
              orgId: ORG,
              org: { name: 'Cache Co' },
              lockoutPolicy: { maxPasswordAttempts: 3, maxOtpAttempts: 0 },
              humanUsers: [
                {
                  userId: USER,
                  user: { userName: 'cora', profile: { firstName: 'Co', lastName: 'Ra' }, email: { email: 'cora@example.com', isEmailVerified: true }, password: PASSWORD, otpCode: SECRET },
                },
              ],
            },
          ],
        },
      },
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => t?.close());

  const details = async () => (await (await t.call('GET', `/management/v1/users/${USER}`, { headers: { 'x-service-orgid': ORG } })).json()).user.details;
  const lastEventSequence = async () => {
    const { events } = await t.store.read.events.search({ limit: 1000, offset: 0, asc: true });
    return String(events.filter((e) => e.aggregateId === USER).at(-1)!.sequence);
  };

  it('passed and failed checks move the row’s sequence, not the generation or the change date; a lock does', async () => {
    const before = await details();
    const generation = t.store.authGeneration();
    const signIn = (password: string) => checkPasswordLogin(t.store, t.instanceId, 'cora', password);

    expect(await signIn(PASSWORD)).toMatchObject({ ok: true, otpRequired: true });
    const at = Math.floor(Date.now() / 1000 / TOTP_PERIOD_S) * TOTP_PERIOD_S * 1000 + 1000;
    expect(await checkTotpLogin(t.store, box, t.instanceId, USER, totpCode(SECRET, at), at)).toEqual({ ok: true });
    expect(await signIn('wrong')).toMatchObject({ ok: false, reason: 'invalid_credentials' });
    expect(t.store.authGeneration()).toBe(generation);

    const after = await details();
    expect(after.sequence).toBe(await lastEventSequence());
    expect(Number(after.sequence)).toBeGreaterThan(Number(before.sequence));
    expect(after.changeDate).toBe(before.changeDate);

    // Two more failures reach the policy's 3: the lock is an authentication write.
    expect(await signIn('wrong')).toMatchObject({ reason: 'invalid_credentials' });
    expect(await signIn('wrong')).toMatchObject({ reason: 'locked' });
    expect(t.store.authGeneration()).toBeGreaterThan(generation);
    expect((await details()).sequence).toBe(await lastEventSequence());
  });
});
