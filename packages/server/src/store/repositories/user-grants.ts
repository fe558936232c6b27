import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import type { AppendEvent, NewEvent, StoredEvent } from './events.js';
import { selectPage } from './search.js';

export type UserGrantRow = Tables['userGrants']['$inferSelect'];

/** A grant's removal event as the domain names it; the store adds the grant, its organisation and the payload. */
export type GrantRemoval = Pick<NewEvent, 'aggregateType' | 'type' | 'creator'>;

/** What the checks after a removal need of the removed grant, and the removal's event. */
export interface RemovedUserGrant {
  projectId: string;
  projectGrantId: string | null;
  event: StoredEvent;
}

/** The grant `id` of `userId` in `orgId` removed with its event; undefined, and nothing written, when there is none. */
export type TakeUserGrant = (id: string, orgId: string, userId: string, removal: GrantRemoval, at?: Date) => Promise<RemovedUserGrant | undefined>;

/**
 * The payload of a grant's removal event: the grant's user and project. PostgreSQL's one-statement
 * removal builds the same in SQL (postgres-hot-path.ts; test/store/postgres-hot-path.test.ts compares them).
 */
export const removedGrantPayload = (userId: string, projectId: string) => ({ userId, projectId });

export interface UserGrantFilter {
  orgId: string;
  userId?: string;
  projectId?: string;
  /** Only grants on these projects (a caller whose permission covers only some projects). */
  projectIds?: string[];
  limit: number;
  offset: number;
  asc: boolean;
}

export function userGrantRepository(db: Db, t: Tables, statements: { appendEvent: AppendEvent; takeWithEvent?: TakeUserGrant }) {
  const g = t.userGrants;
  // A grant's read and removal (4.2, RemoveUserGrant) are a hot path: prepared. user_grants is not
  // one of authentication's tables (auth-writes.ts), so its delete may be prepared too.
  const inOrg = once(() =>
    db
      .select()
      .from(g)
      .where(and(eq(g.id, sql.placeholder('id')), eq(g.orgId, sql.placeholder('orgId'))))
      .limit(1)
      .prepare('user_grants_in_org'),
  );
  const removeById = once(() =>
    db
      .delete(g)
      .where(eq(g.id, sql.placeholder('id')))
      .prepare('user_grants_remove'),
  );
  return {
    /** The grant if it belongs to `orgId`: grants of other organisations do not exist there. */
    async getInOrg(id: string, orgId: string): Promise<UserGrantRow | undefined> {
      const [row] = await inOrg().execute({ id, orgId });
      return row;
    },
    async manyInOrg(ids: string[], orgId: string): Promise<UserGrantRow[]> {
      if (ids.length === 0) return [];
      return db
        .select()
        .from(g)
        .where(and(inArray(g.id, ids), eq(g.orgId, orgId)));
    },
    async find(orgId: string, userId: string, projectId: string): Promise<UserGrantRow | undefined> {
      const [row] = await db
        .select()
        .from(g)
        .where(and(eq(g.orgId, orgId), eq(g.userId, userId), eq(g.projectId, projectId)))
        .limit(1);
      return row;
    },
    async byProject(projectId: string): Promise<UserGrantRow[]> {
      return db.select().from(g).where(eq(g.projectId, projectId));
    },
    /** The user grants given through a project grant. */
    async byProjectGrant(projectGrantId: string): Promise<UserGrantRow[]> {
      return db.select().from(g).where(eq(g.projectGrantId, projectGrantId));
    },
    async insert(row: UserGrantRow): Promise<void> {
      await db.insert(g).values(row);
    },
    async update(id: string, change: Partial<Pick<UserGrantRow, 'roleKeys' | 'state'>> & { sequence: number; changedAt: Date }): Promise<void> {
      await db.update(g).set(change).where(eq(g.id, id));
    },
    async remove(id: string): Promise<void> {
      await removeById().execute({ id });
    },
    /**
     * The grant `id` of `userId` in `orgId` removed with its removal event; undefined, and nothing
     * written, when there is no such grant. The caller checks whether it may remove it *after*: a
     * refusal throws, and the transaction's rollback restores the grant and drops the event. That
     * order lets PostgreSQL do it all in one statement (postgres-hot-path.ts: one round trip per
     * removal instead of two); elsewhere it is the read, the append and the delete one after the other.
     */
    async takeInOrgWithEvent(id: string, orgId: string, userId: string, removal: GrantRemoval): Promise<RemovedUserGrant | undefined> {
      if (statements.takeWithEvent) return statements.takeWithEvent(id, orgId, userId, removal);
      const [grant] = await inOrg().execute({ id, orgId });
      if (!grant || grant.userId !== userId) return undefined;
      const event = await statements.appendEvent({ ...removal, aggregateId: id, resourceOwner: orgId, payload: removedGrantPayload(grant.userId, grant.projectId) });
      await removeById().execute({ id });
      return { projectId: grant.projectId, projectGrantId: grant.projectGrantId, event };
    },
    async search(filter: UserGrantFilter): Promise<{ total: number; rows: UserGrantRow[] }> {
      const conditions: SQL[] = [eq(g.orgId, filter.orgId)];
      if (filter.userId) conditions.push(eq(g.userId, filter.userId));
      if (filter.projectId) conditions.push(eq(g.projectId, filter.projectId));
      // A caller's scoped permissions name projects, or project grants (a grant member's).
      if (filter.projectIds) conditions.push(filter.projectIds.length ? or(inArray(g.projectId, filter.projectIds), inArray(g.projectGrantId, filter.projectIds))! : eq(g.id, ''));
      const where = and(...conditions);
      return selectPage(db, g, where, [g.createdAt, g.id], filter);
    },
  };
}
