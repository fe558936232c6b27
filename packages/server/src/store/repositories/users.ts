import { and, eq, exists, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import { type PageQuery, selectPage, type TextMatch, textCondition } from './search.js';

export type UserRow = Tables['users']['$inferSelect'];

export function userRepository(db: Db, t: Tables) {
  /**
   * The user's organisation exists. A removed organisation's row goes at once while its users are
   * removed in the background (domain/orgs/removal.ts): until then they are not found by id or
   * name, so they cannot sign in, their tokens stop working and reads answer 404, at once. (What
   * lists an organisation's users needs nothing: that organisation is not found.)
   */
  const ofLiveOrg = () => exists(db.select({ one: sql`1` }).from(t.orgs).where(eq(t.orgs.id, t.users.orgId)));
  // Read on every token (the machine user of client credentials, the account's claims) and sign-in: prepared.
  const byId = once(() =>
    db
      .select()
      .from(t.users)
      .where(and(eq(t.users.id, sql.placeholder('id')), ofLiveOrg()))
      .limit(1)
      .prepare('users_by_id'),
  );
  return {
    async get(id: string): Promise<UserRow | undefined> {
      const [row] = await byId().execute({ id });
      return row;
    },
    /** Users by id, in no order (the editors of a page of events); users of removed organisations are not found. */
    async byIds(ids: readonly string[]): Promise<UserRow[]> {
      if (!ids.length) return [];
      return db
        .select()
        .from(t.users)
        .where(and(inArray(t.users.id, [...ids]), ofLiveOrg()));
    },
    async insert(row: UserRow): Promise<void> {
      await db.insert(t.users).values(row);
    },
    /** The user if it belongs to this organisation. */
    async getInOrg(orgId: string, id: string): Promise<UserRow | undefined> {
      const [row] = await db
        .select()
        .from(t.users)
        .where(and(eq(t.users.orgId, orgId), eq(t.users.id, id), ofLiveOrg()))
        .limit(1);
      return row;
    },
    async getByUserNameKey(orgId: string, userNameKey: string): Promise<UserRow | undefined> {
      const [row] = await db
        .select()
        .from(t.users)
        .where(and(eq(t.users.orgId, orgId), eq(t.users.userNameKey, userNameKey), ofLiveOrg()))
        .limit(1);
      return row;
    },
    /** A user of one of `orgIds` other than `orgId` named `userNameKey` (bare login names, users/login-names.ts). */
    async getByUserNameKeyElsewhere(orgIds: string[], orgId: string, userNameKey: string): Promise<UserRow | undefined> {
      if (!orgIds.length) return undefined;
      const [row] = await db
        .select()
        .from(t.users)
        .where(and(inArray(t.users.orgId, orgIds), ne(t.users.orgId, orgId), eq(t.users.userNameKey, userNameKey)))
        .limit(1);
      return row;
    },
    /** A user name key held by two users of `orgIds`, if any. */
    async sharedUserNameKey(orgIds: string[]): Promise<string | undefined> {
      if (orgIds.length < 2) return undefined;
      const [row] = await db.select({ key: t.users.userNameKey }).from(t.users).where(inArray(t.users.orgId, orgIds)).groupBy(t.users.userNameKey).having(sql`count(*) > 1`).limit(1);
      return row?.key;
    },
    async search(orgId: string, filter: { userNames?: TextMatch[]; type?: 'human' | 'machine' }, page: PageQuery): Promise<{ total: number; rows: UserRow[] }> {
      const where = and(
        eq(t.users.orgId, orgId),
        ...(filter.userNames ?? []).map((m) => textCondition(t.users.userName, m, t.users.userNameKey)),
        filter.type ? eq(t.users.type, filter.type) : undefined,
      );
      return selectPage(db, t.users, where, [t.users.createdAt, t.users.id], page);
    },
    /** Records a later event on the user's aggregate (e.g. a token added). */
    async touch(id: string, sequence: number, changedAt: Date): Promise<void> {
      await db.update(t.users).set({ sequence, changedAt }).where(eq(t.users.id, id));
    },
    /** A later event changed the user's data, state or password. */
    async change(id: string, change: Partial<Pick<UserRow, 'data' | 'state' | 'passwordHash' | 'passwordChangeRequired'>>, sequence: number, changedAt: Date): Promise<void> {
      await db
        .update(t.users)
        .set({ ...change, sequence, changedAt })
        .where(eq(t.users.id, id));
    },
  };
}
