import { insertHumanUser, insertMachineUserWithToken } from '@identity-service/server/test/support/instance.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

export function machineSecretScenarios(h: () => Harness) {
  it('machine user client secrets: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    const { userId } = await insertMachineUserWithToken(instance);
    const { userId: humanId } = await insertHumanUser(instance, { userName: 'contract-secret-human' });
    const u = (id: string) => ({ params: { path: { userId: id } } });

    const generated = await admin.PUT('/management/v1/users/{userId}/secret', u(userId));
    expect(generated.response.status).toBe(200);
    expect(generated.data?.clientId).toBe(`m-${userId}`);
    expect(generated.data?.clientSecret).toMatch(/^[\w-]{43}$/);
    const again = await admin.PUT('/management/v1/users/{userId}/secret', u(userId));
    expect(again.data?.clientSecret).not.toBe(generated.data?.clientSecret);
    expect((await admin.PUT('/management/v1/users/{userId}/secret', u(humanId))).response.status).toBe(400);
    expect((await anonymous.PUT('/management/v1/users/{userId}/secret', u(userId))).response.status).toBe(401);
    expect((await outsider.PUT('/management/v1/users/{userId}/secret', u(userId))).response.status).toBe(403);
    expect((await admin.PUT('/management/v1/users/{userId}/secret', u('missing'))).response.status).toBe(404);

    expect((await anonymous.DELETE('/management/v1/users/{userId}/secret', u(userId))).response.status).toBe(401);
    expect((await outsider.DELETE('/management/v1/users/{userId}/secret', u(userId))).response.status).toBe(403);
    expect((await admin.DELETE('/management/v1/users/{userId}/secret', u(userId))).response.status).toBe(200);
    expect((await admin.DELETE('/management/v1/users/{userId}/secret', u(userId))).response.status).toBe(404);
    expect((await admin.DELETE('/management/v1/users/{userId}/secret', u(humanId))).response.status).toBe(400);
  });
}
