import { and, asc, count, desc, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { once } from '../prepared.js';
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

export function eventRepository(db: Db, t: Tables) {
  // Every write appends: both statements prepared (see prepared.ts).
  const s = t.aggregateSequences;
  const nextSequence = once(() =>
    db
      .insert(s)
      .values({ aggregateType: sql.placeholder('aggregateType'), aggregateId: sql.placeholder('aggregateId'), sequence: 1 })
      .onConflictDoUpdate({
        target: [s.aggregateType, s.aggregateId],
        // Qualified: unqualified, PostgreSQL could not tell the stored row from `excluded`.
        set: { sequence: sql.raw(`"aggregate_sequences"."sequence" + 1`) },
      })
      .returning({ sequence: s.sequence })
      .prepare('aggregate_sequences_next'),
  );
  const insertEvent = once(() =>
    db
      .insert(t.events)
      .values({
        aggregateType: sql.placeholder('aggregateType'),
        aggregateId: sql.placeholder('aggregateId'),
        sequence: sql.placeholder('sequence'),
        type: sql.placeholder('type'),
        payload: sql.placeholder('payload'),
        creator: sql.placeholder('creator'),
        resourceOwner: sql.placeholder('resourceOwner'),
        createdAt: sql.placeholder('createdAt'),
      })
      .returning({ position: t.events.position })
      .prepare('events_insert'),
  );
  return {
    /**
     * Appends one event with the aggregate's next sequence. Must run inside a transaction.
     * Taking the sequence (aggregate_sequences, one upsert) locks the aggregate's row until the
     * transaction ends, so writers of one aggregate are serialised and gapless on both
     * dialects; the unique (aggregate, sequence) key of events is the backstop.
     */
    async append(event: NewEvent, at: Date = new Date()): Promise<StoredEvent> {
      const [{ sequence }] = await nextSequence().execute({ aggregateType: event.aggregateType, aggregateId: event.aggregateId });
      const [row] = await insertEvent().execute({ ...event, sequence, createdAt: at });
      return { ...event, sequence, createdAt: at, position: row.position };
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
