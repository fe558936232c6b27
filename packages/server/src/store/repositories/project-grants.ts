import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import { type PageQuery, selectPage } from './search.js';

export type ProjectGrantRow = Tables['projectGrants']['$inferSelect'];

/** Projects granted to other organisations (domain/projects/grants.ts). */
export function projectGrantRepository(db: Db, t: Tables) {
  const g = t.projectGrants;
  return {
    async get(id: string): Promise<ProjectGrantRow | undefined> {
      const [row] = await db.select().from(g).where(eq(g.id, id)).limit(1);
      return row;
    },
    /** The grant of `projectId` to `grantedOrgId` (a project is granted to an organisation once). */
    async find(projectId: string, grantedOrgId: string): Promise<ProjectGrantRow | undefined> {
      const [row] = await db
        .select()
        .from(g)
        .where(and(eq(g.projectId, projectId), eq(g.grantedOrgId, grantedOrgId)))
        .limit(1);
      return row;
    },
    async byProject(projectId: string): Promise<ProjectGrantRow[]> {
      return db.select().from(g).where(eq(g.projectId, projectId)).orderBy(asc(g.createdAt), asc(g.id));
    },
    /** Grants owned by `orgId` (its projects granted to others), for the export. */
    async ownedBy(orgId: string): Promise<ProjectGrantRow[]> {
      return db.select().from(g).where(eq(g.orgId, orgId)).orderBy(asc(g.createdAt), asc(g.id));
    },
    async existingIds(ids: string[]): Promise<Set<string>> {
      if (!ids.length) return new Set();
      return new Set((await db.select({ id: g.id }).from(g).where(inArray(g.id, ids))).map((r) => r.id));
    },
    async insert(row: ProjectGrantRow): Promise<void> {
      await db.insert(g).values(row);
    },
    async update(id: string, change: Partial<Pick<ProjectGrantRow, 'roleKeys' | 'state'>> & { sequence: number; changedAt: Date }): Promise<void> {
      await db.update(g).set(change).where(eq(g.id, id));
    },
    async remove(id: string): Promise<void> {
      await db.delete(g).where(eq(g.id, id));
    },
    /** A project's grants, oldest first (or newest first). */
    async search(projectId: string, page: PageQuery): Promise<{ total: number; rows: ProjectGrantRow[] }> {
      return selectPage(db, g, eq(g.projectId, projectId), [g.createdAt, g.id], page);
    },
    /** Grants to `grantedOrgId` (the projects it was granted), for ListGrantedProjects. */
    async grantedTo(grantedOrgId: string, page: PageQuery, projectIds?: string[]): Promise<{ total: number; rows: ProjectGrantRow[] }> {
      // Scoped callers name projects, or grants (a grant member's scope is the grant).
      const only = projectIds === undefined ? undefined : projectIds.length ? or(inArray(g.projectId, projectIds), inArray(g.id, projectIds)) : eq(g.id, '');
      return selectPage(db, g, and(eq(g.grantedOrgId, grantedOrgId), only), [g.createdAt, g.id], page);
    },
  };
}
