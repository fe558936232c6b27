/**
 * The statements every text write and every event append runs, on SQLite, executed on
 * better-sqlite3 directly instead of through drizzle.
 *
 * Why: on SQLite a statement costs a few microseconds, and drizzle's prepared queries add
 * about 8 µs a call on top (placeholder filling, row mapping, its promise wrapper); a text
 * write runs four of them, which made the store the largest share of the hot write path
 * (BENCHMARKS.md, round 3). PostgreSQL has its own pair (postgres-hot-path.ts).
 *
 * The SQL and the value mapping follow the drizzle schema exactly (schema.ts with
 * columns.ts' SQLite factory: times as integer milliseconds, JSON as text), so rows written
 * here read back the same through drizzle and the other way round; test/store/sqlite-hot-path.test.ts
 * checks that. A change to these tables' columns must change this file too.
 */
import type Database from 'better-sqlite3';
import type { NewEvent, StoredEvent } from './repositories/events.js';
import type { DialectStatements } from './repositories/index.js';
import { copyTextRow, type MessageTextRow } from './repositories/texts.js';
import type { MessageTextFields } from './schema.js';
import { SqliteReadCache } from './sqlite-read-cache.js';
import { INSERT_EVENT, INSERT_TEXT, nextSequence, SELECT_TEXT, TEXT_UPSERT } from './text-write-sql.js';

interface MessageTextRecord {
  owner_id: string;
  message_type: string;
  language: string;
  fields: string;
  sequence: number;
  created_at: number;
  changed_at: number;
}

// SQLite has no data-modifying CTE: a text's event and state, a grant's read, event and removal, are calls one after the other (repositories/index.ts).
export function sqliteHotPath(
  conn: Database.Database,
  options: { cacheReads?: { commits: () => number } } = {},
): Required<Omit<DialectStatements, 'setTextWithEvent' | 'takeUserGrantWithEvent' | 'appendEvents' | 'settledPosition'>> {
  // Prepared on first use: the reader connection never runs the writes.
  let statements: ReturnType<typeof prepare> | undefined;
  const s = () => (statements ??= prepare(conn));
  // The reader's text reads are kept until the database changes (sqlite-read-cache.ts).
  const cache = options.cacheReads ? new SqliteReadCache<MessageTextRow>(conn, copyTextRow, options.cacheReads.commits) : undefined;

  function readText(ownerId: string, messageType: string, language: string): MessageTextRow | undefined {
    const record = s().getText.get(ownerId, messageType, language) as MessageTextRecord | undefined;
    if (!record) return undefined;
    return {
      ownerId: record.owner_id,
      messageType: record.message_type,
      language: record.language,
      fields: JSON.parse(record.fields) as MessageTextFields,
      sequence: record.sequence,
      createdAt: new Date(record.created_at),
      changedAt: new Date(record.changed_at),
    };
  }

  return {
    skipLocked: false,
    messageTexts: {
      async get(ownerId: string, messageType: string, language: string): Promise<MessageTextRow | undefined> {
        if (!cache) return readText(ownerId, messageType, language);
        return cache.get(`${ownerId}\u0000${messageType}\u0000${language}`, () => readText(ownerId, messageType, language));
      },
      async upsert(row: MessageTextRow): Promise<void> {
        s().upsertText.run(row.ownerId, row.messageType, row.language, JSON.stringify(row.fields), row.sequence, row.createdAt.getTime(), row.changedAt.getTime());
      },
    },
    async appendEvent(event: NewEvent, at: Date = new Date()): Promise<StoredEvent> {
      const { sequence } = s().nextSequence.get(event.aggregateType, event.aggregateId) as { sequence: number };
      const { position } = s().insertEvent.get(event.aggregateType, event.aggregateId, sequence, event.type, JSON.stringify(event.payload), event.creator, event.resourceOwner, at.getTime()) as {
        position: number;
      };
      return { ...event, sequence, createdAt: at, position };
    },
  };
}

function prepare(conn: Database.Database) {
  return {
    getText: conn.prepare(SELECT_TEXT),
    upsertText: conn.prepare(`${INSERT_TEXT} values (?, ?, ?, ?, ?, ?, ?) ${TEXT_UPSERT}`),
    // See AppendEvent (repositories/events.ts) for why the sequence comes from this row.
    nextSequence: conn.prepare(nextSequence('?', '?')),
    insertEvent: conn.prepare(`${INSERT_EVENT} values (?, ?, ?, ?, ?, ?, ?, ?) returning position`),
  };
}
