import { and, eq, inArray, sql } from 'drizzle-orm';
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
  // The policy that applies (an organisation's own, else the instance's) is read for every login
  // page, sign-in step and mail: both owners in one statement, one round trip on PostgreSQL where
  // reading them one after the other took two (BENCHMARKS.md, "A sign-in's round trips on PostgreSQL").
  const ofEitherOwner = once(() =>
    db
      .select()
      .from(p)
      .where(and(inArray(p.ownerId, [sql.placeholder('first'), sql.placeholder('second')]), eq(p.kind, sql.placeholder('kind'))))
      .prepare('policies_of_either_owner'),
  );
  return {
    async get(ownerId: string, kind: string): Promise<PolicyRow | undefined> {
      const [row] = await byOwnerKind().execute({ ownerId, kind });
      return row;
    },
    /** The policy of kind `kind` of the first owner that has one: `first`'s, else `second`'s. */
    async firstOf(first: string, second: string, kind: string): Promise<PolicyRow | undefined> {
      const rows: PolicyRow[] = await ofEitherOwner().execute({ first, second, kind });
      return rows.find((row) => row.ownerId === first) ?? rows.find((row) => row.ownerId === second);
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
