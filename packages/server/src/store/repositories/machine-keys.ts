import { and, asc, count, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './search.js';
import type { UserRow } from './users.js';

export type MachineKeyRow = Tables['machineKeys']['$inferSelect'];

/** Public keys of machine users (domain/users/machine-keys.ts). */
export function machineKeyRepository(db: Db, t: Tables) {
  const k = t.machineKeys;
  // Read on every JWT-profile grant: prepared, the key with its user (one round trip on PostgreSQL,
  // not two). The expiry is checked on the row (a placeholder cannot carry a Date on both dialects).
  const withUser = once(() =>
    db
      .select({ publicKey: k.publicKey, expiresAt: k.expiresAt, user: getTableColumns(t.users) })
      .from(k)
      .innerJoin(t.users, eq(t.users.id, k.userId))
      // A user of a removed organisation signs nothing in, though its rows may not be gone yet (users.ts).
      .innerJoin(t.orgs, eq(t.orgs.id, t.users.orgId))
      .where(and(eq(k.userId, sql.placeholder('userId')), eq(k.id, sql.placeholder('keyId'))))
      .limit(1)
      .prepare('machine_keys_with_user'),
  );
  return {
    async insert(row: MachineKeyRow): Promise<void> {
      await db.insert(k).values(row);
    },
    async get(userId: string, keyId: string): Promise<MachineKeyRow | undefined> {
      const [row] = await db
        .select()
        .from(k)
        .where(and(eq(k.userId, userId), eq(k.id, keyId)))
        .limit(1);
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
     * The public key (SPKI PEM) a JWT of the user signed with `keyId` must verify with, and the
     * user's row, if both exist and the key has not expired at `now` (for the JWT-profile grant).
     */
    async usableKeyWithUser(userId: string, keyId: string, now: Date): Promise<{ publicKey: string; user: UserRow } | undefined> {
      const [row] = await withUser().execute({ userId, keyId });
      return row && row.expiresAt.getTime() > now.getTime() ? { publicKey: row.publicKey, user: row.user } : undefined;
    },
    async remove(id: string): Promise<void> {
      await db.delete(k).where(eq(k.id, id));
    },
  };
}
