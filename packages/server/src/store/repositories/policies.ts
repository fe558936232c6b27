import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';

export type PolicyRow = Tables['policies']['$inferSelect'];

/** Policies by owner (the instance or an organisation) and kind (domain/policies/). */
export function policyRepository(db: Db, t: Tables) {
  const p = t.policies;
  // Read for every login name (tokens, userinfo, sign-in, lists) and every policy check: prepared.
  const byOwnerKind = once(() =>
    db
      .select()
      .from(p)
      .where(and(eq(p.ownerId, sql.placeholder('ownerId')), eq(p.kind, sql.placeholder('kind'))))
      .limit(1)
      .prepare('policies_by_owner_kind'),
  );
  return {
    async get(ownerId: string, kind: string): Promise<PolicyRow | undefined> {
      const [row] = await byOwnerKind().execute({ ownerId, kind });
      return row;
    },
    /** Every owner's policy of one kind (the instance's and the organisations' own). */
    async listKind(kind: string): Promise<PolicyRow[]> {
      return db.select().from(p).where(eq(p.kind, kind));
    },
    async upsert(row: PolicyRow): Promise<void> {
      await db
        .insert(p)
        .values(row)
        .onConflictDoUpdate({ target: [p.ownerId, p.kind], set: { settings: row.settings, sequence: row.sequence, changedAt: row.changedAt } });
    },
    async remove(ownerId: string, kind: string): Promise<void> {
      await db.delete(p).where(and(eq(p.ownerId, ownerId), eq(p.kind, kind)));
    },
  };
}
