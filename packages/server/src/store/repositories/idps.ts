import { and, asc, eq, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import { type PageQuery, selectPage, type TextMatch, textCondition } from './search.js';

export type IdpRow = Tables['idps']['$inferSelect'];
export type IdpChange = Partial<Omit<IdpRow, 'id' | 'ownerId' | 'ownerType' | 'createdAt'>>;

export interface IdpSearch extends PageQuery {
  /** Providers of these owners only (an organisation and/or the instance). */
  ownerIds: string[];
  id?: string;
  name?: TextMatch;
  ownerType?: string;
  sortBy: 'created' | 'name';
}

/** The most providers a login page offers (ZITADEL's default page size). */
export const LOGIN_PAGE_IDPS = 50;

export function idpRepository(db: Db, t: Tables) {
  // Every login page lists the providers of its organisation and the instance: prepared.
  const ofEitherOwnerQuery = once(() =>
    db
      .select()
      .from(t.idps)
      .where(inArray(t.idps.ownerId, [sql.placeholder('first'), sql.placeholder('second')]))
      .orderBy(asc(t.idps.nameKey), asc(t.idps.id))
      .limit(LOGIN_PAGE_IDPS)
      .prepare('idps_of_either_owner'),
  );
  return {
    /** The providers of two owners (an organisation and the instance), by name, at most LOGIN_PAGE_IDPS. */
    async ofEitherOwner(first: string, second: string): Promise<IdpRow[]> {
      return ofEitherOwnerQuery().execute({ first, second });
    },
    async get(id: string): Promise<IdpRow | undefined> {
      const [row] = await db.select().from(t.idps).where(eq(t.idps.id, id)).limit(1);
      return row;
    },
    async nameTaken(ownerId: string, nameKey: string, exceptId?: string): Promise<boolean> {
      const [row] = await db
        .select({ id: t.idps.id })
        .from(t.idps)
        .where(and(eq(t.idps.ownerId, ownerId), eq(t.idps.nameKey, nameKey)))
        .limit(1);
      return row !== undefined && row.id !== exceptId;
    },
    /** OIDC providers holding a sealed client secret (re-sealing after a key rotation). */
    async withSealedSecrets(): Promise<IdpRow[]> {
      return db.select().from(t.idps).where(isNotNull(t.idps.oidcClientSecretSealed));
    },
    async insert(row: IdpRow): Promise<void> {
      await db.insert(t.idps).values(row);
    },
    async update(id: string, change: IdpChange): Promise<void> {
      await db.update(t.idps).set(change).where(eq(t.idps.id, id));
    },
    async remove(id: string): Promise<void> {
      await db.delete(t.idps).where(eq(t.idps.id, id));
    },
    async search(query: IdpSearch): Promise<{ total: number; rows: IdpRow[] }> {
      const conditions: (SQL | undefined)[] = [inArray(t.idps.ownerId, query.ownerIds)];
      if (query.id !== undefined) conditions.push(eq(t.idps.id, query.id));
      if (query.ownerType !== undefined) conditions.push(eq(t.idps.ownerType, query.ownerType));
      if (query.name) conditions.push(textCondition(t.idps.name, query.name, t.idps.nameKey));
      const where = and(...conditions);
      // Ids are time-sorted, so ordering by id is ordering by creation; it also breaks name ties.
      const order = query.sortBy === 'name' ? [t.idps.nameKey, t.idps.id] : [t.idps.createdAt, t.idps.id];
      return selectPage(db, t.idps, where, order, query);
    },
  };
}
