import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const suffix = () => randomUUID().slice(0, 8);
const userPath = (userId: string) => ({ params: { path: { userId } } });

/** AddHumanUser, UpdateHumanProfile, UpdateHumanPhone, RemoveHumanPhone, UpdateMachine, SetHumanPassword, SendHumanResetPasswordNotification. */
export function userChangeScenarios(h: () => Harness) {
  it('add a human with an initial password, change the profile, a machine and a password: 200, 400, 401, 403, 404, 409', async () => {
    const { admin, anonymous } = h();
    const userName = `added-${suffix()}`;
    const body = { userName, profile: { firstName: 'Ad', lastName: 'Ded' }, email: { email: `${userName}@example.com`, isEmailVerified: true } };
    // The default complexity policy: 8 characters with lower, upper, digit and symbol.
    const weak = await admin.POST('/management/v1/users/human', { body: { ...body, initialPassword: 'short' } });
    expect(weak.response.status).toBe(400);
    expect(weak.error?.message).toMatch(/^invalid password: must be at least 8 characters long/);
    const added = await admin.POST('/management/v1/users/human', { body: { ...body, initialPassword: 'Initi4l-Pass!' } });
    expect(added.response.status).toBe(200);
    const userId = added.data!.userId;
    expect((await admin.POST('/management/v1/users/human', { body })).response.status).toBe(409);
    expect((await anonymous.POST('/management/v1/users/human', { body })).response.status).toBe(401);
    const { client } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    expect((await client.POST('/management/v1/users/human', { body: { ...body, userName: `${userName}-x` } })).response.status).toBe(403);

    const profile = { firstName: 'New', lastName: 'Name', nickName: 'nn' };
    expect((await admin.PUT('/management/v1/users/{userId}/profile', { ...userPath(userId), body: profile })).response.status).toBe(200);
    const unchanged = await admin.PUT('/management/v1/users/{userId}/profile', { ...userPath(userId), body: profile });
    expect(unchanged.response.status).toBe(400);
    expect(unchanged.error?.details?.[0]?.id).toBe('COMMAND-2M0fs');
    expect((await admin.GET('/management/v1/users/{userId}', userPath(userId))).data?.user.human?.profile).toMatchObject({
      firstName: 'New',
      lastName: 'Name',
      nickName: 'nn',
      displayName: 'New Name',
    });
    expect((await admin.PUT('/management/v1/users/{userId}/profile', { params: { path: { userId: 'missing' } }, body: profile })).response.status).toBe(404);
    expect((await anonymous.PUT('/management/v1/users/{userId}/profile', { ...userPath(userId), body: profile })).response.status).toBe(401);
    expect((await client.PUT('/management/v1/users/{userId}/profile', { ...userPath(userId), body: profile })).response.status).toBe(403);

    const machine = await admin.POST('/management/v1/users/machine', { body: { userName: `m-${suffix()}`, name: 'Machine' } });
    const machineId = machine.data!.userId;
    expect((await admin.PUT('/management/v1/users/{userId}/machine', { ...userPath(machineId), body: { name: 'Renamed', description: 'd' } })).response.status).toBe(200);
    expect((await admin.PUT('/management/v1/users/{userId}/machine', { ...userPath(machineId), body: { name: 'Renamed', description: 'd' } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/users/{userId}/machine', { ...userPath(userId), body: { name: 'x' } })).response.status).toBe(404);
    expect((await admin.GET('/management/v1/users/{userId}', userPath(machineId))).data?.user.machine).toMatchObject({ name: 'Renamed', description: 'd' });
    expect((await anonymous.PUT('/management/v1/users/{userId}/machine', { ...userPath(machineId), body: { name: 'x' } })).response.status).toBe(401);
    expect((await client.PUT('/management/v1/users/{userId}/machine', { ...userPath(machineId), body: { name: 'x' } })).response.status).toBe(403);

    expect((await admin.POST('/management/v1/users/{userId}/password', { ...userPath(userId), body: { password: 'N3w-Passw0rd!', noChangeRequired: true } })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/password', { ...userPath(userId), body: { password: 'nouppercase1!' } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/password', { ...userPath(machineId), body: { password: 'N3w-Passw0rd!' } })).response.status).toBe(404);
    expect((await anonymous.POST('/management/v1/users/{userId}/password', { ...userPath(userId), body: { password: 'N3w-Passw0rd!' } })).response.status).toBe(401);
    expect((await client.POST('/management/v1/users/{userId}/password', { ...userPath(userId), body: { password: 'N3w-Passw0rd!' } })).response.status).toBe(403);

    // The phone: 200, 400 (not a global number; unchanged), 404 (a machine user; no phone to remove), 401, 403.
    const phone = { phone: '+41 79 123 45 67' };
    expect((await admin.PUT('/management/v1/users/{userId}/phone', { ...userPath(userId), body: phone })).response.status).toBe(200);
    expect((await admin.PUT('/management/v1/users/{userId}/phone', { ...userPath(userId), body: phone })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/users/{userId}/phone', { ...userPath(userId), body: { phone: '+not a number' } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/users/{userId}/phone', { ...userPath(machineId), body: phone })).response.status).toBe(404);
    expect((await admin.GET('/management/v1/users/{userId}', userPath(userId))).data?.user.human?.phone).toEqual({ phone: '+41 79 123 45 67' });
    expect((await admin.DELETE('/management/v1/users/{userId}/phone', userPath(userId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/users/{userId}/phone', userPath(userId))).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/users/{userId}/phone', { params: { path: { userId: 'a\u0000b' } } })).response.status).toBe(400);
    for (const [c, status] of [
      [anonymous, 401],
      [client, 403],
    ] as const) {
      expect((await c.PUT('/management/v1/users/{userId}/phone', { ...userPath(userId), body: phone })).response.status).toBe(status);
      expect((await c.DELETE('/management/v1/users/{userId}/phone', userPath(userId))).response.status).toBe(status);
    }

    // The reset mail: 200 (queued), 400 (SMS; an initial user), 404, 401, 403.
    expect((await admin.POST('/management/v1/users/{userId}/password/_reset', { ...userPath(userId), body: {} })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/password/_reset', { ...userPath(userId), body: { type: 'NOTIFICATION_TYPE_Sms' } })).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/password/_reset', { ...userPath(machineId), body: {} })).response.status).toBe(404);
    expect((await anonymous.POST('/management/v1/users/{userId}/password/_reset', { ...userPath(userId), body: {} })).response.status).toBe(401);
    expect((await client.POST('/management/v1/users/{userId}/password/_reset', { ...userPath(userId), body: {} })).response.status).toBe(403);
  });
}
