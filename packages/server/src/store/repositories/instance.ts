import type { Db } from '../db.js';
import type { Tables } from '../schema.js';

export interface InstanceRow {
  id: string;
  defaultOrgId: string;
  domain: string;
  createdAt: Date;
}

export function instanceRepository(db: Db, t: Tables) {
  return {
    async get(): Promise<InstanceRow | undefined> {
      const [row] = await db.select().from(t.instances).limit(1);
      return row;
    },
    async insert(row: InstanceRow): Promise<void> {
      await db.insert(t.instances).values(row);
    },
  };
}
