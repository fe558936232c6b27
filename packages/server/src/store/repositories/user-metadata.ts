import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import { type PageQuery, type TextMatch, textCondition } from './search.js';

export type UserMetadataRow = Tables['userMetadata']['$inferSelect'];

export function userMetadataRepository(db: Db, t: Tables) {
  const m = t.userMetadata;
  return {
    async get(userId: string, key: string): Promise<UserMetadataRow | undefined> {
      const [row] = await db
        .select()
        .from(m)
        .where(and(eq(m.userId, userId), eq(m.key, key)))
        .limit(1);
      return row;
    },
    async upsert(row: UserMetadataRow): Promise<void> {
      await db
        .insert(m)
        .values(row)
        .onConflictDoUpdate({ target: [m.userId, m.key], set: { value: row.value, sequence: row.sequence, changedAt: row.changedAt } });
    },
    async remove(userId: string, keys: string[]): Promise<void> {
      if (keys.length) await db.delete(m).where(and(eq(m.userId, userId), inArray(m.key, keys)));
    },
    async list(userId: string, filter: { key?: TextMatch }, page: PageQuery): Promise<{ total: number; rows: UserMetadataRow[] }> {
      const conditions: (SQL | undefined)[] = [eq(m.userId, userId)];
      if (filter.key) conditions.push(textCondition(m.key, filter.key));
      const where = and(...conditions);
      const [{ total }] = await db.select({ total: count() }).from(m).where(where);
      const direction = page.asc ? asc : desc;
      const rows = await db.select().from(m).where(where).orderBy(direction(m.key)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    /** Every value of the user (the metadata claim). */
    async all(userId: string): Promise<UserMetadataRow[]> {
      return db.select().from(m).where(eq(m.userId, userId)).orderBy(asc(m.key));
    },
    /** The organisation's values after `after` (by user, then key), `limit` at most: the export's keyset pages. */
    async pageByOrg(orgId: string, after: Pick<UserMetadataRow, 'userId' | 'key'> | undefined, limit: number, onlyUserIds?: readonly string[]): Promise<UserMetadataRow[]> {
      return db
        .select()
        .from(m)
        .where(and(eq(m.orgId, orgId), onlyUserIds ? inArray(m.userId, [...onlyUserIds]) : undefined, after ? sql`(${m.userId}, ${m.key}) > (${after.userId}, ${after.key})` : undefined))
        .orderBy(asc(m.userId), asc(m.key))
        .limit(limit);
    },
  };
}
