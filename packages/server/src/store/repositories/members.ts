import { and, eq, or } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';

export type MemberRow = Tables['members']['$inferSelect'];
export type MemberScope = 'instance' | 'org' | 'project';

export function memberRepository(db: Db, t: Tables) {
  return {
    /**
     * The memberships that can grant a user permissions when acting in `orgId`: instance
     * memberships, memberships of that organisation, and memberships of its projects.
     */
    async forUserInOrg(userId: string, orgId: string): Promise<Pick<MemberRow, 'scopeType' | 'scopeId' | 'roles'>[]> {
      return db
        .select({ scopeType: t.members.scopeType, scopeId: t.members.scopeId, roles: t.members.roles })
        .from(t.members)
        .where(
          and(
            eq(t.members.userId, userId),
            or(eq(t.members.scopeType, 'instance'), eq(t.members.resourceOwner, orgId)),
          ),
        );
    },
    async get(scopeType: MemberScope, scopeId: string, userId: string): Promise<MemberRow | undefined> {
      const [row] = await db
        .select()
        .from(t.members)
        .where(and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId), eq(t.members.userId, userId)))
        .limit(1);
      return row;
    },
    async insert(row: MemberRow): Promise<void> {
      await db.insert(t.members).values(row);
    },
  };
}
