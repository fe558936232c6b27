import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';

export type OrgDomainRow = Tables['orgDomains']['$inferSelect'];

/** Organisations' domains (domain/orgs/domains.ts). */
export function orgDomainRepository(db: Db, t: Tables) {
  const d = t.orgDomains;
  // Read for every login name (tokens, userinfo, sign-in): prepared.
  const ofOrg = once(() =>
    db
      .select()
      .from(d)
      .where(eq(d.orgId, sql.placeholder('orgId')))
      .orderBy(asc(d.createdAt), asc(d.domain))
      .prepare('org_domains_of_org'),
  );
  return {
    async list(orgId: string): Promise<OrgDomainRow[]> {
      return ofOrg().execute({ orgId });
    },
    async get(orgId: string, domain: string): Promise<OrgDomainRow | undefined> {
      const [row] = await db
        .select()
        .from(d)
        .where(and(eq(d.orgId, orgId), eq(d.domain, domain)))
        .limit(1);
      return row;
    },
    /** Another organisation that verified `domain` (a verified domain belongs to one organisation). */
    async verifiedElsewhere(domain: string, orgId: string): Promise<OrgDomainRow | undefined> {
      const [row] = await db
        .select()
        .from(d)
        .where(and(eq(d.domain, domain), eq(d.isVerified, true), ne(d.orgId, orgId)))
        .limit(1);
      return row;
    },
    async insert(row: OrgDomainRow): Promise<void> {
      await db.insert(d).values(row);
    },
    async update(orgId: string, domain: string, change: Partial<Pick<OrgDomainRow, 'isVerified' | 'isPrimary' | 'validationType' | 'validationToken' | 'sequence' | 'changedAt'>>): Promise<void> {
      await db
        .update(d)
        .set(change)
        .where(and(eq(d.orgId, orgId), eq(d.domain, domain)));
    },
    /** Makes `domain` the organisation's only primary one, and mirrors it in `orgs.primary_domain`. */
    async setPrimary(orgId: string, domain: string, sequence: number, at: Date): Promise<void> {
      await db
        .update(d)
        .set({ isPrimary: false })
        .where(and(eq(d.orgId, orgId), eq(d.isPrimary, true)));
      await db
        .update(d)
        .set({ isPrimary: true, sequence, changedAt: at })
        .where(and(eq(d.orgId, orgId), eq(d.domain, domain)));
      await db.update(t.orgs).set({ primaryDomain: domain, sequence, changedAt: at }).where(eq(t.orgs.id, orgId));
    },
    async remove(orgId: string, domain: string): Promise<void> {
      await db.delete(d).where(and(eq(d.orgId, orgId), eq(d.domain, domain)));
    },
  };
}
