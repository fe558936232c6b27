import { and, asc, count, desc, eq, exists, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './search.js';
import type { UserRow } from './users.js';

export type MemberRow = Tables['members']['$inferSelect'];
/** `project_grant`: members of a project grant (scope id = the grant's id; owner = the granted organisation). */
export type MemberScope = 'instance' | 'org' | 'project' | 'project_grant';
export interface MemberWithUser {
  member: MemberRow;
  user: UserRow;
  /** The primary domain of the user's organisation (for its login name). */
  orgPrimaryDomain: string;
}

export function memberRepository(db: Db, t: Tables) {
  const forUserInOrg = once(() =>
    db
      .select({ scopeType: t.members.scopeType, scopeId: t.members.scopeId, roles: t.members.roles })
      .from(t.members)
      .where(and(eq(t.members.userId, sql.placeholder('userId')), or(eq(t.members.scopeType, 'instance'), eq(t.members.resourceOwner, sql.placeholder('orgId')))))
      .prepare('members_for_user_in_org'),
  );
  return {
    /**
     * The memberships that can grant a user permissions when acting in `orgId`: instance
     * memberships, memberships of that organisation, and memberships of its projects.
     * Runs on every authenticated request, hence prepared.
     */
    async forUserInOrg(userId: string, orgId: string): Promise<Pick<MemberRow, 'scopeType' | 'scopeId' | 'roles'>[]> {
      return forUserInOrg().execute({ userId, orgId });
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
    /** Every membership of the user, whatever its scope (to remove them with the user). */
    async listByUser(userId: string): Promise<MemberRow[]> {
      return db.select().from(t.members).where(eq(t.members.userId, userId));
    },
    /**
     * Every membership held by a user of the organisation, whatever its scope: what removing the
     * organisation would take from its users (domain/users/guard.ts). Memberships are few, an
     * organisation's users may be many: the members are read, each user looked up by its key.
     */
    async heldByUsersOf(orgId: string): Promise<MemberRow[]> {
      // `exists`, not a join: SQLite then reads the members and looks each user up, rather than
      // reading the organisation's users (100,000 of them) and looking each one's memberships up.
      return db
        .select()
        .from(t.members)
        .where(
          exists(
            db
              .select({ one: sql`1` })
              .from(t.users)
              .where(and(eq(t.users.id, t.members.userId), eq(t.users.orgId, orgId))),
          ),
        );
    },
    /** Every membership held by a user linked to the identity provider (domain/users/guard.ts); read as `heldByUsersOf`. */
    async heldByUsersLinkedTo(idpId: string): Promise<MemberRow[]> {
      const l = t.idpUserLinks;
      return db
        .select()
        .from(t.members)
        .where(
          exists(
            db
              .select({ one: sql`1` })
              .from(l)
              .where(and(eq(l.userId, t.members.userId), eq(l.idpId, idpId))),
          ),
        );
    },
    /** Members of one scope with the user and organisation fields a member listing shows. */
    async search(scopeType: MemberScope, scopeId: string, filter: { userIds?: string[] }, page: PageQuery): Promise<{ total: number; rows: MemberWithUser[] }> {
      const where = and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId), filter.userIds ? inArray(t.members.userId, filter.userIds) : undefined);
      const [{ total }] = await db.select({ total: count() }).from(t.members).where(where);
      const order = page.asc ? asc : desc;
      const rows = await db
        .select({ member: t.members, user: t.users, orgPrimaryDomain: t.orgs.primaryDomain })
        .from(t.members)
        .innerJoin(t.users, eq(t.users.id, t.members.userId))
        .innerJoin(t.orgs, eq(t.orgs.id, t.users.orgId))
        .where(where)
        .orderBy(order(t.members.createdAt), order(t.members.userId))
        .limit(page.limit)
        .offset(page.offset);
      return { total: Number(total), rows };
    },
    async update(scopeType: MemberScope, scopeId: string, userId: string, roles: string[], sequence: number, changedAt: Date): Promise<void> {
      await db
        .update(t.members)
        .set({ roles, sequence, changedAt })
        .where(and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId), eq(t.members.userId, userId)));
    },
    /** Every member of one scope (a removed project grant's). */
    async removeScope(scopeType: MemberScope, scopeId: string): Promise<void> {
      await db.delete(t.members).where(and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId)));
    },
    async remove(scopeType: MemberScope, scopeId: string, userId: string): Promise<void> {
      await db.delete(t.members).where(and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId), eq(t.members.userId, userId)));
    },
  };
}
