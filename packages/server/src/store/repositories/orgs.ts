import { eq } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';

export type OrgRow = Tables['orgs']['$inferSelect'];

export function orgRepository(db: Db, t: Tables) {
  return {
    async get(id: string): Promise<OrgRow | undefined> {
      const [row] = await db.select().from(t.orgs).where(eq(t.orgs.id, id)).limit(1);
      return row;
    },
    async exists(id: string): Promise<boolean> {
      const [row] = await db.select({ id: t.orgs.id }).from(t.orgs).where(eq(t.orgs.id, id)).limit(1);
      return row !== undefined;
    },
    async insert(row: OrgRow): Promise<void> {
      await db.insert(t.orgs).values(row);
    },
  };
}
