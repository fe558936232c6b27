import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import { selectPage, type TextMatch, textCondition } from './search.js';

export type ProjectRow = Tables['projects']['$inferSelect'];
export type ProjectRoleRow = Tables['projectRoles']['$inferSelect'];

export interface ProjectFilter {
  orgId: string;
  /** Only these projects (a caller whose permission covers only some projects). */
  ids?: string[];
  name?: TextMatch;
  limit: number;
  offset: number;
  asc: boolean;
}

export interface ProjectRoleFilter {
  projectId: string;
  key?: TextMatch;
  displayName?: TextMatch;
  limit: number;
  offset: number;
  asc: boolean;
}

export function projectRepository(db: Db, t: Tables) {
  const p = t.projects;
  const r = t.projectRoles;
  // Read for every token and userinfo of an application (role assertion, project checks): prepared.
  const byId = once(() =>
    db
      .select()
      .from(p)
      .where(eq(p.id, sql.placeholder('id')))
      .limit(1)
      .prepare('projects_by_id'),
  );
  return {
    /** The project if it belongs to `orgId` (projects of other organisations do not exist there). */
    async getInOrg(id: string, orgId: string): Promise<ProjectRow | undefined> {
      const [row] = await db
        .select()
        .from(p)
        .where(and(eq(p.id, id), eq(p.orgId, orgId)))
        .limit(1);
      return row;
    },
    async get(id: string): Promise<ProjectRow | undefined> {
      const [row] = await byId().execute({ id });
      return row;
    },
    async update(
      id: string,
      change: Partial<Pick<ProjectRow, 'name' | 'state' | 'projectRoleAssertion' | 'projectRoleCheck' | 'hasProjectCheck' | 'privateLabelingSetting' | 'sequence' | 'changedAt'>>,
    ): Promise<void> {
      await db.update(p).set(change).where(eq(p.id, id));
    },
    async getByName(orgId: string, name: string): Promise<ProjectRow | undefined> {
      const [row] = await db
        .select()
        .from(p)
        .where(and(eq(p.orgId, orgId), eq(p.name, name)))
        .limit(1);
      return row;
    },
    async byIds(ids: string[]): Promise<ProjectRow[]> {
      if (ids.length === 0) return [];
      return db.select().from(p).where(inArray(p.id, ids));
    },
    async insert(row: ProjectRow): Promise<void> {
      await db.insert(p).values(row);
    },
    async touch(id: string, sequence: number, changedAt: Date): Promise<void> {
      await db.update(p).set({ sequence, changedAt }).where(eq(p.id, id));
    },
    async search(filter: ProjectFilter): Promise<{ total: number; rows: ProjectRow[] }> {
      const conditions: (SQL | undefined)[] = [eq(p.orgId, filter.orgId)];
      if (filter.ids) conditions.push(filter.ids.length ? inArray(p.id, filter.ids) : eq(p.id, ''));
      if (filter.name) conditions.push(textCondition(p.name, filter.name));
      const where = and(...conditions);
      return selectPage(db, p, where, [p.createdAt, p.id], filter);
    },

    roles: {
      async get(projectId: string, roleKey: string): Promise<ProjectRoleRow | undefined> {
        const [row] = await db
          .select()
          .from(r)
          .where(and(eq(r.projectId, projectId), eq(r.roleKey, roleKey)))
          .limit(1);
        return row;
      },
      /** Which of `keys` are defined on the project. */
      async existingKeys(projectId: string, keys: string[]): Promise<string[]> {
        if (keys.length === 0) return [];
        const rows = await db
          .select({ key: r.roleKey })
          .from(r)
          .where(and(eq(r.projectId, projectId), inArray(r.roleKey, keys)));
        return rows.map((row) => row.key);
      },
      async insert(rows: ProjectRoleRow[]): Promise<void> {
        if (rows.length) await db.insert(r).values(rows);
      },
      async update(projectId: string, roleKey: string, change: Partial<Pick<ProjectRoleRow, 'displayName' | 'group' | 'sequence' | 'changedAt'>>): Promise<void> {
        await db
          .update(r)
          .set(change)
          .where(and(eq(r.projectId, projectId), eq(r.roleKey, roleKey)));
      },
      async remove(projectId: string, roleKey: string): Promise<void> {
        await db.delete(r).where(and(eq(r.projectId, projectId), eq(r.roleKey, roleKey)));
      },
      async search(filter: ProjectRoleFilter): Promise<{ total: number; rows: ProjectRoleRow[] }> {
        const conditions: (SQL | undefined)[] = [eq(r.projectId, filter.projectId)];
        if (filter.key) conditions.push(textCondition(r.roleKey, filter.key));
        if (filter.displayName) conditions.push(textCondition(r.displayName, filter.displayName));
        const where = and(...conditions);
        return selectPage(db, r, where, [r.roleKey], filter);
      },
    },
  };
}
