import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';

/**
 * Setting up a second factor: the authenticator app's secret while it waits for its first code
 * (`user_otp_pending`), and when a user last skipped the offer to set one up (`mfa_init_skips`).
 */
export function otpEnrolmentRepository(db: Db, t: Tables) {
  // Every password sign-in of a user without an authenticator app reads when the offer was last skipped: prepared.
  const initSkipByUser = once(() =>
    db
      .select()
      .from(t.mfaInitSkips)
      .where(eq(t.mfaInitSkips.userId, sql.placeholder('userId')))
      .limit(1)
      .prepare('mfa_init_skips_by_user'),
  );
  return {
    /** The sealed secret of the app being set up, and since when. */
    async pending(userId: string): Promise<{ secret: string; createdAt: Date } | undefined> {
      const [row] = await db.select().from(t.userOtpPending).where(eq(t.userOtpPending.userId, userId)).limit(1);
      return row ? { secret: row.secret, createdAt: row.createdAt } : undefined;
    },
    async setPending(userId: string, secret: string, at: Date): Promise<void> {
      await db
        .insert(t.userOtpPending)
        .values({ userId, secret, createdAt: at })
        .onConflictDoUpdate({ target: t.userOtpPending.userId, set: { secret, createdAt: at } });
    },
    /** Every secret waiting for its first code (few: one per person setting an app up right now), for re-sealing. */
    async allPending(): Promise<{ userId: string; secret: string }[]> {
      return db.select({ userId: t.userOtpPending.userId, secret: t.userOtpPending.secret }).from(t.userOtpPending);
    },
    /** The same secret sealed again (its time kept): only if it is still the one `before` read. */
    async resealPending(userId: string, before: string, after: string): Promise<void> {
      await db
        .update(t.userOtpPending)
        .set({ secret: after })
        .where(and(eq(t.userOtpPending.userId, userId), eq(t.userOtpPending.secret, before)));
    },
    async removePending(userId: string): Promise<void> {
      await db.delete(t.userOtpPending).where(eq(t.userOtpPending.userId, userId));
    },
    async initSkippedAt(userId: string): Promise<Date | undefined> {
      const [row] = await initSkipByUser().execute({ userId });
      return row?.skippedAt;
    },
    async setInitSkipped(userId: string, at: Date): Promise<void> {
      await db
        .insert(t.mfaInitSkips)
        .values({ userId, skippedAt: at })
        .onConflictDoUpdate({ target: t.mfaInitSkips.userId, set: { skippedAt: at } });
    },
  };
}
