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

  it('event and aggregate types: 200, 400, 401, 403', async () => {
    const { admin, anonymous } = h();
    const { client } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    for (const path of ['/admin/v1/events/types/_search', '/admin/v1/aggregates/types/_search'] as const) {
      expect((await admin.POST(path, { body: {} })).response.status).toBe(200);
      expect((await admin.POST(path, { body: { unknown: true } as never })).response.status).toBe(400);
      expect((await anonymous.POST(path, { body: {} })).response.status).toBe(401);
      expect((await client.POST(path, { body: {} })).response.status).toBe(403);
    }
    const types = await admin.POST('/admin/v1/events/types/_search', { body: {} });
    expect(types.data?.eventTypes).toContainEqual({ type: 'project.added', localized: { key: 'EventTypes.project.added', localizedMessage: 'Project added' } });
    const aggregates = await admin.POST('/admin/v1/aggregates/types/_search', { body: {} });
    expect(aggregates.data?.aggregateTypes.map((a) => a.type)).toContain('project');
  });

  it('the change lists of a user, the organisation, a project and an application: 200, 400, 401, 403', async () => {
    const { admin, anonymous, instance } = h();
    const project = (await admin.POST('/management/v1/projects', { body: { name: 'Contract history' } })).data!.id;
    const app = (await admin.POST('/management/v1/projects/{projectId}/apps/api', { params: { path: { projectId: project } }, body: { name: 'api', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' } }))
      .data!.appId;
    const { client } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
    const { client: noOrgRead } = await h().userWithRoles({ org: ['ORG_PROJECT_CREATOR'] });

    const user = { params: { path: { userId: instance.adminUserId } } };
    const userChanges = await admin.POST('/management/v1/users/{userId}/changes/_search', { ...user, body: { query: { limit: 1 } } });
    expect(userChanges.response.status).toBe(200);
    expect(userChanges.data?.result[0]).toMatchObject({ eventType: { key: expect.stringMatching(/^EventTypes\.user\./) }, resourceOwnerId: expect.any(String) });
    expect((await admin.POST('/management/v1/users/{userId}/changes/_search', { ...user, body: { query: { limit: 5000 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/users/{userId}/changes/_search', { ...user, body: {} })).response.status).toBe(401);
    expect((await client.POST('/management/v1/users/{userId}/changes/_search', { ...user, body: {} })).response.status).toBe(403);

    const orgChanges = await admin.POST('/management/v1/orgs/me/changes/_search', { body: { query: { asc: true, limit: 1 } } });
    expect(orgChanges.response.status).toBe(200);
    expect(orgChanges.data?.result[0]?.eventType.key).toBe('EventTypes.org.added');
    expect((await admin.POST('/management/v1/orgs/me/changes/_search', { body: { query: { sequence: 'first' } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/orgs/me/changes/_search', { body: {} })).response.status).toBe(401);
    expect((await noOrgRead.POST('/management/v1/orgs/me/changes/_search', { body: {} })).response.status).toBe(403);

    const inProject = { params: { path: { projectId: project } } };
    const projectChanges = await admin.POST('/management/v1/projects/{projectId}/changes/_search', { params: { path: { projectId: project }, query: { 'query.asc': 'true', 'query.limit': '1' } } });
    expect(projectChanges.response.status).toBe(200);
    expect(projectChanges.data?.result.map((c) => c.eventType.key)).toEqual(['EventTypes.project.added']);
    expect(
      (await admin.POST('/management/v1/projects/{projectId}/changes/_search', { params: { path: { projectId: project }, query: { 'query.limit': '1' } }, body: { query: { limit: 1 } } })).response
        .status,
    ).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/changes/_search', { ...inProject, body: {} })).response.status).toBe(401);
    expect((await client.POST('/management/v1/projects/{projectId}/changes/_search', { ...inProject, body: {} })).response.status).toBe(403);

    const inApp = { params: { path: { projectId: project, appId: app } } };
    const appChanges = await admin.POST('/management/v1/projects/{projectId}/apps/{appId}/changes/_search', { ...inApp, body: { query: { asc: true } } });
    expect(appChanges.response.status).toBe(200);
    expect(appChanges.data?.result.map((c) => c.eventType.key)).toEqual(['EventTypes.project.application.added', 'EventTypes.project.application.config.api.added']);
    expect((await admin.POST('/management/v1/projects/{projectId}/apps/{appId}/changes/_search', { ...inApp, body: { query: { limit: -1 } } })).response.status).toBe(400);
    expect((await anonymous.POST('/management/v1/projects/{projectId}/apps/{appId}/changes/_search', { ...inApp, body: {} })).response.status).toBe(401);
    expect((await client.POST('/management/v1/projects/{projectId}/apps/{appId}/changes/_search', { ...inApp, body: {} })).response.status).toBe(403);
  });
}
