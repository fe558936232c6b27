import { eq } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';

export type PersonalAccessTokenRow = Tables['personalAccessTokens']['$inferSelect'];

export interface TokenOwner {
  tokenId: string;
  userId: string;
  orgId: string;
  userState: string;
  expiresAt: Date;
}

export function tokenRepository(db: Db, t: Tables) {
  return {
    /** The token with this hash and its user, in one round trip (hot path of every request). */
    async findOwnerByHash(tokenHash: string): Promise<TokenOwner | undefined> {
      const [row] = await db
        .select({
          tokenId: t.personalAccessTokens.id,
          userId: t.users.id,
          orgId: t.users.orgId,
          userState: t.users.state,
          expiresAt: t.personalAccessTokens.expiresAt,
        })
        .from(t.personalAccessTokens)
        .innerJoin(t.users, eq(t.users.id, t.personalAccessTokens.userId))
        .where(eq(t.personalAccessTokens.tokenHash, tokenHash))
        .limit(1);
      return row;
    },
    async insert(row: PersonalAccessTokenRow): Promise<void> {
      await db.insert(t.personalAccessTokens).values(row);
    },
  };
}
