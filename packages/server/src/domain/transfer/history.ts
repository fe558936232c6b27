/**
 * History carried through a move (issue 51): with `withHistory` an export writes each exported
 * user's events into its entry (`identityServiceHistory`) and the organisation's own events beside
 * it (`identityServiceOrgHistory`), each as `{type, sequence, createdAt, editorId, payload}`. An
 * import of such a document gives every user and organisation it *creates* that history — the
 * source's types, sequences, dates and editors, each payload marked `identityServiceImported` —
 * followed by the import's own event (`user.data.imported`; for the organisation the import's
 * `org.data.imported`), so the target's change lists show what happened at the source, then the
 * import. An object that exists already keeps its own trail: nothing of the document's history is
 * appended to it. Without the option the document has no history and an import appends no
 * per-user event (description §4.5 rule 3).
 *
 * Payloads carry no secrets: commands write none into events (test/events-secrets.test.ts), and
 * a field whose name is a secret's (events/redact.ts) is left out on the way out and on the way
 * in, whatever the document says — a history has nothing to seal.
 *
 * An event type this service does not know (another version's, or ZITADEL's) is refused when the
 * document is validated (400, the path names the event), before anything is written: the store
 * appends only types its trail can list (events/types.ts).
 */
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import type { StoredEvent } from '../../store/repositories/events.js';
import type { Repositories } from '../../store/store.js';
import { isSecretName } from '../events/redact.js';
import { aggregateOfEventType, isRegisteredEventType } from '../events/types.js';
import { runes, timestamp, uint64 } from './fields.js';

/** The payload mark of an event an import carried over from another instance. */
export const IMPORTED_MARK = 'identityServiceImported';
/** The import's own event on each user it created with a history. */
export const USER_IMPORT_EVENT = 'user.data.imported';

/** One event of a history as the document carries it. */
const HistoryEvent = z.object({
  type: z.string().refine(isRegisteredEventType, 'not an event type of this service (domain/events/types.ts); a history with it cannot be imported'),
  sequence: uint64,
  createdAt: timestamp,
  editorId: runes(1, 200),
  payload: z.record(z.string(), z.unknown()).optional(),
});
export type HistoryEventT = z.output<typeof HistoryEvent>;

/**
 * An object's whole history: events of its aggregate type, sequences 1, 2, 3 … in order (a trail
 * with a gap or a repeat is not a source's trail), dates not going back.
 */
export function historySchema(aggregateType: 'user' | 'org') {
  return z.array(HistoryEvent).superRefine((events, ctx) => {
    events.forEach((event, i) => {
      if (isRegisteredEventType(event.type) && aggregateOfEventType(event.type) !== aggregateType) {
        ctx.addIssue({ code: 'custom', path: [i, 'type'], message: `not an event of a ${aggregateType}'s trail` });
      }
      if (event.sequence !== String(i + 1)) {
        ctx.addIssue({ code: 'custom', path: [i, 'sequence'], message: `expected ${i + 1}: a history lists its object's events from sequence 1, without gaps` });
      }
      if (i > 0 && Date.parse(event.createdAt) < Date.parse(events[i - 1].createdAt)) {
        ctx.addIssue({ code: 'custom', path: [i, 'createdAt'], message: 'earlier than the event before it' });
      }
    });
  });
}

/** A payload without its secret-named fields (at any depth); booleans stay, they say only that something happened. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if (isSecretName(name) && typeof inner !== 'boolean') continue;
    out[name] = withoutSecrets(inner);
  }
  return out;
}

/** An event as the document carries it. */
function toDocumentEvent(event: StoredEvent) {
  const payload = withoutSecrets(event.payload) as Record<string, unknown>;
  return {
    type: event.type,
    sequence: String(event.sequence),
    createdAt: event.createdAt.toISOString(),
    editorId: event.creator,
    ...(Object.keys(payload).length ? { payload } : {}),
  };
}

/** Events are read this many at a time. */
const EVENT_PAGE = 5000;

/** The organisation's own events, a page at a time (its sequence is the cursor). */
export async function* orgHistoryPages(read: Repositories, orgId: string): AsyncGenerator<ReturnType<typeof toDocumentEvent>[]> {
  let after = 0;
  for (;;) {
    const { events } = await read.events.search({ aggregateTypes: ['org'], aggregateId: orgId, sequenceBeyond: after, limit: EVENT_PAGE, offset: 0, asc: true });
    if (events.length) yield events.map(toDocumentEvent);
    if (events.length < EVENT_PAGE) return;
    after = events[events.length - 1].sequence;
  }
}

/** The events of a page of users, by user, each user's in sequence order. */
export async function userHistories(read: Repositories, userIds: string[]): Promise<Map<string, ReturnType<typeof toDocumentEvent>[]>> {
  const byUser = new Map<string, ReturnType<typeof toDocumentEvent>[]>();
  for (let offset = 0; userIds.length; offset += EVENT_PAGE) {
    const events = await read.events.ofAggregates('user', userIds, EVENT_PAGE, offset);
    for (const event of events) {
      let list = byUser.get(event.aggregateId);
      if (!list) byUser.set(event.aggregateId, (list = []));
      list.push(toDocumentEvent(event));
    }
    if (events.length < EVENT_PAGE) break;
  }
  return byUser;
}

/**
 * Appends an object's source history to its new aggregate on the target: the source's types,
 * dates and editors, each payload marked as imported. The aggregate is new (the import created
 * the object, and an id with events is never reused), so the sequences the store gives are the
 * document's; one that is not means the aggregate was not new, a programming error.
 */
export async function appendHistory(tx: Repositories, aggregateType: 'user' | 'org', aggregateId: string, resourceOwner: string, history: readonly HistoryEventT[]): Promise<void> {
  for (const event of history) {
    const stored = await tx.events.append(
      { aggregateType, aggregateId, type: event.type, payload: { ...(withoutSecrets(event.payload ?? {}) as object), [IMPORTED_MARK]: true }, creator: event.editorId, resourceOwner },
      new Date(event.createdAt),
    );
    if (String(stored.sequence) !== event.sequence) throw new Error(`history of ${aggregateType} ${aggregateId}: sequence ${event.sequence} stored as ${stored.sequence}`);
  }
}

/** A user the import created, with the history its entry carried. */
export interface UserHistory {
  id: string;
  orgId: string;
  history: readonly HistoryEventT[];
}

/** Users whose events are appended between two turns of the event loop. */
const USERS_PER_TURN = 25;

/**
 * Each created user's history, then the import's `user.data.imported`. On SQLite every append is a
 * synchronous call: a batch of users with their events, appended without a pause, held the event
 * loop long enough to treble the p99 of the requests answered meanwhile, so it yields every few users
 * (the transaction stays open; the store's readers use their own connection).
 */
export async function importUserHistories(tx: Repositories, users: readonly UserHistory[], importer: string, at: Date): Promise<void> {
  for (let i = 0; i < users.length; i++) {
    if (i > 0 && i % USERS_PER_TURN === 0) await setImmediate();
    const user = users[i];
    await appendHistory(tx, 'user', user.id, user.orgId, user.history);
    await tx.events.append(
      { aggregateType: 'user', aggregateId: user.id, type: USER_IMPORT_EVENT, payload: { importedEvents: user.history.length }, creator: importer, resourceOwner: user.orgId },
      at,
    );
  }
}

/** The state row of a user created with a history: created when the source created it, at the sequence of the import's event. */
export function historyStamp(history: readonly HistoryEventT[] | undefined, stamp: { sequence: number; createdAt: Date; changedAt: Date }) {
  if (!history?.length) return stamp;
  return { ...stamp, sequence: history.length + 1, createdAt: new Date(history[0].createdAt) };
}

/** Wraps a page's item maker so each user's entry carries its history (read for the whole page at once). */
export async function withUserHistories<R extends { id: string }>(read: Repositories, page: R[], toItem: (row: R) => unknown): Promise<(row: R) => unknown> {
  const histories = await userHistories(
    read,
    page.map((row) => row.id),
  );
  return (row) => {
    const item = toItem(row) as Record<string, unknown> | undefined;
    const history = histories.get(row.id);
    return item && history ? { ...item, identityServiceHistory: history } : item;
  };
}

/** `,"identityServiceOrgHistory":[…]` in chunks of about `chunkChars` characters; nothing when the organisation has no events. */
export async function* orgHistoryJson(read: Repositories, orgId: string, chunkChars: number): AsyncGenerator<string> {
  let chunk = '';
  let any = false;
  for await (const page of orgHistoryPages(read, orgId)) {
    for (const event of page) {
      chunk += (any ? ',' : ',"identityServiceOrgHistory":[') + JSON.stringify(event);
      any = true;
      if (chunk.length >= chunkChars) {
        yield chunk;
        chunk = '';
      }
    }
  }
  if (any) yield `${chunk}]`;
}
