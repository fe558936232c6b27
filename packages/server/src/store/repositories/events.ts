import { and, asc, count, desc, eq, gte, inArray, lte, type SQL } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';

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

export interface EventFilter {
  aggregateTypes?: string[];
  aggregateId?: string;
  eventTypes?: string[];
  resourceOwner?: string;
  creator?: string;
  from?: Date;
  until?: Date;
  limit: number;
  offset: number;
  asc: boolean;
}

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

export function eventRepository(db: Db, t: Tables, append: AppendEvent, appendDistinct?: AppendEvents) {
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

    async search(filter: EventFilter): Promise<{ total: number; events: StoredEvent[] }> {
      const conditions: SQL[] = [];
      if (filter.aggregateId) conditions.push(eq(t.events.aggregateId, filter.aggregateId));
      if (filter.creator) conditions.push(eq(t.events.creator, filter.creator));
      if (filter.resourceOwner) conditions.push(eq(t.events.resourceOwner, filter.resourceOwner));
      if (filter.eventTypes?.length) conditions.push(inArray(t.events.type, filter.eventTypes));
      if (filter.from) conditions.push(gte(t.events.createdAt, filter.from));
      if (filter.until) conditions.push(lte(t.events.createdAt, filter.until));
      if (filter.aggregateTypes?.length) conditions.push(inArray(t.events.aggregateType, filter.aggregateTypes));
      const where = and(...conditions);
      const [{ total }] = await db.select({ total: count() }).from(t.events).where(where);
      const events = await db
        .select()
        .from(t.events)
        .where(where)
        .orderBy(filter.asc ? asc(t.events.position) : desc(t.events.position))
        .limit(filter.limit)
        .offset(filter.offset);
      return { total: Number(total), events };
    },
  };
}
