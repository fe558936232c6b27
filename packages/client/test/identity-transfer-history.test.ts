/**
 * `identity-transfer migrate --with-history` (issue 51) against two whole services (server.ts on
 * loopback ports, the import run as a job by the target's worker, as under `npm start`), on SQLite
 * and PostgreSQL: the target's ListUserChanges lists the source's changes, then the import's event.
 */
import { describeEachStore } from '@identity-service/server/test/support/instance.js';
import { type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliIo, main } from '../src/cli/identity-transfer.js';

const quiet = (): CliIo => ({ tty: false, progressEveryMs: 0, stdout: () => undefined, stderr: () => undefined });

describeEachStore('identity-transfer migrate --with-history', (dialect) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let orgId: string;
  let userId: string;

  beforeAll(async () => {
    [source, target] = await Promise.all([startOidcServer(dialect, { importJobWorker: true }), startOidcServer(dialect, { importJobWorker: true })]);
    orgId = (await source.api('POST', '/management/v1/orgs', { name: 'Archive Co' })).body.id;
    const inOrg = { 'x-service-orgid': orgId };
    userId = (await source.api('POST', '/management/v1/users/machine', { userName: 'archivist', name: 'Archivist' }, undefined, inOrg)).body.userId;
    expect((await source.api('PUT', `/management/v1/users/${userId}/machine`, { name: 'Chief Archivist', description: 'keeps the records' }, undefined, inOrg)).status).toBe(200);
    expect((await source.api('POST', `/management/v1/users/${userId}/_deactivate`, {}, undefined, inOrg)).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  const changes = async (s: OidcTestServer) => {
    const res = await s.api('POST', `/management/v1/users/${userId}/changes/_search`, { query: { asc: true } }, undefined, { 'x-service-orgid': orgId });
    expect(res.status).toBe(200);
    return (res.body.result as { eventType: { key: string }; sequence: string; changeDate: string; editorId: string }[]).map((c) => ({
      type: c.eventType.key,
      sequence: c.sequence,
      date: c.changeDate,
      editor: c.editorId,
    }));
  };

  it("the target's change list is the source's, then the import", async () => {
    await expect(main(['verify', '--from-url', source.issuer, '--from-token', 't', '--to-url', target.issuer, '--to-token', 't', '--with-history'], quiet())).rejects.toThrow(
      /--with-history is not an option of verify/,
    );
    const migrate = ['migrate', '--from-url', source.issuer, '--from-token', source.t.adminToken, '--to-url', target.issuer, '--to-token', target.t.adminToken, '--org', orgId, '--with-history'];
    expect(await main(migrate, quiet())).toBe(0);
    const before = await changes(source);
    expect(before.map((c) => c.type)).toEqual(['EventTypes.user.machine.added', 'EventTypes.user.machine.changed', 'EventTypes.user.deactivated']);
    const after = await changes(target);
    expect(after.slice(0, -1)).toEqual(before);
    expect(after.at(-1)).toMatchObject({ type: 'EventTypes.user.data.imported', sequence: '4', editor: target.t.adminUserId });
  }, 60_000);
});
