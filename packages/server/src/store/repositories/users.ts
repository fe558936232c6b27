import { eq } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';

export type UserRow = Tables['users']['$inferSelect'];

export function userRepository(db: Db, t: Tables) {
  return {
    async get(id: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(t.users).where(eq(t.users.id, id)).limit(1);
      return row;
    },
    async insert(row: UserRow): Promise<void> {
      await db.insert(t.users).values(row);
    },
  };
}
