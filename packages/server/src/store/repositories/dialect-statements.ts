/**
 * What a dialect hands the repositories (createRepositories in index.ts): the statements it runs
 * without drizzle. A module of its own so what wraps them (registered-events.ts) need not import
 * index.ts, which imports it.
 */
import type { AppendEvent, AppendEvents, NewEvent, StoredEvent } from './events.js';
import type { MessageTextRow } from './texts.js';
import type { TakeUserGrant } from './user-grants.js';

/**
 * Statements a dialect runs without drizzle: the event append (each dialect has its own, see
 * AppendEvent) and, on SQLite, the text read and upsert, which replace the drizzle methods of the
 * same name and must behave identically (sqlite-hot-path.ts; a test holds them to it).
 */
export interface DialectStatements {
  appendEvent: AppendEvent;
  /** Events of distinct aggregates at once (PostgreSQL: one round trip); without it, one at a time. */
  appendEvents?: AppendEvents;
  /** The log's last position no transaction can still fill in below (postgres-settled-position.ts); without it, the last position read. */
  settledPosition?: () => Promise<number | undefined>;
  /** Whether `select … for update skip locked` exists (PostgreSQL; SQLite has one writer anyway). */
  skipLocked?: boolean;
  /** Reading and writing one message text: the text write's fast path, each dialect's own SQL. */
  messageTexts: MessageTextStatements;
  /** A text's new state and its event in one statement (PostgreSQL: one round trip less per text write). */
  setTextWithEvent?: SetTextWithEvent;
  /** A user grant's removal with its event in one statement (PostgreSQL: one round trip per removal instead of two). */
  takeUserGrantWithEvent?: TakeUserGrant;
}

export interface MessageTextStatements {
  get(ownerId: string, messageType: string, language: string): Promise<MessageTextRow | undefined>;
  /** A new row as given; an existing one gets the given fields, sequence and change time (its creation time stays). */
  upsert(row: MessageTextRow): Promise<void>;
}

/** The text's state as set; its sequence and times come from the event. `createdAt`: the row's, when it exists. */
export type TextState = Pick<MessageTextRow, 'ownerId' | 'messageType' | 'language' | 'fields'> & { createdAt?: Date };
/**
 * The event as a text write answers with: its sequence and time, not its position (on PostgreSQL
 * a write may be held back and get its position only at the transaction's end, see
 * postgres-text-writes.ts).
 */
export type AppendedEvent = Omit<StoredEvent, 'position'>;
export type SetTextWithEvent = (event: NewEvent, text: TextState, at?: Date) => Promise<AppendedEvent>;
