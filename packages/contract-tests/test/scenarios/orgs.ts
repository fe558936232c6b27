import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

export function orgScenarios(h: () => Harness) {
  it("orgs/me: the caller's organisation, 401 without a token, 403 without org.read or for an unknown org", async () => {
    const { admin, anonymous, instance } = h();
    const me = await admin.GET('/management/v1/orgs/me');
    expect(me.data?.org.id).toBe(instance.defaultOrgId);
    expect((await anonymous.GET('/management/v1/orgs/me')).response.status).toBe(401);
    const unknownOrg = await admin.GET('/management/v1/orgs/me', { headers: { 'x-service-orgid': 'no-such-org' } });
    expect(unknownOrg.response.status).toBe(403);
  });
}
