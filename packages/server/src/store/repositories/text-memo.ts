/**
 * The message-text rows a PostgreSQL transaction has written, for its own later reads.
 *
 * Why: the store runs queued transactions one after another in one BEGIN … COMMIT (group commit,
 * postgres.ts), and under load they are mostly writes of one text (every PUT of the verify-email
 * text reads the current row to compute its event's diff, then writes). Each read is a round trip
 * made while the group holds the aggregate's sequence row, i.e. while every later writer waits.
 * The row a transaction just wrote is known exactly (its fields, and the sequence and time of its
 * event), so the next read of it in the same transaction is answered from here.
 *
 * Why this is the row the database would return: every write of a text appends an event of its
 * owner's aggregate in the same transaction (one statement on PostgreSQL), so it holds that
 * aggregate's `aggregate_sequences` row until COMMIT, and no other transaction can change the text
 * before then. Writes of `message_texts` this memo does not see (an import's bulk insert) empty it
 * (repositories/index.ts watches the table), and it is emptied whenever the transaction changes.
 * Rows are copied in and out, so a caller cannot change what the next one reads.
 */
import { copyTextRow as copy, type MessageTextRow } from './texts.js';

export interface TextMemo {
  /** The row this transaction wrote, or undefined when it wrote none (then ask the database). */
  get(ownerId: string, messageType: string, language: string): MessageTextRow | undefined;
  remember(row: MessageTextRow): void;
  forget(ownerId: string, messageType: string, language: string): void;
  clear(): void;
}

const keyOf = (ownerId: string, messageType: string, language: string) => `${ownerId}\u0000${messageType}\u0000${language}`;

/** `currentTransaction()` identifies the transaction running on the connection (the store counts them). */
export function transactionTextMemo(currentTransaction: () => number): TextMemo {
  let transaction = Number.NaN;
  const rows = new Map<string, MessageTextRow>();
  const live = () => {
    const now = currentTransaction();
    if (now !== transaction) {
      rows.clear();
      transaction = now;
    }
    return rows;
  };
  return {
    get(ownerId, messageType, language) {
      const row = live().get(keyOf(ownerId, messageType, language));
      return row && copy(row);
    },
    remember(row) {
      live().set(keyOf(row.ownerId, row.messageType, row.language), copy(row));
    },
    forget(ownerId, messageType, language) {
      live().delete(keyOf(ownerId, messageType, language));
    },
    clear() {
      rows.clear();
    },
  };
}
