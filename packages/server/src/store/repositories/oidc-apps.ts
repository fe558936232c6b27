import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './orgs.js';

export type OidcAppRow = Tables['oidcApps']['$inferSelect'];

export function oidcAppRepository(db: Db, t: Tables) {
  const a = t.oidcApps;
  // Every token request and introspection looks its client up (oidc/clients.ts): prepared.
  const byClientIdQuery = once(() =>
    db
      .select()
      .from(a)
      .where(eq(a.clientId, sql.placeholder('clientId')))
      .limit(1)
      .prepare('oidc_apps_by_client_id'),
  );
  return {
    async get(projectId: string, appId: string): Promise<OidcAppRow | undefined> {
      const [row] = await db
        .select()
        .from(a)
        .where(and(eq(a.projectId, projectId), eq(a.id, appId)))
        .limit(1);
      return row;
    },
    async byClientId(clientId: string): Promise<OidcAppRow | undefined> {
      const [row] = await byClientIdQuery().execute({ clientId });
      return row;
    },
    async insert(row: OidcAppRow): Promise<void> {
      await db.insert(a).values(row);
    },
    async update(id: string, change: Partial<Pick<OidcAppRow, 'name' | 'config' | 'clientSecretHash' | 'state'>> & { sequence: number; changedAt: Date }): Promise<void> {
      await db.update(a).set(change).where(eq(a.id, id));
    },
    async remove(id: string): Promise<void> {
      await db.delete(a).where(eq(a.id, id));
    },
    async search(projectId: string, page: PageQuery): Promise<{ total: number; rows: OidcAppRow[] }> {
      const where = eq(a.projectId, projectId);
      const [{ total }] = await db.select({ total: count() }).from(a).where(where);
      const order = page.asc ? asc : desc;
      const rows = await db.select().from(a).where(where).orderBy(order(a.createdAt), order(a.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
  };
}
