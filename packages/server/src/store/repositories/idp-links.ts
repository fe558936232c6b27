import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './search.js';

export type IdpLinkRow = Tables['idpUserLinks']['$inferSelect'];

/** Links of users to their identities at identity providers (domain/federation/). */
export function idpLinkRepository(db: Db, t: Tables) {
  const l = t.idpUserLinks;
  return {
    async get(idpId: string, externalUserId: string): Promise<IdpLinkRow | undefined> {
      const [row] = await db
        .select()
        .from(l)
        .where(and(eq(l.idpId, idpId), eq(l.externalUserId, externalUserId)))
        .limit(1);
      return row;
    },
    async insert(row: IdpLinkRow): Promise<void> {
      await db.insert(l).values(row);
    },
    async remove(idpId: string, externalUserId: string): Promise<void> {
      await db.delete(l).where(and(eq(l.idpId, idpId), eq(l.externalUserId, externalUserId)));
    },
    /** Oldest first (or newest, `asc: false`), with the total. */
    async listByUser(userId: string, page: PageQuery): Promise<{ total: number; rows: IdpLinkRow[] }> {
      const [{ total }] = await db.select({ total: count() }).from(l).where(eq(l.userId, userId));
      const direction = page.asc ? asc : desc;
      const rows = await db.select().from(l).where(eq(l.userId, userId)).orderBy(direction(l.createdAt), direction(l.idpId), direction(l.externalUserId)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    async listByIdp(idpId: string): Promise<IdpLinkRow[]> {
      return db.select().from(l).where(eq(l.idpId, idpId));
    },
    /** The organisation's links after `after` (by user, provider, identity), `limit` at most: the export's keyset pages. */
    async pageByOrg(orgId: string, after: Pick<IdpLinkRow, 'userId' | 'idpId' | 'externalUserId'> | undefined, limit: number, onlyUserIds?: readonly string[]): Promise<IdpLinkRow[]> {
      return db
        .select()
        .from(l)
        .where(
          and(
            eq(l.orgId, orgId),
            onlyUserIds ? inArray(l.userId, [...onlyUserIds]) : undefined,
            after ? sql`(${l.userId}, ${l.idpId}, ${l.externalUserId}) > (${after.userId}, ${after.idpId}, ${after.externalUserId})` : undefined,
          ),
        )
        .orderBy(asc(l.userId), asc(l.idpId), asc(l.externalUserId))
        .limit(limit);
    },
    async removeByIdp(idpId: string): Promise<void> {
      await db.delete(l).where(eq(l.idpId, idpId));
    },
  };
}
