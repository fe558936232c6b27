import { and, asc, desc, eq, gt, gte, inArray, lt, lte, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';

export interface NewEvent {
  aggregateType: string;
  aggregateId: string;
  type: string;
  payload: Record<string, unknown>;
  creator: string;
  resourceOwner: string;
}

export interface StoredEvent extends NewEvent {
  position: number;
  sequence: number;
  createdAt: Date;
}

/** The top-level payload fields a search may match: an application's or a project grant's events on their project. */
export type PayloadKey = 'appId' | 'grantId';

/**
 * What the trail's readers ask for (ListEvents, the change lists; later the history an export
 * carries). Every field but paging is optional and they combine. Ordered by position (the log's
 * order, which within one aggregate is its sequence order).
 */
export interface EventFilter {
  aggregateTypes?: string[];
  aggregateId?: string;
  eventTypes?: string[];
  resourceOwner?: string;
  creator?: string;
  from?: Date;
  until?: Date;
  /**
   * ZITADEL's change cursor: only events past this aggregate sequence in the order read (greater
   * when ascending, smaller when descending). Meaningful within one aggregate.
   */
  sequenceBeyond?: number;
  /** Only events whose payload's field has this (string) value. */
  payload?: { key: PayloadKey; value: string };
  limit: number;
  offset: number;
  asc: boolean;
}

const PAYLOAD_KEYS: readonly PayloadKey[] = ['appId', 'grantId'];

/**
 * Appends one event with the aggregate's next sequence; must run inside a transaction. Each
 * dialect has its own (sqlite-hot-path.ts, postgres-hot-path.ts), so drizzle has none: taking
 * the sequence (one upsert of the aggregate's `aggregate_sequences` row) locks that row until
 * the transaction ends, so writers of one aggregate are serialised and gapless on both
 * dialects; the unique (aggregate, sequence) key of events is the backstop.
 */
export type AppendEvent = (event: NewEvent, at?: Date) => Promise<StoredEvent>;

/** Events of distinct aggregates, appended in the order given (a dialect's bulk statement). */
export type AppendEvents = (events: readonly NewEvent[], at?: Date) => Promise<StoredEvent[]>;

export function eventRepository(db: Db, t: Tables, append: AppendEvent, appendDistinct?: AppendEvents, settled?: () => Promise<number | undefined>) {
  /** The highest position in the log (0 when empty). */
  async function lastPosition(): Promise<number> {
    const rows = await db.select({ position: sql<number>`max(${t.events.position})` }).from(t.events);
    return Number(rows[0]?.position ?? 0);
  }
  return {
    append,

    /**
     * Many events in the order given, as `append` would append them one after the other (what a
     * cascade writes: an event per removed user, membership, grant). Where the dialect has a bulk
     * statement, each run of events on distinct aggregates goes at once: an aggregate met again
     * starts the next run, so every aggregate's sequences, and all positions, keep the given order.
     */
    async appendAll(events: readonly NewEvent[], at: Date = new Date()): Promise<StoredEvent[]> {
      if (!appendDistinct) {
        const stored: StoredEvent[] = [];
        for (const event of events) stored.push(await append(event, at));
        return stored;
      }
      const stored: StoredEvent[] = [];
      let run: NewEvent[] = [];
      const seen = new Set<string>();
      for (const event of events) {
        const key = `${event.aggregateType}\u0000${event.aggregateId}`;
        if (seen.has(key)) {
          stored.push(...(await appendDistinct(run, at)));
          run = [];
          seen.clear();
        }
        seen.add(key);
        run.push(event);
      }
      if (run.length) stored.push(...(await appendDistinct(run, at)));
      return stored;
    },

    /** Whether the aggregate ever had an event: ids of removed objects stay taken (ZITADEL's rule). */
    async exists(aggregateType: string, aggregateId: string): Promise<boolean> {
      const rows = await db
        .select({ sequence: t.events.sequence })
        .from(t.events)
        .where(and(eq(t.events.aggregateType, aggregateType), eq(t.events.aggregateId, aggregateId)))
        .limit(1);
      return rows.length > 0;
    },

    /**
     * Which of these aggregates of one type ever had an event (an import gives a carried history only
     * to an aggregate without one: domain/transfer/history.ts). In chunks, so a page of users is one
     * statement per 500 ids, read from the (type, id, sequence) index.
     */
    async withTrail(aggregateType: string, aggregateIds: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      const ids = [...new Set(aggregateIds)];
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await db
          .selectDistinct({ id: t.events.aggregateId })
          .from(t.events)
          .where(and(eq(t.events.aggregateType, aggregateType), inArray(t.events.aggregateId, ids.slice(i, i + 500))));
        for (const row of rows) found.add(row.id);
      }
      return found;
    },

    /**
     * The events of these aggregates of one type (an export's page of users), aggregate by aggregate
     * in sequence order: the order of the (type, id, sequence) index, so a page is read from the
     * index alone (ordered by position, SQLite walked the whole log for every page).
     */
    async ofAggregates(aggregateType: string, aggregateIds: string[], limit: number, offset: number): Promise<StoredEvent[]> {
      if (!aggregateIds.length) return [];
      return db
        .select()
        .from(t.events)
        .where(and(eq(t.events.aggregateType, aggregateType), inArray(t.events.aggregateId, aggregateIds)))
        .orderBy(asc(t.events.aggregateType), asc(t.events.aggregateId), asc(t.events.sequence))
        .limit(limit)
        .offset(offset);
    },

    /**
     * What changed after `position` up to `upTo` in the organisations `owners` (all when omitted), in log order,
     * at most `limit`, none by `notBy` (an incremental export: domain/transfer/changes.ts); only what that needs of each event.
     */
    async touchedSince(position: number, upTo: number, owners: readonly string[] | undefined, limit: number, notBy?: string) {
      return db
        .select({
          position: t.events.position,
          aggregateType: t.events.aggregateType,
          aggregateId: t.events.aggregateId,
          type: t.events.type,
          payload: t.events.payload,
          resourceOwner: t.events.resourceOwner,
        })
        .from(t.events)
        .where(and(gt(t.events.position, position), lte(t.events.position, upTo), owners ? inArray(t.events.resourceOwner, [...owners]) : undefined, notBy ? ne(t.events.creator, notBy) : undefined))
        .orderBy(asc(t.events.position))
        .limit(limit);
    },

    lastPosition,

    /**
     * The highest position below which no event can still appear (an incremental export's
     * checkpoint); undefined when a transaction that may hold a lower one is still running
     * (PostgreSQL, postgres-settled-position.ts). SQLite commits in position order: the last.
     */
    async settledPosition(): Promise<number | undefined> {
      return settled ? settled() : lastPosition();
    },

    /** A page of events (no count: the trail's readers page by cursor or offset, and counting the whole log costs). */
    async search(filter: EventFilter): Promise<{ events: StoredEvent[] }> {
      const conditions: SQL[] = [];
      if (filter.aggregateId) conditions.push(eq(t.events.aggregateId, filter.aggregateId));
      if (filter.creator) conditions.push(eq(t.events.creator, filter.creator));
      if (filter.resourceOwner) conditions.push(eq(t.events.resourceOwner, filter.resourceOwner));
      if (filter.eventTypes?.length) conditions.push(inArray(t.events.type, filter.eventTypes));
      if (filter.from) conditions.push(gte(t.events.createdAt, filter.from));
      if (filter.until) conditions.push(lte(t.events.createdAt, filter.until));
      if (filter.aggregateTypes?.length) conditions.push(inArray(t.events.aggregateType, filter.aggregateTypes));
      if (filter.sequenceBeyond) conditions.push((filter.asc ? gt : lt)(t.events.sequence, filter.sequenceBeyond));
      if (filter.payload) {
        // `->>` reads a field as text alike on PostgreSQL's jsonb and SQLite's (3.38+) JSON text. The
        // key is one of ours, never the caller's (it is written into the statement).
        if (!PAYLOAD_KEYS.includes(filter.payload.key)) throw new Error(`not a searchable payload key: ${filter.payload.key}`);
        conditions.push(sql`${t.events.payload} ->> ${sql.raw(`'${filter.payload.key}'`)} = ${filter.payload.value}`);
      }
      const events = await db
        .select()
        .from(t.events)
        .where(and(...conditions))
        .orderBy(filter.asc ? asc(t.events.position) : desc(t.events.position))
        .limit(filter.limit)
        .offset(filter.offset);
      return { events };
    },
  };
}
