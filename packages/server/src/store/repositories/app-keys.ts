import { and, asc, count, desc, eq, gt } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './orgs.js';

export type AppKeyRow = Tables['appKeys']['$inferSelect'];

/** Public keys of applications (domain/apps/app-keys.ts). */
export function appKeyRepository(db: Db, t: Tables) {
  const k = t.appKeys;
  return {
    async insert(row: AppKeyRow): Promise<void> {
      await db.insert(k).values(row);
    },
    async get(appId: string, keyId: string): Promise<AppKeyRow | undefined> {
      const [row] = await db
        .select()
        .from(k)
        .where(and(eq(k.appId, appId), eq(k.id, keyId)))
        .limit(1);
      return row;
    },
    async search(appId: string, page: PageQuery): Promise<{ total: number; rows: AppKeyRow[] }> {
      const where = eq(k.appId, appId);
      const [{ total }] = await db.select({ total: count() }).from(k).where(where);
      const order = page.asc ? asc : desc;
      const rows = await db.select().from(k).where(where).orderBy(order(k.createdAt), order(k.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    /** The keys an assertion may be signed with now: not yet expired. */
    async usable(appId: string, now: Date): Promise<Pick<AppKeyRow, 'id' | 'publicKey'>[]> {
      return db
        .select({ id: k.id, publicKey: k.publicKey })
        .from(k)
        .where(and(eq(k.appId, appId), gt(k.expiresAt, now)))
        .orderBy(asc(k.id));
    },
    async remove(id: string): Promise<void> {
      await db.delete(k).where(eq(k.id, id));
    },
    async removeAllOf(appId: string): Promise<void> {
      await db.delete(k).where(eq(k.appId, appId));
    },
  };
}
