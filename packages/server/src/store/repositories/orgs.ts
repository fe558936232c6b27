import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import { type PageQuery, selectPage, type TextMatch, textCondition } from './search.js';

// Re-exported: some repositories import the paging type from here.
export type { PageQuery } from './search.js';

export type OrgRow = Tables['orgs']['$inferSelect'];

export function orgRepository(db: Db, t: Tables) {
  // Read for every login name (tokens, userinfo, sign-in): prepared.
  const byId = once(() =>
    db
      .select()
      .from(t.orgs)
      .where(eq(t.orgs.id, sql.placeholder('id')))
      .limit(1)
      .prepare('orgs_by_id'),
  );
  return {
    async get(id: string): Promise<OrgRow | undefined> {
      const [row] = await byId().execute({ id });
      return row;
    },
    async exists(id: string): Promise<boolean> {
      const [row] = await db.select({ id: t.orgs.id }).from(t.orgs).where(eq(t.orgs.id, id)).limit(1);
      return row !== undefined;
    },
    /** Also records the organisation's primary domain (generated from its name) as its first, verified domain. */
    async insert(row: OrgRow): Promise<void> {
      await db.insert(t.orgs).values(row);
      await db.insert(t.orgDomains).values({
        orgId: row.id,
        domain: row.primaryDomain,
        isVerified: true,
        isPrimary: true,
        validationType: 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED',
        validationToken: null,
        sequence: row.sequence,
        createdAt: row.createdAt,
        changedAt: row.changedAt,
      });
    },
    /** An import's OVERWRITE of the organisation's state (there is no DeactivateOrg here). */
    async setState(id: string, state: OrgRow['state'], sequence: number, changedAt: Date): Promise<void> {
      await db.update(t.orgs).set({ state, sequence, changedAt }).where(eq(t.orgs.id, id));
    },
    async allIds(): Promise<string[]> {
      return (await db.select({ id: t.orgs.id }).from(t.orgs)).map((r) => r.id);
    },
    async getByPrimaryDomain(primaryDomain: string): Promise<OrgRow | undefined> {
      const [row] = await db.select().from(t.orgs).where(eq(t.orgs.primaryDomain, primaryDomain)).limit(1);
      return row;
    },
    async getByNameKey(nameKey: string): Promise<OrgRow | undefined> {
      const [row] = await db.select().from(t.orgs).where(eq(t.orgs.nameKey, nameKey)).limit(1);
      return row;
    },
    /** Organisations matching the name query, oldest first (or newest first when !asc). */
    async search(filter: { names?: TextMatch[] }, page: PageQuery): Promise<{ total: number; rows: OrgRow[] }> {
      const where = and(...(filter.names ?? []).map((m) => textCondition(t.orgs.name, m, t.orgs.nameKey)));
      return selectPage(db, t.orgs, where, [t.orgs.createdAt, t.orgs.id], page);
    },
  };
}
