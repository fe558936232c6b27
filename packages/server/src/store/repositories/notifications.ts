import { and, asc, count, desc, eq, inArray, isNull, lt, lte, or, type SQL } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import type { PageQuery } from './search.js';

export type OutboxRow = Tables['outbox']['$inferSelect'];
export type UserCodeRow = Tables['userCodes']['$inferSelect'];
export type SmtpProviderRow = Tables['smtpProviders']['$inferSelect'];

/** The outbox, users' one-time codes and the SMTP providers (domain/notifications/). */
export function notificationRepository(db: Db, t: Tables, dialect: { skipLocked: boolean }) {
  const o = t.outbox;
  return {
    async enqueue(row: OutboxRow): Promise<void> {
      await db.insert(o).values(row);
    },
    /**
     * Leases up to `limit` due messages until `leaseUntil` and returns them. On PostgreSQL the
     * candidates are locked `for update skip locked`, so concurrent workers take different rows;
     * SQLite runs one write transaction at a time anyway.
     */
    async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<OutboxRow[]> {
      const due = and(eq(o.status, 'pending'), lte(o.nextAttemptAt, now), or(isNull(o.leaseUntil), lt(o.leaseUntil, now)));
      const candidates = db.select({ id: o.id }).from(o).where(due).orderBy(asc(o.nextAttemptAt), asc(o.id)).limit(limit);
      const ids = (await (dialect.skipLocked ? candidates.for('update', { skipLocked: true }) : candidates)).map((r) => r.id);
      if (ids.length === 0) return [];
      return db
        .update(o)
        .set({ leaseUntil })
        .where(and(inArray(o.id, ids), due))
        .returning();
    },
    /**
     * Extends the lease `lease` (the exact lease time a worker was given, its token) to `until`;
     * false when the message is no longer pending under that lease (it ran out and another worker
     * leased the message, which then sends it).
     */
    async renewLease(id: string, lease: Date, until: Date): Promise<boolean> {
      const rows = await db
        .update(o)
        .set({ leaseUntil: until })
        .where(and(eq(o.id, id), eq(o.status, 'pending'), eq(o.leaseUntil, lease)))
        .returning({ id: o.id });
      return rows.length === 1;
    },
    /** Records the outcome, if the message is still under this lease. */
    async markSent(id: string, lease: Date, via: string, at: Date): Promise<void> {
      await db
        .update(o)
        .set({ status: 'sent', deliveredVia: via, sentAt: at, leaseUntil: null, lastError: null })
        .where(and(eq(o.id, id), eq(o.leaseUntil, lease)));
    },
    async markAttemptFailed(id: string, lease: Date, attempts: number, error: string, next: Date | undefined): Promise<void> {
      await db
        .update(o)
        .set(next ? { attempts, lastError: error, nextAttemptAt: next, leaseUntil: null } : { attempts, lastError: error, status: 'failed', leaseUntil: null })
        .where(and(eq(o.id, id), eq(o.leaseUntil, lease)));
    },
    async get(id: string): Promise<OutboxRow | undefined> {
      const [row] = await db.select().from(o).where(eq(o.id, id)).limit(1);
      return row;
    },
    async search(filter: { status?: string; userId?: string; messageType?: string }, page: PageQuery): Promise<{ total: number; rows: OutboxRow[] }> {
      const conditions: SQL[] = [];
      if (filter.status) conditions.push(eq(o.status, filter.status));
      if (filter.userId) conditions.push(eq(o.userId, filter.userId));
      if (filter.messageType) conditions.push(eq(o.messageType, filter.messageType));
      const where = conditions.length ? and(...conditions) : undefined;
      const [{ total }] = await db.select({ total: count() }).from(o).where(where);
      const direction = page.asc ? asc : desc;
      const rows = await db.select().from(o).where(where).orderBy(direction(o.createdAt), direction(o.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    async countByStatus(): Promise<Record<string, number>> {
      const rows = await db.select({ status: o.status, n: count() }).from(o).groupBy(o.status);
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },

    // ---- one-time codes ----
    async code(userId: string, kind: string): Promise<UserCodeRow | undefined> {
      const [row] = await db
        .select()
        .from(t.userCodes)
        .where(and(eq(t.userCodes.userId, userId), eq(t.userCodes.kind, kind)))
        .limit(1);
      return row;
    },
    async putCode(row: UserCodeRow): Promise<void> {
      await db.delete(t.userCodes).where(and(eq(t.userCodes.userId, row.userId), eq(t.userCodes.kind, row.kind)));
      await db.insert(t.userCodes).values(row);
    },
    async setCodeAttempts(userId: string, kind: string, attempts: number): Promise<void> {
      await db
        .update(t.userCodes)
        .set({ attempts })
        .where(and(eq(t.userCodes.userId, userId), eq(t.userCodes.kind, kind)));
    },
    async removeCode(userId: string, kind: string): Promise<void> {
      await db.delete(t.userCodes).where(and(eq(t.userCodes.userId, userId), eq(t.userCodes.kind, kind)));
    },

    // ---- SMTP providers ----
    async provider(id: string): Promise<SmtpProviderRow | undefined> {
      const [row] = await db.select().from(t.smtpProviders).where(eq(t.smtpProviders.id, id)).limit(1);
      return row;
    },
    async activeProvider(): Promise<SmtpProviderRow | undefined> {
      const [row] = await db.select().from(t.smtpProviders).where(eq(t.smtpProviders.state, 'SMTP_CONFIG_ACTIVE')).limit(1);
      return row;
    },
    async providers(page: PageQuery): Promise<{ total: number; rows: SmtpProviderRow[] }> {
      const [{ total }] = await db.select({ total: count() }).from(t.smtpProviders);
      const direction = page.asc ? asc : desc;
      const rows = await db.select().from(t.smtpProviders).orderBy(direction(t.smtpProviders.createdAt), direction(t.smtpProviders.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total), rows };
    },
    async insertProvider(row: SmtpProviderRow): Promise<void> {
      await db.insert(t.smtpProviders).values(row);
    },
    async updateProvider(id: string, change: Partial<SmtpProviderRow>): Promise<void> {
      await db.update(t.smtpProviders).set(change).where(eq(t.smtpProviders.id, id));
    },
    async removeProvider(id: string): Promise<void> {
      await db.delete(t.smtpProviders).where(eq(t.smtpProviders.id, id));
    },
    async allProviders(): Promise<SmtpProviderRow[]> {
      return db.select().from(t.smtpProviders);
    },
  };
}
