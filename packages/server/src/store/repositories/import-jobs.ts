import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { and, asc, eq, gte, inArray, lt, notInArray, or } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import { type PageQuery, selectPage } from './search.js';

export type ImportJobRow = Tables['importJobs']['$inferSelect'];

/** The phases in which a job is being worked on (by the process holding its lease). */
export const RUNNING_IMPORT_PHASES = ['reading', 'validating', 'importing'] as const;
const ENDED = ['done', 'failed', 'cancelled'];
/** Characters of a job's answer per row of import_job_results. */
const RESULT_PART_CHARS = 1024 * 1024;

/** Import jobs (domain/transfer/import/jobs.ts, background/import-job-worker.ts). */
export function importJobRepository(db: Db, t: Tables, dialect: { skipLocked: boolean }) {
  const j = t.importJobs;
  const r = t.importJobResults;
  /**
   * Every write of a worker names its lease: a worker whose lease another one took, or whose job
   * was cancelled before it began, writes nothing.
   */
  const leased = (id: string, owner: string) => and(eq(j.id, id), eq(j.leaseOwner, owner), notInArray(j.phase, ENDED));
  return {
    async insert(row: ImportJobRow): Promise<void> {
      await db.insert(j).values(row);
    },
    async get(id: string): Promise<ImportJobRow | undefined> {
      const [row] = await db.select().from(j).where(eq(j.id, id)).limit(1);
      return row;
    },
    async search(page: PageQuery): Promise<{ total: number; rows: ImportJobRow[] }> {
      return selectPage(db, j, undefined, [j.createdAt, j.id], page);
    },
    /**
     * Leases the oldest job of `node` that is queued, or whose worker's lease ran out (its process
     * stopped mid-run), until `leaseUntil`, and returns it as it was before: a phase other than
     * `queued` says it was interrupted. On PostgreSQL the candidate is locked `for update skip
     * locked`, so two processes never lease one job; SQLite runs one write transaction at a time.
     */
    async claim(node: string, owner: string, now: Date, leaseUntil: Date): Promise<ImportJobRow | undefined> {
      const due = and(eq(j.node, node), or(eq(j.phase, 'queued'), and(inArray(j.phase, [...RUNNING_IMPORT_PHASES]), lt(j.leaseUntil, now))));
      const candidates = db.select({ id: j.id }).from(j).where(due).orderBy(asc(j.createdAt), asc(j.id)).limit(1);
      const [candidate] = await (dialect.skipLocked ? candidates.for('update', { skipLocked: true }) : candidates);
      if (!candidate) return undefined;
      const [before] = await db.select().from(j).where(eq(j.id, candidate.id)).limit(1);
      const taken = await db
        .update(j)
        .set({ leaseOwner: owner, leaseUntil })
        .where(and(eq(j.id, candidate.id), due))
        .returning({ id: j.id });
      return taken.length === 1 ? before : undefined;
    },
    /** Running jobs of `node` whose lease has not run out, with its holder. */
    async leasedRunning(node: string, now: Date): Promise<{ id: string; leaseOwner: string }[]> {
      const rows = await db
        .select({ id: j.id, leaseOwner: j.leaseOwner })
        .from(j)
        .where(and(eq(j.node, node), inArray(j.phase, [...RUNNING_IMPORT_PHASES]), gte(j.leaseUntil, now)));
      return rows.flatMap((r) => (r.leaseOwner ? [{ id: r.id, leaseOwner: r.leaseOwner }] : []));
    },
    /** Ends `owner`'s lease now (its process is known to be gone): the job is due for `claim` at once. */
    async expireLease(id: string, owner: string, at: Date): Promise<boolean> {
      const rows = await db.update(j).set({ leaseUntil: at }).where(leased(id, owner)).returning({ id: j.id });
      return rows.length === 1;
    },
    /** Extends the lease; undefined when `owner` no longer holds it, else whether a cancel was asked for. */
    async renewLease(id: string, owner: string, leaseUntil: Date): Promise<{ cancelRequested: boolean } | undefined> {
      const [row] = await db.update(j).set({ leaseUntil }).where(leased(id, owner)).returning({ cancelRequested: j.cancelRequested });
      return row;
    },
    /** A leased job's phase, progress or end; false when `owner` no longer holds the lease. */
    async update(id: string, owner: string, change: Partial<ImportJobRow>): Promise<boolean> {
      const rows = await db.update(j).set(change).where(leased(id, owner)).returning({ id: j.id });
      return rows.length === 1;
    },
    /** Adds an organisation to the job's committed ones, in that organisation's transaction; false without the lease. */
    async addCommittedOrg(id: string, owner: string, orgId: string, at: Date): Promise<boolean> {
      const [row] = await db.select({ committed: j.committedOrgIds }).from(j).where(leased(id, owner)).limit(1);
      if (!row) return false;
      await db
        .update(j)
        .set({ committedOrgIds: [...row.committed, orgId], changedAt: at })
        .where(leased(id, owner));
      return true;
    },
    /** A caller's change if the job is still in `phase`; false when it is not. */
    async changeIfPhase(id: string, phase: string, change: Partial<ImportJobRow>): Promise<boolean> {
      const rows = await db
        .update(j)
        .set(change)
        .where(and(eq(j.id, id), eq(j.phase, phase)))
        .returning({ id: j.id });
      return rows.length === 1;
    },
    /**
     * The job's answer, written as JSON text in parts of RESULT_PART_CHARS (in the transaction that
     * ends the job), with a turn of the event loop after each part: on SQLite an insert is a
     * synchronous call, and a million ids are 20–70 parts (issue 49: 90–130 ms of the thread's CPU
     * at a stretch after an organisation's COMMIT; test/transfer/import-loop-turns.test.ts: 148 ms
     * for 48 parts).
     */
    async saveResult(id: string, text: AsyncIterable<string>): Promise<void> {
      let part = 0;
      let buffer = '';
      for await (const piece of text) {
        buffer += piece;
        if (buffer.length < RESULT_PART_CHARS) continue;
        await db.insert(r).values({ jobId: id, part: part++, text: buffer });
        buffer = '';
        await yieldToEventLoop();
      }
      if (buffer || part === 0) await db.insert(r).values({ jobId: id, part, text: buffer });
    },
    /** The job's answer as JSON text, read a part at a time (nothing when it has none). */
    async *resultText(id: string): AsyncGenerator<string> {
      for (let part = 0; ; part++) {
        const [row] = await db
          .select({ text: r.text })
          .from(r)
          .where(and(eq(r.jobId, id), eq(r.part, part)))
          .limit(1);
        if (!row) return;
        yield row.text;
      }
    },
    /** A caller's change (a cancel), with its event's sequence. */
    async change(id: string, change: Partial<ImportJobRow>): Promise<void> {
      await db.update(j).set(change).where(eq(j.id, id));
    },
  };
}
