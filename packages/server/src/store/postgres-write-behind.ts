/**
 * On PostgreSQL, text writes to an aggregate this transaction already holds are held back and
 * sent together, as one statement, before anything else reaches the database.
 *
 * Why: under load the store runs queued transactions in one BEGIN … COMMIT (group commit,
 * postgres.ts), and concurrent writes of one text (the bench's PUT, an operator's script) all
 * append to one aggregate. Each would otherwise be its own round trip while the group holds the
 * aggregate's `aggregate_sequences` row, and a round trip is mostly the system call that wakes
 * the database (BENCHMARKS.md round 11: 43 % of the write's CPU), paid while every later writer
 * of the aggregate waits.
 *
 * Why it is safe:
 * - The first write of an aggregate in a transaction runs at once (postgres-hot-path.ts): it takes
 *   the aggregate's next sequence and, with it, the lock on its `aggregate_sequences` row until
 *   COMMIT. From then on nobody else can append to that aggregate, so the sequence of each later
 *   write in this transaction is known here: the previous one plus one. That is all a text write
 *   answers with (its sequence and time, see domain/texts/instance-texts.ts), so it can answer
 *   before the row is written.
 * - Nothing else sees the database before the held writes: the connection's queries go through
 *   `flushFirst`, and the store flushes before COMMIT (postgres.ts). Reads of this transaction
 *   therefore see every write it made, in order.
 * - A failed flush fails the transaction: the store rolls it back and, for a group, runs each of
 *   its transactions again alone; a rollback discards what was held. Callers are answered only
 *   after COMMIT, as before. The unique (aggregate, sequence) key of events stays the backstop.
 * - Everything is per transaction: what is held or known is dropped when the transaction changes.
 */
import type pg from 'pg';
import type { NewEvent } from './repositories/events.js';
import type { TextState } from './repositories/index.js';
import { INSERT_EVENT, INSERT_TEXT, TEXT_UPSERT } from './text-write-sql.js';

interface HeldWrite {
  event: NewEvent;
  sequence: number;
  at: Date;
  text: TextState;
}

const aggregateKey = (type: string, id: string) => `${type}\u0000${id}`;
const textKey = (text: TextState) => `${text.ownerId}\u0000${text.messageType}\u0000${text.language}`;

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

export class TextWriteBehind {
  private transaction = Number.NaN;
  /** Aggregates whose sequence row this transaction holds, with the last sequence it appended. */
  private readonly held = new Map<string, number>();
  private writes: HeldWrite[] = [];

  /** `currentTransaction()` identifies the transaction running on the connection (the store counts them). */
  constructor(
    private readonly client: pg.ClientBase,
    private readonly currentTransaction: () => number,
  ) {}

  /** Drops what belongs to an earlier transaction. */
  private live(): void {
    const now = this.currentTransaction();
    if (now === this.transaction) return;
    this.transaction = now;
    this.held.clear();
    this.writes = [];
  }

  /** A statement of this transaction appended `sequence` to the aggregate (and so holds its row). */
  appended(aggregateType: string, aggregateId: string, sequence: number): void {
    this.live();
    this.held.set(aggregateKey(aggregateType, aggregateId), sequence);
  }

  /**
   * Holds the text write back when this transaction already holds its aggregate, and returns the
   * sequence its event gets; undefined when the write must run now.
   */
  hold(event: NewEvent, text: TextState, at: Date): number | undefined {
    this.live();
    const key = aggregateKey(event.aggregateType, event.aggregateId);
    const last = this.held.get(key);
    if (last === undefined) return undefined;
    const sequence = last + 1;
    this.held.set(key, sequence);
    this.writes.push({ event, sequence, at, text });
    return sequence;
  }

  get pending(): number {
    this.live();
    return this.writes.length;
  }

  /** Sends what is held (one statement); after it, the database has every write of this transaction. */
  async flush(): Promise<void> {
    if (this.pending === 0) return;
    const writes = this.writes;
    this.writes = [];
    const lastOf = new Map<string, HeldWrite>();
    const textOf = new Map<string, HeldWrite>();
    for (const write of writes) {
      lastOf.set(aggregateKey(write.event.aggregateType, write.event.aggregateId), write);
      textOf.set(textKey(write.text), write);
    }
    const texts = [...textOf.values()];
    const lasts = [...lastOf.values()];
    await this.client.query({
      ...FLUSH,
      values: [
        writes.map((w) => w.event.aggregateType), writes.map((w) => w.event.aggregateId), writes.map((w) => w.sequence),
        writes.map((w) => w.event.type), writes.map((w) => JSON.stringify(w.event.payload)), writes.map((w) => w.event.creator),
        writes.map((w) => w.event.resourceOwner), writes.map((w) => w.at),
        lasts.map((w) => w.event.aggregateType), lasts.map((w) => w.event.aggregateId), lasts.map((w) => w.sequence),
        texts.map((w) => w.text.ownerId), texts.map((w) => w.text.messageType), texts.map((w) => w.text.language),
        texts.map((w) => JSON.stringify(w.text.fields)), texts.map((w) => w.sequence),
        // A text this transaction created was created at its first write (the caller passes that time on).
        texts.map((w) => w.text.createdAt ?? w.at), texts.map((w) => w.at),
      ],
    });
  }

  /** The transaction was rolled back: nothing held is written. */
  discard(): void {
    this.writes = [];
    this.held.clear();
  }
}

/**
 * The connection as its repositories see it: any query first sends the held writes, so every
 * read and write of the transaction comes after them.
 */
export function flushFirst<C extends pg.ClientBase>(client: C, behind: TextWriteBehind): C {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const wrapped = Object.create(client) as C;
  Object.defineProperty(wrapped, 'query', {
    value: (...args: unknown[]) => (behind.pending === 0 ? query(...args) : behind.flush().then(() => query(...args))),
  });
  return wrapped;
}
