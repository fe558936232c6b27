/**
 * The export reads an organisation's users in keyset pages (repositories/transfer.ts `usersPage`:
 * organisation, type, `id > after`, by id). Issue 14: exporting 1,000,000 users took minutes
 * because SQLite served each page from the (organisation, user name) index and sorted the whole
 * organisation for every page — quadratic. The (org_id, type, id) index serves the pages in order.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openTestStore } from './support/instance.js';
import { describeEachStore } from './support/instance.js';

const USERS = 25_000;

describeEachStore('the export\u2019s pages over an organisation\u2019s users', (dialect) => {
  it('return every user once, in id order, page after page', async () => {
    const { store, cleanup } = await openTestStore(dialect);
    try {
      const at = new Date();
      const user = (i: number, orgId: string, type = 'human') => ({
        id: `u${String(i).padStart(6, '0')}`, orgId, type, userName: `user${i}`, userNameKey: `user${i}`, state: 'USER_STATE_ACTIVE',
        data: {}, passwordHash: null, passwordChangeRequired: false, sequence: 0, createdAt: at, changedAt: at,
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
});

describe('the export\u2019s user pages on SQLite', () => {
  it('are read from an index in id order, without sorting the organisation for every page', async () => {
    const { store, location, cleanup } = await openTestStore('sqlite');
    await store.close();
    const db = new Database(location.target, { readonly: true });
    try {
      // The statement usersPage builds (drizzle: where org_id, type, id > ?, order by id, limit).
      const plan = db
        .prepare(`explain query plan select * from users where users.org_id = ? and users.type = ? and users.id > ? order by users.id asc limit ?`)
        .all('org', 'human', 'u1', 1000) as { detail: string }[];
      const details = plan.map((row) => row.detail).join(' | ');
      expect(details).toContain('users_org_type_id');
      expect(details).not.toContain('TEMP B-TREE');
    } finally {
      db.close();
      cleanup();
    }
  });
});
