/**
 * The event append on PostgreSQL (AppendEvent, repositories/events.ts) as one statement.
 *
 * Why: writers of one aggregate queue on its `aggregate_sequences` row from the moment they
 * take the next sequence until COMMIT (events.ts), so every round trip inside that window is
 * paid by every writer after them. Taking the sequence and inserting the event in one statement
 * (a data-modifying CTE; SQLite has none, see sqlite-hot-path.ts for its own reasons) takes one
 * round trip out of the window. test/postgres-hot-path.test.ts checks its rows through drizzle's reads.
 */
import type pg from 'pg';
import type { NewEvent, StoredEvent } from './repositories/events.js';
import type { DialectStatements } from './repositories/index.js';

const APPEND = {
  // Named: node-postgres parses it once per connection.
  name: 'events_append_with_sequence',
  text: `with next as (
           insert into aggregate_sequences (aggregate_type, aggregate_id, sequence) values ($1::text, $2::text, 1)
           on conflict (aggregate_type, aggregate_id) do update set sequence = aggregate_sequences.sequence + 1
           returning sequence)
         insert into events (aggregate_type, aggregate_id, sequence, type, payload, creator, resource_owner, created_at)
         select $1::text, $2::text, next.sequence, $3::text, $4::jsonb, $5::text, $6::text, $7::timestamptz from next
         returning position, sequence`,
};

/** On a pooled connection inside a transaction; on the pool itself for reads (which never append). */
export function postgresHotPath(client: pg.ClientBase | pg.Pool): DialectStatements {
  return {
    skipLocked: true,
    async appendEvent(event: NewEvent, at: Date = new Date()): Promise<StoredEvent> {
      const { rows } = await client.query<{ position: string; sequence: string }>({
        ...APPEND,
        values: [event.aggregateType, event.aggregateId, event.type, JSON.stringify(event.payload), event.creator, event.resourceOwner, at],
      });
      // bigint columns arrive as strings (node-postgres keeps int8 exact); the schema's mode is 'number'.
      return { ...event, sequence: Number(rows[0].sequence), createdAt: at, position: Number(rows[0].position) };
    },
  };
}
