/**
 * The export reads an organisation's users in keyset pages (repositories/transfer.ts `usersPage`:
 * organisation, type, `id > after`, by id). Issue 14: exporting 1,000,000 users took minutes
 * because SQLite served each page from the (organisation, user name) index and sorted the whole
 * organisation for every page — quadratic. The (org_id, type, id) index serves the pages in order.
 * Users' metadata and links to identity providers are paged the same way (by user and key; by user,
 * provider and identity), from indexes that begin with the organisation.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { describeEachStore, openTestStore } from '../support/instance.js';

const USERS = 25_000;

describeEachStore('the export\u2019s pages over an organisation\u2019s users', (dialect) => {
  it('return every user once, in id order, page after page', async () => {
    const { store, cleanup } = await openTestStore(dialect);
    try {
      const at = new Date();
      const user = (i: number, orgId: string, type = 'human') => ({
        id: `u${String(i).padStart(6, '0')}`,
        orgId,
        type,
        userName: `user${i}`,
        userNameKey: `user${i}`,
        state: 'USER_STATE_ACTIVE',
        data: {},
        passwordHash: null,
        passwordChangeRequired: false,
        sequence: 0,
        createdAt: at,
        changedAt: at,
      });
      // The organisation's humans, interleaved with another organisation's users and its own machines.
      const rows = Array.from({ length: USERS }, (_, i) => (i % 5 === 0 ? user(i, 'other') : i % 7 === 0 ? user(i, 'org', 'machine') : user(i, 'org')));
      await store.transaction((tx) => tx.transfer.insertUsers(rows));
      const expected = rows.filter((r) => r.orgId === 'org' && r.type === 'human').map((r) => r.id);
      const seen: string[] = [];
      let after = '';
      for (;;) {
        const page = await store.read.transfer.usersPage('org', 'human', after, 1000);
        if (!page.length) break;
        seen.push(...page.map((r) => r.id));
        after = page[page.length - 1].id;
      }
      expect(seen).toEqual(expected);
    } finally {
      await store.close();
      cleanup();
    }
  });

  it('of metadata and links return every row of the organisation once, in order, page after page', async () => {
    const { store, cleanup } = await openTestStore(dialect);
    try {
      const at = new Date();
      const stamp = { sequence: 0, createdAt: at, changedAt: at };
      const userId = (i: number) => `u${String(i).padStart(4, '0')}`;
      // One to three values and links per user, every fourth user in another organisation; pages
      // of 7 end between two values (or links) of one user.
      const metadata = Array.from({ length: 300 }, (_, i) =>
        Array.from({ length: 1 + (i % 3) }, (_, k) => ({ userId: userId(i), key: `k${k}`, value: 'dg==', orgId: i % 4 ? 'org' : 'other', ...stamp })),
      ).flat();
      const links = Array.from({ length: 300 }, (_, i) =>
        Array.from({ length: 1 + (i % 3) }, (_, k) => ({
          idpId: `idp${k % 2}`,
          externalUserId: `ext${i}-${k}`,
          userId: userId(i),
          orgId: i % 4 ? 'org' : 'other',
          externalUserName: `ext ${i}`,
          createdAt: at,
        })),
      ).flat();
      await store.transaction(async (tx) => {
        for (const row of [...metadata].reverse()) await tx.userMetadata.upsert(row);
        for (const row of [...links].reverse()) await tx.idpLinks.insert(row);
      });
      const readAll = async <R>(readPage: (after: R | undefined) => Promise<R[]>) => {
        const seen: R[] = [];
        for (let page = await readPage(undefined); page.length; page = await readPage(page[page.length - 1])) seen.push(...page);
        return seen;
      };
      const values = await readAll((after: { userId: string; key: string } | undefined) => store.read.userMetadata.pageByOrg('org', after, 7));
      expect(values.map((m) => `${m.userId}/${m.key}`)).toEqual(metadata.filter((m) => m.orgId === 'org').map((m) => `${m.userId}/${m.key}`));
      const linked = await readAll((after: { userId: string; idpId: string; externalUserId: string } | undefined) => store.read.idpLinks.pageByOrg('org', after, 7));
      const byUserIdpIdentity = links
        .filter((l) => l.orgId === 'org')
        .map((l) => `${l.userId}/${l.idpId}/${l.externalUserId}`)
        .sort();
      expect(linked.map((l) => `${l.userId}/${l.idpId}/${l.externalUserId}`)).toEqual(byUserIdpIdentity);
    } finally {
      await store.close();
      cleanup();
    }
  });
});

describe('the export\u2019s user pages on SQLite', () => {
  it('are read from an index in id order, without sorting the organisation for every page', async () => {
    const { store, location, cleanup } = await openTestStore('sqlite');
    await store.close();
    const db = new Database(location.target, { readonly: true });
    try {
      // The statement usersPage builds (drizzle: where org_id, type, id > ?, order by id, limit).
      const plan = db.prepare(`explain query plan select * from users where users.org_id = ? and users.type = ? and users.id > ? order by users.id asc limit ?`).all('org', 'human', 'u1', 1000) as {
        detail: string;
      }[];
      const details = plan.map((row) => row.detail).join(' | ');
      expect(details).toContain('users_org_type_id');
      expect(details).not.toContain('TEMP B-TREE');
    } finally {
      db.close();
      cleanup();
    }
  });

  it('of metadata and links are read from an index in order too', async () => {
    const { store, location, cleanup } = await openTestStore('sqlite');
    await store.close();
    const db = new Database(location.target, { readonly: true });
    try {
      // The statements pageByOrg builds (user-metadata.ts, idp-links.ts) after the first page.
      const plan = (statement: string, ...params: unknown[]) => (db.prepare(`explain query plan ${statement}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ');
      const values = plan(
        'select * from user_metadata where user_metadata.org_id = ? and (user_metadata.user_id, user_metadata.key) > (?, ?) order by user_metadata.user_id asc, user_metadata.key asc limit ?',
        'org',
        'u1',
        'k',
        1000,
      );
      expect(values).toContain('user_metadata_org_user_key');
      expect(values).not.toContain('TEMP B-TREE');
      const links = plan(
        'select * from idp_user_links where idp_user_links.org_id = ? and (idp_user_links.user_id, idp_user_links.idp_id, idp_user_links.external_user_id) > (?, ?, ?) order by idp_user_links.user_id asc, idp_user_links.idp_id asc, idp_user_links.external_user_id asc limit ?',
        'org',
        'u1',
        'idp',
        'ext',
        1000,
      );
      expect(links).toContain('idp_user_links_org_user');
      expect(links).not.toContain('TEMP B-TREE');
    } finally {
      db.close();
      cleanup();
    }
  });
});
