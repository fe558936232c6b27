/**
 * The SQL of the text write's fast path, written once: the message text row, the event row and the
 * aggregate's next sequence. Both dialects' hand-written statements (sqlite-hot-path.ts,
 * postgres-hot-path.ts, postgres-text-writes.ts) are composed from these pieces, so a column of
 * `message_texts`, `events` or `aggregate_sequences` is named in one place besides schema.ts.
 * The pieces are plain SQL that SQLite and PostgreSQL read alike (`excluded` included); each
 * statement adds its dialect's placeholders (`?` on SQLite, `$n::type` on PostgreSQL).
 * test/store/sqlite-hot-path.test.ts and test/store/postgres-hot-path.test.ts hold the rows to drizzle's schema.
 */

export const TEXT_COLUMNS = 'owner_id, message_type, language, fields, sequence, created_at, changed_at';

/** `insert into message_texts (<columns>)`: values or a select follow. */
export const INSERT_TEXT = `insert into message_texts (${TEXT_COLUMNS})`;

/** A text written again keeps its row's creation time; fields, sequence and change time are the new ones. */
export const TEXT_UPSERT = `on conflict (owner_id, message_type, language)
           do update set fields = excluded.fields, sequence = excluded.sequence, changed_at = excluded.changed_at`;

/** One text by its key; three placeholders follow in this order: owner, message type, language. */
export const SELECT_TEXT = `select ${TEXT_COLUMNS} from message_texts where owner_id = ? and message_type = ? and language = ? limit 1`;

export const EVENT_COLUMNS = 'aggregate_type, aggregate_id, sequence, type, payload, creator, resource_owner, created_at';

/** `insert into events (<columns>)`: values or a select follow. */
export const INSERT_EVENT = `insert into events (${EVENT_COLUMNS})`;

/**
 * The aggregate's next sequence (1 for a new aggregate), returned; the upsert also locks the row
 * until the transaction ends, which is what queues writers of one aggregate (ARCHITECTURE.md, "The
 * event log"). `type` and `id` are the dialect's placeholders for the aggregate's type and id.
 */
export function nextSequence(type: string, id: string, onlyIfRowsIn?: string): string {
  // `onlyIfRowsIn`: a CTE's name; the sequence is taken only if it has a row (one statement that writes only when it found something).
  const source = onlyIfRowsIn ? `select ${type}, ${id}, 1 from ${onlyIfRowsIn}` : `values (${type}, ${id}, 1)`;
  return `insert into aggregate_sequences (aggregate_type, aggregate_id, sequence) ${source}
           on conflict (aggregate_type, aggregate_id) do update set sequence = aggregate_sequences.sequence + 1
           returning sequence`;
}

/** `?` placeholders numbered for PostgreSQL, from `first`: `$1, $2, …` (types are added by the caller where needed). */
export function numbered(sql: string, first = 1): string {
  let n = first;
  return sql.replaceAll('?', () => `$${n++}`);
}
