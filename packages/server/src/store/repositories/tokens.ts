import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './search.js';

export type PersonalAccessTokenRow = Tables['personalAccessTokens']['$inferSelect'];

export interface TokenOwner {
  tokenId: string;
  userId: string;
  orgId: string;
  userState: string;
  expiresAt: Date;
}

export function tokenRepository(db: Db, t: Tables) {
  const ownerByHash = once(() =>
    db
      .select({
        tokenId: t.personalAccessTokens.id,
        userId: t.users.id,
        orgId: t.users.orgId,
        userState: t.users.state,
        expiresAt: t.personalAccessTokens.expiresAt,
      })
      .from(t.personalAccessTokens)
      .innerJoin(t.users, eq(t.users.id, t.personalAccessTokens.userId))
      // A user of a removed organisation has no valid token, though its rows may not be gone yet (users.ts).
      .innerJoin(t.orgs, eq(t.orgs.id, t.users.orgId))
      .where(eq(t.personalAccessTokens.tokenHash, sql.placeholder('tokenHash')))
      .limit(1)
      .prepare('tokens_owner_by_hash'),
  );
  return {
    /** The token with this hash and its user, in one round trip (hot path of every request: prepared). */
    async findOwnerByHash(tokenHash: string): Promise<TokenOwner | undefined> {
      const [row] = await ownerByHash().execute({ tokenHash });
      return row;
    },
    async insert(row: PersonalAccessTokenRow): Promise<void> {
      await db.insert(t.personalAccessTokens).values(row);
    },
    async getForUser(userId: string, id: string): Promise<PersonalAccessTokenRow | undefined> {
      const [row] = await db
        .select()
        .from(t.personalAccessTokens)
        .where(and(eq(t.personalAccessTokens.userId, userId), eq(t.personalAccessTokens.id, id)))
        .limit(1);
      return row;
    },
    async listByUser(userId: string, page: PageQuery): Promise<{ total: number; rows: PersonalAccessTokenRow[] }> {
      const where = eq(t.personalAccessTokens.userId, userId);
      const [{ total }] = await db.select({ total: count() }).from(t.personalAccessTokens).where(where);
      const order = page.asc ? asc : desc;
      const rows = await db.select().from(t.personalAccessTokens).where(where).orderBy(order(t.personalAccessTokens.createdAt), order(t.personalAccessTokens.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    async remove(id: string): Promise<void> {
      await db.delete(t.personalAccessTokens).where(eq(t.personalAccessTokens.id, id));
    },
  };
}
