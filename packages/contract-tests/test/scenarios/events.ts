import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

export function eventScenarios(h: () => Harness) {
  it('events: the audit trail with its editor; 400, 401, 403', async () => {
    const { admin, anonymous, instance } = h();
    const created = await admin.POST('/management/v1/projects', { body: { name: 'Contract audited' } });
    const res = await admin.POST('/admin/v1/events/_search', { body: { aggregateId: created.data!.id, aggregateTypes: ['project'], asc: true } });
    expect(res.response.status).toBe(200);
    expect(res.data?.events[0]).toMatchObject({ type: { type: 'project.added' }, sequence: '1', editor: { userId: instance.adminUserId } });
    expect((await admin.POST('/admin/v1/events/_search', { body: { limit: 100000 } })).response.status).toBe(400);
    expect((await anonymous.POST('/admin/v1/events/_search', { body: {} })).response.status).toBe(401);
    const { client } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    expect((await client.POST('/admin/v1/events/_search', { body: {} })).response.status).toBe(403);
  });
}
