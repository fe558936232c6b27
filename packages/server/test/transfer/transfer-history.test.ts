/**
 * History carried through a move (issue 51): an organisation exported with `withHistory` from one
 * instance and imported into another arrives with its trail — the target's ListUserChanges and
 * ListOrgChanges list the source's changes (types, sequences, dates, editors) and then the
 * import's own event; no payload of the document carries a secret; without the option the document
 * and the import are as before; a history that cannot be a source's trail (an unknown event type, a
 * gap) is a 400 naming its path, and nothing is written. Two instances on one store kind, both stores.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectRefusedBeforeAnyWrite, secretFields } from '../support/carried-history.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

interface Change {
  changeDate: string;
  eventType: { key: string };
  sequence: string;
  editorId: string;
}

describeEachStore('history carried through a move', (dialect) => {
  let source: TestInstance;
  let target: TestInstance;
  let orgId: string;
  let humanId: string;
  let machineId: string;
  const PASSWORD = 'Correct-Horse-7-Battery';
  const IDP_SECRET = 'idp-client-secret-that-must-not-travel';
  const stamp = Date.now().toString(36);

  const ok = async (t: TestInstance, method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-service-orgid': orgId }) => {
    const res = await t.call(method, path, { body, headers });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBe(200);
    return JSON.parse(text);
  };
  const changes = async (t: TestInstance, path: string): Promise<Change[]> => (await ok(t, 'POST', path, { query: { asc: true, limit: 1000 } })).result;
  const comparable = (list: Change[]) => list.map((c) => ({ type: c.eventType.key, sequence: c.sequence, date: c.changeDate, editor: c.editorId }));
  const exportOrg = async (t: TestInstance, extra: Record<string, unknown> = {}) => ok(t, 'POST', '/admin/v1/export', { orgIds: [orgId], responseOutput: true, timeout: '1m', ...extra }, {});

  beforeAll(async () => {
    [source, target] = await Promise.all([createTestInstance(dialect), createTestInstance(dialect)]);
    // At the source: an organisation with a history of its own, a person and a service account, each changed a few times.
    orgId = (await ok(source, 'POST', '/management/v1/orgs', { name: `History ${stamp}` }, {})).id;
    await ok(source, 'POST', '/management/v1/orgs/me/domains', { domain: `history-${stamp}.example.com` });
    await ok(source, 'POST', '/management/v1/idps/oidc', {
      name: 'Corporate',
      clientId: 'corp',
      clientSecret: IDP_SECRET,
      issuer: 'https://idp.example.com',
      scopes: ['openid'],
      displayNameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME',
      usernameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME',
    });
    humanId = (
      await ok(source, 'POST', '/management/v1/users/human/_import', {
        userName: `gigi-${stamp}`,
        profile: { firstName: 'Gigi', lastName: 'Giraffe' },
        email: { email: `gigi-${stamp}@example.com`, isEmailVerified: true },
        password: PASSWORD,
      })
    ).userId;
    await ok(source, 'PUT', `/management/v1/users/${humanId}/profile`, { firstName: 'Gigi', lastName: 'Longneck' });
    await ok(source, 'POST', `/management/v1/users/${humanId}/password`, { password: `${PASSWORD}-2`, noChangeRequired: true });
    await ok(source, 'POST', `/management/v1/users/${humanId}/_lock`, {});
    await ok(source, 'POST', '/management/v1/orgs/me/members', { userId: humanId, roles: ['ORG_USER_MANAGER'] });
    machineId = (await ok(source, 'POST', '/management/v1/users/machine', { userName: `robot-${stamp}`, name: 'Robot' })).userId;
    await ok(source, 'PUT', `/management/v1/users/${machineId}/secret`, {});
  }, 60_000);
  afterAll(async () => {
    await Promise.all([source, target].map((t) => t?.close()));
  });

  it('without withHistory the document carries no events and the import appends none per user', async () => {
    const document = await exportOrg(source);
    expect(JSON.stringify(document)).not.toMatch(/identityService(Org)?History/);
    const plain = await createTestInstance(dialect);
    try {
      const imported = await ok(plain, 'POST', '/admin/v1/import', { timeout: '1m', dataOrgs: document }, {});
      expect(imported.success.orgs[0].humanUserIds).toEqual([humanId]);
      // Imported resources arrive without their event stream (description §4.5): the users' lists are empty.
      for (const userId of [humanId, machineId]) expect(await changes(plain, `/management/v1/users/${userId}/changes/_search`)).toEqual([]);
      expect((await changes(plain, '/management/v1/orgs/me/changes/_search')).map((c) => c.eventType.key)).toEqual(['EventTypes.org.data.imported']);
    } finally {
      await plain.close();
    }
  });

  it('a history with an event type this service does not know, or with a gap, is a 400 naming its path, and nothing is written', async () => {
    const document = await exportOrg(source, { withHistory: true });
    const unknownType = structuredClone(document);
    unknownType.orgs[0].humanUsers[0].identityServiceHistory[1].type = 'user.teleported';
    const gap = structuredClone(document);
    gap.orgs[0].identityServiceOrgHistory[1].sequence = '7';
    const wrongAggregate = structuredClone(document);
    wrongAggregate.orgs[0].machineUsers[0].identityServiceHistory[0].type = 'org.added';
    await expectRefusedBeforeAnyWrite(target, [
      [unknownType, 'orgs[0].humanUsers[0].identityServiceHistory[1].type'],
      [gap, 'orgs[0].identityServiceOrgHistory[1].sequence'],
      [wrongAggregate, 'orgs[0].machineUsers[0].identityServiceHistory[0].type'],
    ]);
    expect(await target.store.read.orgs.get(orgId)).toBeUndefined();
  });

  it("a move with withHistory: the target's change lists are the source's, then the import", async () => {
    const document = await exportOrg(source, { withHistory: true });
    const org = document.orgs[0];
    // No secret travels in a history without the secrets' options: not the passwords, not the provider's client secret.
    const histories = [
      org.identityServiceOrgHistory,
      ...org.humanUsers.map((u: { identityServiceHistory: unknown }) => u.identityServiceHistory),
      ...org.machineUsers.map((u: { identityServiceHistory: unknown }) => u.identityServiceHistory),
    ];
    expect(secretFields(histories)).toEqual([]);
    expect(JSON.stringify(document)).not.toContain(PASSWORD);
    expect(JSON.stringify(document)).not.toContain(IDP_SECRET);
    expect(org.humanUsers[0].identityServiceHistory.map((e: { type: string }) => e.type)).toEqual(['user.human.added', 'user.human.profile.changed', 'user.human.password.changed', 'user.locked']);

    const imported = await ok(target, 'POST', '/admin/v1/import', { timeout: '1m', dataOrgs: document }, {});
    expect(imported.errors ?? []).toEqual([]);

    for (const userId of [humanId, machineId]) {
      const at = { source: await changes(source, `/management/v1/users/${userId}/changes/_search`), target: await changes(target, `/management/v1/users/${userId}/changes/_search`) };
      expect(at.source.length).toBeGreaterThan(1);
      expect(comparable(at.target.slice(0, -1))).toEqual(comparable(at.source));
      const last = at.target[at.target.length - 1];
      expect(last).toMatchObject({ eventType: { key: 'EventTypes.user.data.imported' }, sequence: String(at.source.length + 1), editorId: target.adminUserId });
    }
    const orgChanges = { source: await changes(source, '/management/v1/orgs/me/changes/_search'), target: await changes(target, '/management/v1/orgs/me/changes/_search') };
    expect(orgChanges.source.map((c) => c.eventType.key)).toEqual(
      expect.arrayContaining(['EventTypes.org.added', 'EventTypes.org.domain.added', 'EventTypes.org.idp.config.added', 'EventTypes.org.member.added']),
    );
    expect(comparable(orgChanges.target.slice(0, orgChanges.source.length))).toEqual(comparable(orgChanges.source));
    // Then the import's events: its identity provider's (its events are the organisation's), then the organisation's.
    expect(orgChanges.target.slice(orgChanges.source.length).map((c) => ({ type: c.eventType.key, editor: c.editorId }))).toEqual([
      { type: 'EventTypes.org.idp.data.imported', editor: target.adminUserId },
      { type: 'EventTypes.org.data.imported', editor: target.adminUserId },
    ]);

    // Each carried event is marked as imported; the user's state row stands at the import's event.
    const { events } = await target.store.read.events.search({ aggregateTypes: ['user'], aggregateId: humanId, limit: 100, offset: 0, asc: true });
    expect(events.slice(0, -1).every((e) => e.payload.identityServiceImported === true)).toBe(true);
    expect(events[events.length - 1].payload).toEqual({ importedEvents: events.length - 1 });
    const user = await target.store.read.users.get(humanId);
    expect(user?.sequence).toBe(events.length);
    expect(user?.createdAt.toISOString()).toBe(events[0].createdAt.toISOString());
    expect(user?.state).toBe('USER_STATE_LOCKED');
  });
});
