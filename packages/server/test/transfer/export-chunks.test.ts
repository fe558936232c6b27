/**
 * The export's memory must not grow with the organisation's size (issue 14). Two ways it did or
 * could, each checked here on a few thousand users (with grants, metadata and links; their
 * pages' reads are export-paging.test.ts):
 * - Chunk size. V8 allocates a string over 128 KiB in its large-object space and moves a large
 *   object that is alive at a scavenge to the old generation at once, where only a full
 *   mark-compact frees it. A page of 1,000 users written as one ~300,000-character string was such
 *   an object, and an export of 1,000,000 users left ~60 MiB of them in the old generation
 *   (BENCHMARKS.md). Every chunk must stay below 64 Ki characters (128 KiB even as two-byte text).
 * - Read-ahead. The body is pulled: the next page is read only when the client has taken what was
 *   produced, so a client that stops reading stops the reads from the store.
 * - The event loop. SQLite's reads are synchronous: an export that never gave the event loop a
 *   turn ran whole in one task, and V8's GC tasks (and every other request) waited for its end.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { exportDocument } from '../../src/domain/transfer/export/export-data.js';
import { parseExportRequest } from '../../src/domain/transfer/request.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, describeEachStore, insertOrg, type TestInstance } from '../support/instance.js';
import { BCRYPT } from '../support/transfer-documents.js';

const HUMANS = 2_500;
const MACHINES = 1_200;
/** Users with metadata and links (one value, one link each): more than a page of each. */
const EXTRAS = 1_100;
/** 128 KiB, V8's largest ordinary heap object, in characters of a two-byte string. */
const LARGE_OBJECT_CHARS = 64 * 1024;

describeEachStore('the export\u2019s body for a large organisation', (dialect) => {
  let t: TestInstance;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    ({ orgId } = await insertOrg(t, 'Chunks'));
    const at = new Date();
    const user = (i: number, type: 'human' | 'machine') => ({
      id: `${type[0]}${String(i).padStart(5, '0')}`,
      orgId,
      type,
      userName: `${type}${i}`,
      userNameKey: `${type}${i}`,
      state: 'USER_STATE_ACTIVE',
      data:
        type === 'human'
          ? { profile: { firstName: `First${i}`, lastName: 'Last', displayName: `First${i} Last`, preferredLanguage: 'en' }, email: { email: `user${i}@example.com`, isEmailVerified: true } }
          : { name: `Robot ${i}`, description: 'runs the nightly sync' },
      passwordHash: type === 'human' ? BCRYPT : null,
      passwordChangeRequired: false,
      sequence: 0,
      createdAt: at,
      changedAt: at,
    });
    const humans = Array.from({ length: HUMANS }, (_, i) => user(i, 'human'));
    await t.store.transaction(async (tx) => {
      await tx.transfer.insertUsers([...humans, ...Array.from({ length: MACHINES }, (_, i) => user(i, 'machine'))]);
      await tx.transfer.insertProjects([
        {
          id: 'p1',
          orgId,
          name: 'Shop',
          state: 'PROJECT_STATE_ACTIVE',
          projectRoleAssertion: false,
          projectRoleCheck: false,
          hasProjectCheck: false,
          privateLabelingSetting: 'PRIVATE_LABELING_SETTING_UNSPECIFIED',
          sequence: 0,
          createdAt: at,
          changedAt: at,
        },
      ]);
      await tx.transfer.insertUserGrants(
        humans.map((h, i) => ({
          id: `g${String(i).padStart(5, '0')}`,
          orgId,
          userId: h.id,
          projectId: 'p1',
          projectGrantId: null,
          roleKeys: ['buyer', 'seller', `role-with-a-long-name-${i}`],
          state: 'USER_GRANT_STATE_ACTIVE',
          sequence: 0,
          createdAt: at,
          changedAt: at,
        })),
      );
      for (const h of humans.slice(0, EXTRAS)) {
        await tx.userMetadata.upsert({ userId: h.id, key: 'tier', value: Buffer.from(`gold for ${h.userName}`).toString('base64'), orgId, sequence: 0, createdAt: at, changedAt: at });
        await tx.idpLinks.insert({ idpId: 'idp1', externalUserId: `ext-${h.id}`, userId: h.id, orgId, externalUserName: `${h.userName}@idp.example.com`, createdAt: at });
      }
    });
  });
  afterAll(() => t.close());

  it('comes in chunks V8 keeps out of its large-object space, and is the whole organisation', async () => {
    const req = parseExportRequest({ orgIds: [orgId], withPasswords: true, responseOutput: true, timeout: '1m' });
    const chunks: string[] = [];
    for await (const chunk of exportDocument(t.store.read, req, new AbortController().signal, processSecretBox())) chunks.push(chunk);
    const longest = Math.max(...chunks.map((c) => c.length));
    // One page of users or grants is far over the bound: the pages are cut into chunks.
    expect(longest).toBeLessThan(LARGE_OBJECT_CHARS);
    const [org] = JSON.parse(chunks.join('')).orgs;
    expect(org.humanUsers).toHaveLength(HUMANS);
    expect(org.machineUsers).toHaveLength(MACHINES);
    expect(org.userGrants).toHaveLength(HUMANS);
    expect(org.userMetadata).toHaveLength(EXTRAS);
    expect(org.userLinks).toHaveLength(EXTRAS);
    expect(org.humanUsers.map((u: { userId: string }) => u.userId)).toEqual(Array.from({ length: HUMANS }, (_, i) => `h${String(i).padStart(5, '0')}`));
    expect(org.humanUsers[1]).toEqual({
      userId: 'h00001',
      user: {
        userName: 'human1',
        profile: { firstName: 'First1', lastName: 'Last', displayName: 'First1 Last', preferredLanguage: 'en' },
        email: { email: 'user1@example.com', isEmailVerified: true },
        hashedPassword: { value: BCRYPT },
      },
      state: 'USER_STATE_ACTIVE',
    });
    expect(org.userGrants[2]).toEqual({ userId: 'h00002', identityServiceGrantId: 'g00002', projectId: 'p1', roleKeys: ['buyer', 'seller', 'role-with-a-long-name-2'] });
    expect(org.userMetadata[1001]).toEqual({ id: 'h01001', key: 'tier', value: Buffer.from('gold for human1001').toString('base64') });
    expect(org.userLinks[1001]).toMatchObject({ userId: 'h01001', idpId: 'idp1', providedUserId: 'ext-h01001', providedUserName: 'human1001@idp.example.com' });
  });

  it('reads no further pages from the store while the client does not read', async () => {
    const pages = vi.spyOn(t.store.read.transfer, 'usersPage');
    try {
      const res = await t.call('POST', '/admin/v1/export', { body: { orgIds: [orgId], withPasswords: true, responseOutput: true, timeout: '1m' } });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('"humanUsers":[')) text += decoder.decode((await reader.read()).value, { stream: true });
      // The first page's users are being taken; time enough for a producer that ran ahead to read every page.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The page being taken, and at most the next (the stream holds one chunk ahead of the client).
      expect(pages.mock.calls.length).toBeLessThanOrEqual(2);
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
      expect(JSON.parse(text).orgs[0].humanUsers).toHaveLength(HUMANS);
      // Pages of 1,000: three of humans, two of machines.
      expect(pages).toHaveBeenCalledTimes(Math.ceil(HUMANS / 1000) + Math.ceil(MACHINES / 1000));
    } finally {
      pages.mockRestore();
    }
  });

  it('gives the event loop a turn for every page it reads', async () => {
    let turns = 0;
    let reading = true;
    const turn = () => {
      turns++;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const res = await t.call('POST', '/admin/v1/export', { body: { orgIds: [orgId], withPasswords: true, responseOutput: true, timeout: '1m' } });
    const reader = res.body!.getReader();
    while (!(await reader.read()).done);
    reading = false;
    // Pages of humans (3), machines (2), grants (3), metadata (2) and links (2).
    expect(turns).toBeGreaterThanOrEqual(12);
  });
});
