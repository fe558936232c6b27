import { and, asc, count, desc, eq, gt } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';
import type { PageQuery } from './search.js';

export type MachineKeyRow = Tables['machineKeys']['$inferSelect'];

/** Public keys of machine users (domain/users/machine-keys.ts). */
export function machineKeyRepository(db: Db, t: Tables) {
  const k = t.machineKeys;
  return {
    async insert(row: MachineKeyRow): Promise<void> {
      await db.insert(k).values(row);
    },
    async get(userId: string, keyId: string): Promise<MachineKeyRow | undefined> {
      const [row] = await db.select().from(k).where(and(eq(k.userId, userId), eq(k.id, keyId))).limit(1);
      return row;
    },
    async listByUser(userId: string, page: PageQuery): Promise<{ total: number; rows: MachineKeyRow[] }> {
      const where = eq(k.userId, userId);
      const [{ total }] = await db.select({ total: count() }).from(k).where(where);
      const order = page.asc ? asc : desc;
      const rows = await db.select().from(k).where(where).orderBy(order(k.createdAt), order(k.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    /**
     * The public key (SPKI PEM) a JWT of the user signed with `keyId` must verify with, if the key
     * exists and has not expired at `now` (for the JWT-profile grant).
     */
    async usablePublicKey(userId: string, keyId: string, now: Date): Promise<string | undefined> {
      const [row] = await db
        .select({ publicKey: k.publicKey })
        .from(k)
        .where(and(eq(k.userId, userId), eq(k.id, keyId), gt(k.expiresAt, now)))
        .limit(1);
      return row?.publicKey;
    },
    async remove(id: string): Promise<void> {
      await db.delete(k).where(eq(k.id, id));
    },
    async removeByUser(userId: string): Promise<void> {
      await db.delete(k).where(eq(k.userId, userId));
    },
  };
}
