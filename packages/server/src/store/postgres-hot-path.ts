/**
 * The event append on PostgreSQL (AppendEvent, repositories/events.ts) as one statement.
 *
 * Why: writers of one aggregate queue on its `aggregate_sequences` row from the moment they
 * take the next sequence until COMMIT (events.ts), so every round trip inside that window is
 * paid by every writer after them. Taking the sequence and inserting the event in one statement
 * (a data-modifying CTE; SQLite has none, see sqlite-hot-path.ts for its own reasons) takes one
 * round trip out of the window. test/store/postgres-hot-path.test.ts checks its rows through drizzle's reads.
 */
import type pg from 'pg';
import type { TransactionTextWrites } from './postgres-text-writes.js';
import type { NewEvent, StoredEvent } from './repositories/events.js';
import type { DialectStatements, TextState } from './repositories/index.js';
import type { MessageTextRow } from './repositories/texts.js';
import { type GrantRemoval, type RemovedUserGrant, removedGrantPayload } from './repositories/user-grants.js';
import type { MessageTextFields } from './schema.js';
import { INSERT_EVENT, INSERT_TEXT, nextSequence, numbered, SELECT_TEXT, TEXT_UPSERT } from './text-write-sql.js';

/**
 * The text write reads and upserts one row per request; through drizzle each cost its query
 * building and row mapping on top of the round trip (BENCHMARKS.md round 6: drizzle 11 % of a
 * PostgreSQL write's CPU). Named statements: parsed once per connection. The SQL follows the
 * schema (jsonb fields, timestamptz times, bigint sequence as a number); the test checks rows
 * written here read back the same through drizzle and the other way round.
 */
const GET_TEXT = { name: 'message_texts_get_hot', text: numbered(SELECT_TEXT) };
const UPSERT_TEXT = {
  name: 'message_texts_upsert_hot',
  text: `${INSERT_TEXT} values ($1, $2, $3, $4::jsonb, $5, $6, $7) ${TEXT_UPSERT}`,
};

interface MessageTextRecord {
  owner_id: string;
  message_type: string;
  language: string;
  fields: MessageTextFields;
  sequence: string;
  created_at: Date;
  changed_at: Date;
}

/** The next sequence and the event in one statement; its parameters $1–$7 are the event's. */
const APPEND_CTE = `with next as (${nextSequence('$1::text', '$2::text')}),
         appended as (
           ${INSERT_EVENT}
           select $1::text, $2::text, next.sequence, $3::text, $4::jsonb, $5::text, $6::text, $7::timestamptz from next
           returning position, sequence)`;

const APPEND = {
  // Named: node-postgres parses it once per connection.
  name: 'events_append_with_sequence',
  text: `${APPEND_CTE}
         select position, sequence from appended`,
};

/**
 * A text write's event and the text's new state in one statement: APPEND's CTE, then the upsert
 * fed by the event row (its sequence; its time, which is also the creation time of a new row). One
 * round trip instead of two inside the aggregate's window (the text write is the bench's hot path).
 */
const APPEND_WITH_TEXT = {
  name: 'events_append_with_text',
  text: `${APPEND_CTE},
         text as (
           ${INSERT_TEXT}
           select $8::text, $9::text, $10::text, $11::jsonb, appended.sequence, coalesce($12::timestamptz, $7::timestamptz), $7::timestamptz from appended
           ${TEXT_UPSERT})
         select position, sequence from appended`,
};

/**
 * Events of distinct aggregates in one statement (the events repository's `appendAll` splits a list
 * where an aggregate repeats): their next sequences, then the events in the order given. A batch of
 * a removed organisation's users (domain/orgs/removal.ts) is one round trip, not one per user.
 * $1–$6 the events' fields as arrays, $7 the time.
 */
const APPEND_MANY = {
  name: 'events_append_many',
  text: `with input as (
           select * from unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[])
                  with ordinality as e(aggregate_type, aggregate_id, type, payload, creator, resource_owner, n)),
         next as (
           insert into aggregate_sequences (aggregate_type, aggregate_id, sequence)
           select aggregate_type, aggregate_id, 1 from input order by n
           on conflict (aggregate_type, aggregate_id) do update set sequence = aggregate_sequences.sequence + 1
           returning aggregate_type, aggregate_id, sequence),
         appended as (
           ${INSERT_EVENT}
           select i.aggregate_type, i.aggregate_id, next.sequence, i.type, i.payload, i.creator, i.resource_owner, $7::timestamptz
             from input i join next using (aggregate_type, aggregate_id) order by i.n
           returning aggregate_type, aggregate_id, position, sequence)
         select aggregate_type, aggregate_id, position, sequence from appended`,
};

/**
 * A user grant's removal (4.2) in one statement: the grant of the user in the organisation deleted
 * and, only if there was one, the aggregate's next sequence taken and the removal event appended,
 * its payload built from the removed row as removedGrantPayload builds it (repositories/user-grants.ts).
 * What the domain checks after (the grant's project) comes back; its refusal rolls all of it back.
 * One round trip per removal instead of two (the read, then the append with the delete) while the
 * transaction holds the grant's sequence row. $1 aggregate type, $2 grant, $3 event type,
 * $4 creator, $5 organisation (also the event's resource owner), $6 time, $7 user.
 */
const TAKE_USER_GRANT_WITH_EVENT = {
  name: 'user_grants_take_with_event',
  text: `with removed as (
           delete from user_grants where id = $2::text and org_id = $5::text and user_id = $7::text
           returning user_id, project_id, project_grant_id),
         next as (${nextSequence('$1::text', '$2::text', 'removed')}),
         appended as (
           ${INSERT_EVENT}
           select $1::text, $2::text, next.sequence, $3::text, jsonb_build_object('userId', removed.user_id, 'projectId', removed.project_id),
                  $4::text, $5::text, $6::timestamptz from next, removed
           returning position, sequence)
         select removed.project_id, removed.project_grant_id, appended.position, appended.sequence from removed, appended`,
};

/**
 * On a pooled connection inside a transaction; on the pool itself for reads (which never append).
 * With `texts` (transactions' connections, whose client is then wrapped by `flushFirst`), a text
 * the transaction wrote is read back from memory, and a text write to an aggregate the transaction
 * already holds is held back (postgres-text-writes.ts).
 */
export function postgresHotPath(client: pg.ClientBase | pg.Pool, texts?: TransactionTextWrites): DialectStatements {
  /** The text's event and new state, sent now (APPEND_WITH_TEXT). */
  async function appendWithText(event: NewEvent, text: TextState, at: Date): Promise<StoredEvent> {
    const { rows } = await client.query<{ position: string; sequence: string }>({
      ...APPEND_WITH_TEXT,
      values: [
        event.aggregateType,
        event.aggregateId,
        event.type,
        JSON.stringify(event.payload),
        event.creator,
        event.resourceOwner,
        at,
        text.ownerId,
        text.messageType,
        text.language,
        JSON.stringify(text.fields),
        text.createdAt ?? null,
      ],
    });
    const sequence = Number(rows[0].sequence);
    texts?.appended(event.aggregateType, event.aggregateId, sequence);
    return { ...event, sequence, createdAt: at, position: Number(rows[0].position) };
  }
  return {
    skipLocked: true,
    messageTexts: {
      async get(ownerId: string, messageType: string, language: string): Promise<MessageTextRow | undefined> {
        const written = texts?.read(ownerId, messageType, language);
        if (written) return written;
        const { rows } = await client.query<MessageTextRecord>({ ...GET_TEXT, values: [ownerId, messageType, language] });
        const record = rows[0];
        if (!record) return undefined;
        return {
          ownerId: record.owner_id,
          messageType: record.message_type,
          language: record.language,
          fields: record.fields,
          sequence: Number(record.sequence),
          createdAt: record.created_at,
          changedAt: record.changed_at,
        };
      },
      async upsert(row: MessageTextRow): Promise<void> {
        texts?.forget(row.ownerId, row.messageType, row.language);
        await client.query({
          ...UPSERT_TEXT,
          values: [row.ownerId, row.messageType, row.language, JSON.stringify(row.fields), row.sequence, row.createdAt, row.changedAt],
        });
      },
    },
    async setTextWithEvent(event: NewEvent, text: TextState, at: Date = new Date()) {
      texts?.forget(text.ownerId, text.messageType, text.language);
      const heldSequence = texts?.hold(event, text, at);
      const stored = heldSequence !== undefined ? { ...event, sequence: heldSequence, createdAt: at } : await appendWithText(event, text, at);
      // The row as the statement leaves it: a new row is created at the event's time, an existing one keeps its createdAt.
      texts?.wrote({ ...text, sequence: stored.sequence, createdAt: text.createdAt ?? at, changedAt: at });
      return stored;
    },
    async appendEvent(event: NewEvent, at: Date = new Date()): Promise<StoredEvent> {
      const { rows } = await client.query<{ position: string; sequence: string }>({
        ...APPEND,
        values: [event.aggregateType, event.aggregateId, event.type, JSON.stringify(event.payload), event.creator, event.resourceOwner, at],
      });
      // bigint columns arrive as strings (node-postgres keeps int8 exact); the schema's mode is 'number'.
      const sequence = Number(rows[0].sequence);
      texts?.appended(event.aggregateType, event.aggregateId, sequence);
      return { ...event, sequence, createdAt: at, position: Number(rows[0].position) };
    },
    async appendEvents(events: readonly NewEvent[], at: Date = new Date()): Promise<StoredEvent[]> {
      const column = <K extends keyof NewEvent>(key: K) => events.map((e) => e[key]);
      const { rows } = await client.query<{ aggregate_type: string; aggregate_id: string; position: string; sequence: string }>({
        ...APPEND_MANY,
        values: [column('aggregateType'), column('aggregateId'), column('type'), events.map((e) => JSON.stringify(e.payload)), column('creator'), column('resourceOwner'), at],
      });
      const byAggregate = new Map(rows.map((r) => [`${r.aggregate_type}\u0000${r.aggregate_id}`, r]));
      return events.map((event) => {
        const row = byAggregate.get(`${event.aggregateType}\u0000${event.aggregateId}`)!;
        const sequence = Number(row.sequence);
        texts?.appended(event.aggregateType, event.aggregateId, sequence);
        return { ...event, sequence, createdAt: at, position: Number(row.position) };
      });
    },
    async takeUserGrantWithEvent(grantId: string, orgId: string, userId: string, removal: GrantRemoval, at: Date = new Date()): Promise<RemovedUserGrant | undefined> {
      const { rows } = await client.query<{ project_id: string; project_grant_id: string | null; position: string; sequence: string }>({
        ...TAKE_USER_GRANT_WITH_EVENT,
        values: [removal.aggregateType, grantId, removal.type, removal.creator, orgId, at, userId],
      });
      const row = rows[0];
      if (!row) return undefined;
      const sequence = Number(row.sequence);
      texts?.appended(removal.aggregateType, grantId, sequence);
      const event = { ...removal, aggregateId: grantId, payload: removedGrantPayload(userId, row.project_id), resourceOwner: orgId };
      return { projectId: row.project_id, projectGrantId: row.project_grant_id, event: { ...event, sequence, createdAt: at, position: Number(row.position) } };
    },
  };
}
