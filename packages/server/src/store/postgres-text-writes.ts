/**
 * What a PostgreSQL transaction wrote of its message texts: read back from memory, and, once it
 * holds the text's aggregate, held back and sent as one statement before anything else reaches
 * the database (the memo and the write-behind, ARCHITECTURE.md "Repeated writes of one aggregate").
 *
 * Why: group commit (postgres-group-commit.ts) runs queued transactions one after another in one
 * BEGIN … COMMIT, and under load they are mostly writes of one text (every PUT of the verify-email
 * text reads the current row to compute its event's diff, then writes). Each read and each write
 * would be a round trip made while the group holds the aggregate's `aggregate_sequences` row, i.e.
 * while every later writer waits; a round trip is mostly the system call that wakes the database
 * (BENCHMARKS.md round 11: 43 % of the write's CPU). Measured in turns (BENCHMARKS.md round 24):
 * the PUT by 50 connections costs 2.2–2.5× the CPU per request without the held writes, and a
 * quarter more again without the memo as well; the held writes need the memo (a read sends them).
 *
 * Why a remembered row is the one the database would return: every write of a text appends an
 * event of its owner's aggregate in the same transaction (one statement, postgres-hot-path.ts),
 * so the transaction holds that aggregate's sequence row until COMMIT and no other transaction can
 * change the text before then. Writes of `message_texts` not seen here (an import's insert, a
 * removal: the repositories report them, repositories/index.ts) forget every row.
 * Rows are copied in and out, so a caller cannot change what the next one reads.
 *
 * Why holding writes back is safe:
 * - The first write of an aggregate in a transaction runs at once: it takes the aggregate's next
 *   sequence and, with it, the lock on its sequence row until COMMIT. From then on nobody else can
 *   append to that aggregate, so the sequence of each later write in this transaction is the
 *   previous one plus one. That is all a text write answers with (its sequence and time, see
 *   domain/texts/custom-message-texts.ts), so it can answer before the row is written.
 * - Nothing else sees the database before the held writes: the connection's queries go through
 *   `flushFirst`, and the connection flushes before COMMIT (postgres-connection.ts). Reads of this
 *   transaction therefore see every write it made, in order.
 * - A failed flush fails the transaction: it is rolled back and, for a group, each of its
 *   transactions runs again alone; a rollback discards what was held. Callers are answered only
 *   after COMMIT, as before. The unique (aggregate, sequence) key of events stays the backstop.
 * - Everything is per transaction: the connection starts every transaction with `reset`.
 */
import type pg from 'pg';
import type { NewEvent } from './repositories/events.js';
import type { TextState } from './repositories/index.js';
import { copyTextRow, type MessageTextRow } from './repositories/texts.js';
import { INSERT_EVENT, INSERT_TEXT, TEXT_UPSERT } from './text-write-sql.js';

interface HeldWrite {
  event: NewEvent;
  sequence: number;
  at: Date;
  text: TextState;
}

const aggregateKey = (type: string, id: string) => `${type}\u0000${id}`;
const textKey = (ownerId: string, messageType: string, language: string) => `${ownerId}\u0000${messageType}\u0000${language}`;

/**
 * The held writes as one statement: the events in their order (positions follow sequences),
 * each aggregate's sequence row set to its last, each text's final state upserted.
 */
const FLUSH = {
  name: 'text_writes_flush',
  text: `with appended as (
           ${INSERT_EVENT}
           select e.aggregate_type, e.aggregate_id, e.sequence, e.type, e.payload, e.creator, e.resource_owner, e.created_at
             from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::timestamptz[])
                  with ordinality as e(aggregate_type, aggregate_id, sequence, type, payload, creator, resource_owner, created_at, n)
            order by e.n),
         sequences as (
           update aggregate_sequences s set sequence = last.sequence
             from unnest($9::text[], $10::text[], $11::bigint[]) as last(aggregate_type, aggregate_id, sequence)
            where s.aggregate_type = last.aggregate_type and s.aggregate_id = last.aggregate_id)
         ${INSERT_TEXT}
         select * from unnest($12::text[], $13::text[], $14::text[], $15::jsonb[], $16::bigint[], $17::timestamptz[], $18::timestamptz[])
         ${TEXT_UPSERT}`,
};

export class TransactionTextWrites {
  /** Aggregates whose sequence row this transaction holds, with the last sequence it appended. */
  private readonly held = new Map<string, number>();
  private writes: HeldWrite[] = [];
  /** The texts this transaction wrote, as the database holds them (once the held writes are sent). */
  private readonly rows = new Map<string, MessageTextRow>();

  /** `client`: the connection itself, not the repositories' wrapper (which would flush first). */
  constructor(private readonly client: pg.ClientBase) {}

  /** A transaction starts, or ended without COMMIT: nothing is held or known. */
  reset(): void {
    this.held.clear();
    this.writes = [];
    this.rows.clear();
  }

  /** The row this transaction wrote, or undefined when it wrote none (then ask the database). */
  read(ownerId: string, messageType: string, language: string): MessageTextRow | undefined {
    const row = this.rows.get(textKey(ownerId, messageType, language));
    return row && copyTextRow(row);
  }

  /** The row as a write of this transaction left it. */
  wrote(row: MessageTextRow): void {
    this.rows.set(textKey(row.ownerId, row.messageType, row.language), copyTextRow(row));
  }

  /** A write whose resulting row is not known exactly here (an upsert keeps an existing createdAt). */
  forget(ownerId: string, messageType: string, language: string): void {
    this.rows.delete(textKey(ownerId, messageType, language));
  }

  /** `message_texts` was written by a statement that is not a text write (an import's insert, a removal). */
  forgetAll(): void {
    this.rows.clear();
  }

  /** A statement of this transaction appended `sequence` to the aggregate (and so holds its row). */
  appended(aggregateType: string, aggregateId: string, sequence: number): void {
    this.held.set(aggregateKey(aggregateType, aggregateId), sequence);
  }

  /**
   * Holds the text write back when this transaction already holds its aggregate, and returns the
   * sequence its event gets; undefined when the write must run now.
   */
  hold(event: NewEvent, text: TextState, at: Date): number | undefined {
    const key = aggregateKey(event.aggregateType, event.aggregateId);
    const last = this.held.get(key);
    if (last === undefined) return undefined;
    const sequence = last + 1;
    this.held.set(key, sequence);
    this.writes.push({ event, sequence, at, text });
    return sequence;
  }

  get pending(): number {
    return this.writes.length;
  }

  /** Sends what is held (one statement); after it, the database has every write of this transaction. */
  async flush(): Promise<void> {
    if (this.writes.length === 0) return;
    const writes = this.writes;
    this.writes = [];
    const lastOf = new Map<string, HeldWrite>();
    const textOf = new Map<string, HeldWrite>();
    for (const write of writes) {
      lastOf.set(aggregateKey(write.event.aggregateType, write.event.aggregateId), write);
      textOf.set(textKey(write.text.ownerId, write.text.messageType, write.text.language), write);
    }
    const texts = [...textOf.values()];
    const lasts = [...lastOf.values()];
    await this.client.query({
      ...FLUSH,
      values: [
        writes.map((w) => w.event.aggregateType),
        writes.map((w) => w.event.aggregateId),
        writes.map((w) => w.sequence),
        writes.map((w) => w.event.type),
        writes.map((w) => JSON.stringify(w.event.payload)),
        writes.map((w) => w.event.creator),
        writes.map((w) => w.event.resourceOwner),
        writes.map((w) => w.at),
        lasts.map((w) => w.event.aggregateType),
        lasts.map((w) => w.event.aggregateId),
        lasts.map((w) => w.sequence),
        texts.map((w) => w.text.ownerId),
        texts.map((w) => w.text.messageType),
        texts.map((w) => w.text.language),
        texts.map((w) => JSON.stringify(w.text.fields)),
        texts.map((w) => w.sequence),
        // A text this transaction created was created at its first write (the caller passes that time on).
        texts.map((w) => w.text.createdAt ?? w.at),
        texts.map((w) => w.at),
      ],
    });
  }
}

/**
 * The connection as its repositories see it: any query first sends the held writes, so every
 * read and write of the transaction comes after them.
 */
export function flushFirst<C extends pg.ClientBase>(client: C, texts: TransactionTextWrites): C {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const wrapped = Object.create(client) as C;
  Object.defineProperty(wrapped, 'query', {
    value: (...args: unknown[]) => (texts.pending === 0 ? query(...args) : texts.flush().then(() => query(...args))),
  });
  return wrapped;
}
