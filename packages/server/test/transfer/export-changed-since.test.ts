/**
 * The incremental export (issue 51, domain/transfer/changes.ts): `changedSince` answers only what
 * the chosen organisations' events after the checkpoint touched, the removals since, and the
 * checkpoint to ask from next time; nothing changed before the checkpoint appears.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

interface ExportAnswer {
  checkpoint: string;
  removed: { orgId: string; orgRemoved?: boolean; resources: ({ kind: string } & Record<string, string>)[] }[];
  orgs: {
    orgId: string;
    humanUsers?: { userId: string; user: { profile: { firstName: string }; hashedPassword?: { value: string } } }[];
    userGrants?: { userId: string; identityServiceGrantId: string; roleKeys: string[] }[];
    projects?: unknown[];
    projectRoles?: { roleKey: string }[];
    userMetadata?: { id: string; key: string }[];
  }[];
}

describeEachStore('the incremental export (changedSince)', (dialect) => {
  let t: TestInstance;
  let orgId: string;
  let otherOrgId: string;
  let projectId: string;
  const inOrg = (id: string) => ({ 'x-service-orgid': id });
  const json = async (res: Response) => {
    const body = await res.json();
    if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const addHuman = async (org: string, userName: string) =>
    (
      await json(
        await t.call('POST', '/management/v1/users/human/_import', {
          headers: inOrg(org),
          body: {
            userName,
            profile: { firstName: userName, lastName: 'Sync' },
            email: { email: `${userName}@example.com`, isEmailVerified: true },
            password: 'Passw0rd!-initial',
            passwordChangeRequired: false,
          },
        }),
      )
    ).userId as string;
  const grant = async (userId: string) =>
    (await json(await t.call('POST', `/management/v1/users/${userId}/grants`, { headers: inOrg(orgId), body: { projectId, roleKeys: ['reader'] } }))).userGrantId as string;
  const exportSince = async (changedSince: string, orgIds = [orgId]): Promise<ExportAnswer> =>
    json(await t.call('POST', '/admin/v1/export', { body: { orgIds, changedSince, responseOutput: true, withPasswords: true, timeout: '30s' } }));

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgId = (await json(await t.call('POST', '/management/v1/orgs', { body: { name: 'Sync Source' } }))).id;
    otherOrgId = (await json(await t.call('POST', '/management/v1/orgs', { body: { name: 'Not Followed' } }))).id;
    projectId = (await json(await t.call('POST', '/management/v1/projects', { headers: inOrg(orgId), body: { name: 'Followed Project' } }))).id;
    await json(await t.call('POST', `/management/v1/projects/${projectId}/roles`, { headers: inOrg(orgId), body: { roleKey: 'reader', displayName: 'Reader' } }));
  });
  afterAll(() => t?.close());

  it('answers the whole organisation with the checkpoint from "0", then only what changed after it, with the removals', async () => {
    const changed = await addHuman(orgId, 'changed.user');
    const untouched = await addHuman(orgId, 'untouched.user');
    const removed = await addHuman(orgId, 'removed.user');
    const removedGrant = await grant(untouched);
    const keptGrant = await grant(removed);

    const first = await exportSince('0');
    expect(Number(first.checkpoint)).toBeGreaterThan(0);
    expect(first.removed).toEqual([]);
    expect(first.orgs.map((o) => o.orgId)).toEqual([orgId]);
    expect(first.orgs[0].humanUsers!.map((u) => u.userId).sort()).toEqual([changed, untouched, removed].sort());
    expect(first.orgs[0].projects).toHaveLength(1);

    // After the checkpoint: a change of profile, a new password, a new user with a grant and
    // metadata, a grant and a user removed, and a user in an organisation not followed.
    await json(await t.call('PUT', `/management/v1/users/${changed}/profile`, { headers: inOrg(orgId), body: { firstName: 'Renamed', lastName: 'Sync' } }));
    await json(await t.call('POST', `/management/v1/users/${changed}/password`, { headers: inOrg(orgId), body: { password: 'Passw0rd!-changed', noChangeRequired: true } }));
    const created = await addHuman(orgId, 'created.user');
    const createdGrant = await grant(created);
    await json(await t.call('POST', `/management/v1/users/${created}/metadata/team`, { headers: inOrg(orgId), body: { value: Buffer.from('blue').toString('base64') } }));
    await json(await t.call('DELETE', `/management/v1/users/${untouched}/grants/${removedGrant}`, { headers: inOrg(orgId) }));
    await json(await t.call('DELETE', `/management/v1/users/${removed}`, { headers: inOrg(orgId) }));
    await addHuman(otherOrgId, 'elsewhere.user');

    const next = await exportSince(first.checkpoint);
    expect(Number(next.checkpoint)).toBeGreaterThan(Number(first.checkpoint));
    expect(next.orgs.map((o) => o.orgId)).toEqual([orgId]);
    const org = next.orgs[0];
    const users = new Map(org.humanUsers!.map((u) => [u.userId, u.user]));
    expect([...users.keys()].sort()).toEqual([changed, created].sort());
    expect(users.get(changed)!.profile.firstName).toBe('Renamed');
    expect(users.get(changed)!.hashedPassword!.value).toMatch(/^\$/);
    expect(org.userGrants!.map((g) => g.identityServiceGrantId)).toEqual([createdGrant]);
    expect(org.userMetadata).toEqual([{ id: created, key: 'team', value: Buffer.from('blue').toString('base64') }]);
    // Nothing of the organisation's own changed after the checkpoint: its projects stay out.
    expect(org.projects).toBeUndefined();
    // The removed user's grant went with it (a cascade, after it), the other was removed on its own: in the order they were.
    const removals = next.removed.find((r) => r.orgId === orgId)!;
    expect(removals.resources).toEqual([
      { kind: 'user_grant', userId: untouched, grantId: removedGrant },
      { kind: 'user', userId: removed },
      { kind: 'user_grant', userId: removed, grantId: keptGrant },
    ]);

    // A change of the organisation's own resources brings them whole.
    await json(await t.call('POST', `/management/v1/projects/${projectId}/roles`, { headers: inOrg(orgId), body: { roleKey: 'writer', displayName: 'Writer' } }));
    const third = await exportSince(next.checkpoint);
    expect(third.orgs[0].humanUsers).toBeUndefined();
    expect(third.orgs[0].projectRoles!.map((r) => r.roleKey).sort()).toEqual(['reader', 'writer']);
    expect(third.removed).toEqual([]);

    // Nothing since: no organisation, the same checkpoint.
    const idle = await exportSince(third.checkpoint);
    expect(idle).toMatchObject({ checkpoint: third.checkpoint, removed: [], orgs: [] });
    // The caller's own changes do not count with changedByOthers: the admin made all of them.
    const byOthers = await json(await t.call('POST', '/admin/v1/export', { body: { orgIds: [orgId], changedSince: first.checkpoint, changedByOthers: true, responseOutput: true } }));
    expect(byOthers).toMatchObject({ checkpoint: third.checkpoint, removed: [], orgs: [] });
    // Beyond the log's end: nothing, and the log's last position (how sync reads its target's).
    expect(await exportSince('999999999999999')).toMatchObject({ checkpoint: third.checkpoint, removed: [], orgs: [] });

    // An import writes one event for the organisation, none per user it creates: the organisation comes whole.
    const importedId = '318446427791228931';
    const imported = await json(
      await t.call('POST', '/admin/v1/import', {
        body: {
          timeout: '30s',
          dataOrgs: {
            orgs: [
              {
                orgId,
                org: { name: 'Sync Source' },
                humanUsers: [
                  {
                    userId: importedId,
                    user: { userName: 'imported.user', profile: { firstName: 'Imported', lastName: 'Sync' }, email: { email: 'imported@example.com', isEmailVerified: true } },
                  },
                ],
              },
            ],
          },
        },
      }),
    );
    expect(imported.success.orgs[0].humanUserIds).toEqual([importedId]);
    const afterImport = await exportSince(idle.checkpoint);
    expect(afterImport.orgs[0].humanUsers!.map((u) => u.userId).sort()).toEqual([changed, untouched, created, importedId].sort());
  });

  it.runIf(dialect === 'postgres')('never moves the checkpoint past a writer still in flight below the last visible position (PostgreSQL commits out of order)', async () => {
    const held = await addHuman(orgId, 'held.user');
    const start = await exportSince('999999999999999');
    // A transaction takes a position and stays open; a later change commits past it.
    const client = new pg.Client({ connectionString: t.location.target });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(
        "insert into events (aggregate_type, aggregate_id, sequence, type, payload, creator, resource_owner, created_at) values ('user', $1, 1000, 'user.human.profile.changed', '{}', 'TEST', $2, now())",
        [held, orgId],
      );
      const later = await addHuman(orgId, 'later.user');
      const during = await exportSince(start.checkpoint);
      // What committed is answered, but the checkpoint stays where it was: the held position is below it.
      expect(during.orgs[0].humanUsers!.map((u) => u.userId)).toEqual([later]);
      expect(during.checkpoint).toBe(start.checkpoint);
      await client.query('commit');
      const after = await exportSince(during.checkpoint);
      expect(after.orgs[0].humanUsers!.map((u) => u.userId).sort()).toEqual([held, later].sort());
      expect(Number(after.checkpoint)).toBeGreaterThan(Number(start.checkpoint));
    } finally {
      await client.end();
    }
  });

  it('refuses a checkpoint that is not a position with a 400, as other bad input', async () => {
    for (const changedSince of ['-1', 'abc', '1.5']) {
      const res = await t.call('POST', '/admin/v1/export', { body: { orgIds: [orgId], changedSince, responseOutput: true } });
      expect(res.status, changedSince).toBe(400);
    }
  });

  it('reports removals of every kind by kind and ids, not one given back, and an organisation removed since by itself (then 404 as any unknown one)', async () => {
    const leaving = (await json(await t.call('POST', '/management/v1/orgs', { body: { name: 'Leaving Co' } }))).id as string;
    const project = (await json(await t.call('POST', '/management/v1/projects', { headers: inOrg(leaving), body: { name: 'leaving shop' } }))).id as string;
    await json(await t.call('POST', `/management/v1/projects/${project}/roles`, { headers: inOrg(leaving), body: { roleKey: 'again', displayName: 'Again' } }));
    await json(await t.call('POST', '/management/v1/orgs/me/domains', { headers: inOrg(leaving), body: { domain: 'leaving.example.com' } }));
    await json(await t.call('POST', '/management/v1/policies/lockout', { headers: inOrg(leaving), body: { maxPasswordAttempts: 4 } }));
    const start = await exportSince('999999999999999', [leaving]);

    await json(await t.call('DELETE', `/management/v1/projects/${project}/roles/again`, { headers: inOrg(leaving) }));
    await json(await t.call('POST', `/management/v1/projects/${project}/roles`, { headers: inOrg(leaving), body: { roleKey: 'again', displayName: 'Again' } }));
    await json(await t.call('DELETE', '/management/v1/orgs/me/domains/leaving.example.com', { headers: inOrg(leaving) }));
    await json(await t.call('DELETE', '/management/v1/policies/lockout', { headers: inOrg(leaving) }));
    await json(await t.call('DELETE', `/management/v1/projects/${project}`, { headers: inOrg(leaving) }));
    const changed = await exportSince(start.checkpoint, [leaving]);
    expect(changed.removed).toEqual([
      {
        orgId: leaving,
        resources: [
          { kind: 'org_domain', domain: 'leaving.example.com' },
          { kind: 'policy', policy: 'lockout' },
          { kind: 'project', projectId: project },
        ],
      },
    ]);

    await json(await t.call('DELETE', '/management/v1/orgs/me', { headers: inOrg(leaving) }));
    const gone = await exportSince(changed.checkpoint, [leaving]);
    expect(gone).toMatchObject({ removed: [{ orgId: leaving, orgRemoved: true, resources: [] }], orgs: [] });
    // From before its removal only: after it, or without changedSince, an unknown organisation as before.
    for (const body of [{ changedSince: gone.checkpoint }, {}]) {
      const res = await t.call('POST', '/admin/v1/export', { body: { orgIds: [leaving], responseOutput: true, ...body } });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ details: [{ id: 'EXPORT-0rg404' }] });
    }
  });
});
