/**
 * A TOTP code is good once (domain/login/totp.ts keeps the step of the last one accepted). Through a
 * move with `withOtp` — export and import, or a sync's rounds — the code a person last gave the
 * source stays spent at the target: the document carries that step beside the secret
 * (`identityServiceOtpLastStep`), a created user gets it, and an existing one's is raised under
 * OVERWRITE (never lowered). Without it, a code seen at the source (over a shoulder, in a log) could
 * sign in once more at the target for up to a minute and a half after the switch.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkTotpLogin, TOTP_PERIOD_S, totpCode } from '../../src/domain/login/totp.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const ORG = '219387465738291100';
const USER = '219387465738291101';
const STEP_MS = TOTP_PERIOD_S * 1000;

describeEachStore('the last TOTP code accepted stays spent through a move', (dialect) => {
  let source: TestInstance;
  let target: TestInstance;
  const box = processSecretBox();
  // A clock of the test's own, in the middle of a step: a code of `now` is the code of its step.
  const now = Math.floor(Date.now() / STEP_MS) * STEP_MS + STEP_MS / 2;

  beforeAll(async () => {
    [source, target] = await Promise.all([createTestInstance(dialect), createTestInstance(dialect)]);
    const imported = await source.call('POST', '/admin/v1/import', {
      body: {
        timeout: '1m',
        dataOrgs: {
          orgs: [
            {
              orgId: ORG,
              org: { name: 'Replay Guard Co' },
              humanUsers: [
                {
                  userId: USER,
                  user: { userName: 'tina', profile: { firstName: 'Ti', lastName: 'Na' }, email: { email: 'tina@example.com', isEmailVerified: true }, password: 'Passw0rd-Totp!', otpCode: SECRET },
                },
              ],
            },
          ],
        },
      },
    });
    expect(imported.status).toBe(200);
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  const exportOrg = async (body: Record<string, unknown> = { withOtp: true }) => {
    const res = await source.call('POST', '/admin/v1/export', { body: { responseOutput: true, orgIds: [ORG], ...body } });
    expect(res.status).toBe(200);
    return res.json();
  };
  const importInto = async (doc: unknown, conflictPolicy?: string) => {
    const res = await target.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: doc, ...(conflictPolicy ? { conflictPolicy } : {}) } });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const checkAt = (t: TestInstance, at: number) => checkTotpLogin(t.store, box, t.instanceId, USER, totpCode(SECRET, at), at);

  it('a created user keeps the source’s last step; an existing one gets a later step under OVERWRITE, never an earlier one', async () => {
    // Tina signs in at the source with her app's code.
    expect(await checkAt(source, now)).toEqual({ ok: true });
    const doc = await exportOrg();
    expect(doc.orgs[0].humanUsers[0]).toMatchObject({ user: { otpCode: SECRET }, identityServiceOtpLastStep: now / STEP_MS - 0.5 });
    // Without withOtp neither the secret nor its step leaves the source.
    const plain = (await exportOrg({})).orgs[0].humanUsers[0];
    expect(plain.user.otpCode).toBeUndefined();
    expect(plain.identityServiceOtpLastStep).toBeUndefined();

    await importInto(doc);
    // At the target the code she gave the source is spent; the next step's code is hers to use.
    expect(await checkAt(target, now)).toEqual({ ok: false, reason: 'invalid_code' });

    // She signs in at the source again a step later; a sync's round (OVERWRITE) carries that step.
    expect(await checkAt(source, now + STEP_MS)).toEqual({ ok: true });
    await importInto(await exportOrg(), 'OVERWRITE');
    expect(await checkAt(target, now + STEP_MS)).toEqual({ ok: false, reason: 'invalid_code' });

    // The target's own later sign-in is not undone by an older document.
    expect(await checkAt(target, now + 2 * STEP_MS)).toEqual({ ok: true });
    await importInto(doc, 'OVERWRITE');
    expect(await checkAt(target, now + 2 * STEP_MS)).toEqual({ ok: false, reason: 'invalid_code' });
    expect(await checkAt(target, now + 3 * STEP_MS)).toEqual({ ok: true });
  });

  it('a document without the step (ZITADEL’s, or an older export) imports as before', async () => {
    const doc = await exportOrg();
    const zitadelShaped = structuredClone(doc);
    delete zitadelShaped.orgs[0].humanUsers[0].identityServiceOtpLastStep;
    zitadelShaped.orgs[0].orgId = '219387465738291200';
    zitadelShaped.orgs[0].org.name = 'Without Steps Co';
    zitadelShaped.orgs[0].humanUsers[0].userId = '219387465738291201';
    zitadelShaped.orgs[0].humanUsers[0].user.userName = 'tom';
    const res = await target.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: zitadelShaped } });
    expect(res.status).toBe(200);
    expect((await res.json()).errors).toBeUndefined();
    const at = now + 5 * STEP_MS;
    expect(await checkTotpLogin(target.store, box, target.instanceId, '219387465738291201', totpCode(SECRET, at), at)).toEqual({ ok: true });
  });

  it('a step that is no unsigned 32-bit integer is a 400 naming its path, and nothing is written', async () => {
    const doc = await exportOrg();
    doc.orgs[0].orgId = '219387465738291300';
    doc.orgs[0].org.name = 'Bad Step Co';
    doc.orgs[0].humanUsers[0].userId = '219387465738291301';
    doc.orgs[0].humanUsers[0].identityServiceOtpLastStep = -4;
    const res = await target.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: doc } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('identityServiceOtpLastStep');
    expect(await target.store.read.orgs.get('219387465738291300')).toBeUndefined();
  });
});
