import { and, asc, count, desc, eq, gte, inArray, lte, max, type SQL } from 'drizzle-orm';
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
  creator?: string;
  from?: Date;
  until?: Date;
  limit: number;
  offset: number;
  asc: boolean;
}

export function eventRepository(db: Db, t: Tables) {
  return {
    /**
     * Appends one event with the aggregate's next sequence. Must run inside a transaction;
     * the unique (aggregate, sequence) key rejects a concurrent writer that read the same max.
     */
    async append(event: NewEvent, at: Date = new Date()): Promise<StoredEvent> {
      const [{ current }] = await db
        .select({ current: max(t.events.sequence) })
        .from(t.events)
        .where(and(eq(t.events.aggregateType, event.aggregateType), eq(t.events.aggregateId, event.aggregateId)));
      const sequence = Number(current ?? 0) + 1;
      const [row] = await db
        .insert(t.events)
        .values({ ...event, sequence, createdAt: at })
        .returning({ position: t.events.position });
      return { ...event, sequence, createdAt: at, position: row.position };
    },

    async search(filter: EventFilter): Promise<{ total: number; events: StoredEvent[] }> {
      const conditions: SQL[] = [];
      if (filter.aggregateId) conditions.push(eq(t.events.aggregateId, filter.aggregateId));
      if (filter.creator) conditions.push(eq(t.events.creator, filter.creator));
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
