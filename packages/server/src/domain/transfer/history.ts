/**
 * History carried through a move (issue 51): with `withHistory` an export writes each exported
 * object's events into its entry — a user's and a project's (`identityServiceHistory`, the project's
 * with its roles', applications', grants' and members' events, which are its aggregate's as in
 * ZITADEL), a user grant's (`identityServiceHistory` beside its fields) — and the organisation's own
 * events beside them (`identityServiceOrgHistory`, with its identity providers' and members' events),
 * each as `{type, sequence, createdAt, editorId, payload}`. One schema (`historySchema`) validates
 * every such list, one import (`HistoryImport`) appends them.
 *
 * An import of such a document gives every object it *creates* that history — the source's types,
 * sequences, dates and editors, each payload marked `identityServiceImported` — followed by the
 * import's own event (`user.data.imported`, `project.data.imported`, `user.grant.data.imported`;
 * for the organisation the import's `org.data.imported`), so the target's change lists show what
 * happened at the source, then the import. A part of an object whose events are the object's — an
 * application (its project's aggregate: ListAppChanges reads the project's events naming it), an
 * identity provider (its organisation's) — comes with its object's history, and gets the import's own
 * event on that aggregate naming it (`project.application.data.imported`, `org.idp.data.imported`)
 * when the import created both. An object that exists already keeps its own trail: nothing of the
 * document's history is appended to it (nor to its parts), and an aggregate with a trail here (a
 * removed object's id given again) keeps it too, the history reported as not imported. Without the
 * option the document has no history and an import appends no per-object event (description §4.5
 * rule 3).
 *
 * Payloads carry no secrets: commands write none into events (test/events-secrets.test.ts), and
 * a field whose name is a secret's (events/redact.ts) is left out on the way out and on the way
 * in, whatever the document says — a history has nothing to seal.
 *
 * An event type this service does not know (another version's, or ZITADEL's), one of another
 * aggregate's, a gap in the sequences or a date going back is refused when the document is
 * validated (400, the path names the event), before anything is written: the store appends only
 * types its trail can list (events/types.ts).
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

/** The aggregates whose objects carry a history of their own in the document. */
export type HistoryAggregate = 'user' | 'org' | 'project' | 'usergrant';

/**
 * The import's own event after each object's carried history. The organisation's is the import's
 * `org.data.imported` (import-data.ts), appended when its import ends, with what it brought.
 */
const IMPORT_EVENTS: Record<HistoryAggregate, string | undefined> = {
  user: 'user.data.imported',
  org: undefined,
  project: 'project.data.imported',
  usergrant: 'user.grant.data.imported',
};

/**
 * Parts of an object whose events are the object's aggregate's: the payload field naming the part in
 * them (as ListAppChanges filters an application's), and the import's own event for the part.
 */
const PARTS = {
  app: { aggregateType: 'project', key: 'appId', importEvent: 'project.application.data.imported' },
  idp: { aggregateType: 'org', key: 'idpConfigId', importEvent: 'org.idp.data.imported' },
} as const satisfies Record<string, { aggregateType: HistoryAggregate; key: string; importEvent: string }>;

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
export function historySchema(aggregateType: HistoryAggregate) {
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
type DocumentEvent = ReturnType<typeof toDocumentEvent>;

/**
 * Objects per page of a list that grows with the organisation (users, user grants) when their
 * histories go with them: each page's events (three or more per object) live as long as the page is
 * written, and what outlives a scavenge is promoted to the old generation; at 1,000 users a page,
 * 1,000,000 users with three events each grew the peak RSS by 187 MiB, at 100 by 10.6 MiB
 * (bench:export-memory with BENCH_HISTORY=1: 33 s, a document of 704 MiB).
 */
export const HISTORY_PAGE = 100;

/** Events are read this many at a time. */
const EVENT_PAGE = 5000;

/** The organisation's own events, a page at a time (its sequence is the cursor). */
export async function* orgHistoryPages(read: Repositories, orgId: string): AsyncGenerator<DocumentEvent[]> {
  let after = 0;
  for (;;) {
    const { events } = await read.events.search({ aggregateTypes: ['org'], aggregateId: orgId, sequenceBeyond: after, limit: EVENT_PAGE, offset: 0, asc: true });
    if (events.length) yield events.map(toDocumentEvent);
    if (events.length < EVENT_PAGE) return;
    after = events[events.length - 1].sequence;
  }
}

/** The events of a page of objects of one aggregate type, by object, each object's in sequence order. */
export async function histories(read: Repositories, aggregateType: HistoryAggregate, ids: string[]): Promise<Map<string, DocumentEvent[]>> {
  const byObject = new Map<string, DocumentEvent[]>();
  for (let offset = 0; ids.length; offset += EVENT_PAGE) {
    const events = await read.events.ofAggregates(aggregateType, ids, EVENT_PAGE, offset);
    for (const event of events) {
      let list = byObject.get(event.aggregateId);
      if (!list) byObject.set(event.aggregateId, (list = []));
      list.push(toDocumentEvent(event));
    }
    if (events.length < EVENT_PAGE) break;
  }
  return byObject;
}

/**
 * Wraps a page's item maker so each object's entry carries its history (read for the whole page at
 * once), under `identityServiceHistory`; `idOf` names a row's aggregate.
 */
export async function withHistories<R>(read: Repositories, aggregateType: HistoryAggregate, page: R[], idOf: (row: R) => string, toItem: (row: R) => unknown): Promise<(row: R) => unknown> {
  const byObject = await histories(read, aggregateType, page.map(idOf));
  return (row) => {
    const item = toItem(row) as Record<string, unknown> | undefined;
    const history = byObject.get(idOf(row));
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

/**
 * What an organisation's import (import/report.ts, OrgImport) gives the histories' import: who
 * imports and when, the histories it appended (its parts' import events look them up), and where a
 * history that could not be appended is reported.
 */
export interface HistoryRun {
  readonly creator: string;
  readonly at: Date;
  /** The histories this run appended, by `carriedKey`. */
  readonly carried: Map<string, readonly HistoryEventT[]>;
  /** The object's aggregate has a trail here already (a removed object's id): its history was not imported. */
  historyRefused(type: string, id: string): void;
}

const carriedKey = (aggregateType: HistoryAggregate, id: string) => `${aggregateType}\u0000${id}`;

/** A row's stamp: its sequence and its times. */
type Stamp = { sequence: number; createdAt: Date; changedAt: Date };

/** Objects whose histories are appended between two turns of the event loop. */
const OBJECTS_PER_TURN = 25;

/**
 * The histories of the objects of one aggregate type that one step of an import creates (a list of
 * the document, or a batch of its users): `take` before the objects' rows are written (it answers
 * the stamp each row takes), `append` after.
 */
export class HistoryImport {
  private readonly taken: { id: string; resourceOwner: string; history: readonly HistoryEventT[] }[] = [];

  private constructor(
    private readonly run: HistoryRun,
    private readonly aggregateType: HistoryAggregate,
    /** Aggregates of the document's objects that have a trail here already. */
    private readonly trailed: ReadonlySet<string>,
  ) {}

  /** For the document's objects `entries` (those with a history are looked up once, all at a time). */
  static async of(tx: Repositories, run: HistoryRun, aggregateType: HistoryAggregate, entries: Iterable<{ id: string; history?: readonly HistoryEventT[] }>): Promise<HistoryImport> {
    const ids: string[] = [];
    for (const entry of entries) if (entry.history?.length) ids.push(entry.id);
    return new HistoryImport(run, aggregateType, ids.length ? await tx.events.withTrail(aggregateType, ids) : new Set());
  }

  /**
   * The object `id`, which the import creates, with the history its entry carried (if any): taken,
   * unless its aggregate has a trail here (then reported, as `type`). Answers the stamp of its row:
   * created when the source created it, at the sequence of the import's own event.
   */
  take(type: string, id: string, resourceOwner: string, history: readonly HistoryEventT[] | undefined, stamp: Stamp): Stamp {
    if (!history?.length) return stamp;
    if (this.trailed.has(id)) {
      this.run.historyRefused(type, id);
      return stamp;
    }
    this.taken.push({ id, resourceOwner, history });
    return { ...stamp, sequence: history.length + (IMPORT_EVENTS[this.aggregateType] ? 1 : 0), createdAt: new Date(history[0].createdAt) };
  }

  /**
   * Each taken object's history, then the import's own event. On SQLite every append is a
   * synchronous call: a batch of users with their events, appended without a pause, held the event
   * loop long enough to treble the p99 of the requests answered meanwhile, so it yields every few
   * objects (the transaction stays open; the store's readers use their own connection).
   */
  async append(tx: Repositories): Promise<void> {
    const importEvent = IMPORT_EVENTS[this.aggregateType];
    for (let i = 0; i < this.taken.length; i++) {
      if (i > 0 && i % OBJECTS_PER_TURN === 0) await setImmediate();
      const { id, resourceOwner, history } = this.taken[i];
      await appendHistory(tx, this.aggregateType, id, resourceOwner, history);
      this.run.carried.set(carriedKey(this.aggregateType, id), history);
      if (importEvent) {
        const own = await tx.events.append(
          { aggregateType: this.aggregateType, aggregateId: id, type: importEvent, payload: { importedEvents: history.length }, creator: this.run.creator, resourceOwner },
          this.run.at,
        );
        if (own.sequence !== history.length + 1) throw new Error(`history of ${this.aggregateType} ${id}: the import's event stored at sequence ${own.sequence}`);
      }
    }
  }
}

/**
 * Appends an object's source history to its new aggregate on the target: the source's types,
 * dates and editors, each payload marked as imported. The aggregate is new (HistoryImport checked
 * it has no trail), so the sequences the store gives are the document's; one that is not means the
 * aggregate was not new, a programming error.
 */
async function appendHistory(tx: Repositories, aggregateType: HistoryAggregate, aggregateId: string, resourceOwner: string, history: readonly HistoryEventT[]): Promise<void> {
  for (const event of history) {
    const stored = await tx.events.append(
      { aggregateType, aggregateId, type: event.type, payload: { ...(withoutSecrets(event.payload ?? {}) as object), [IMPORTED_MARK]: true }, creator: event.editorId, resourceOwner },
      new Date(event.createdAt),
    );
    if (String(stored.sequence) !== event.sequence) throw new Error(`history of ${aggregateType} ${aggregateId}: sequence ${event.sequence} stored as ${stored.sequence}`);
  }
}

/**
 * A part (an application, an identity provider) the import created in an object whose history it
 * carried in this run (its project, its organisation): the import's own event for it on that
 * aggregate, naming it as its events do and counting them. Answers the part's row stamp (created
 * when the source created it, at that event's sequence); the stamp as given when the object's
 * history was not carried (it existed here, or the document has none): then nothing is appended.
 */
export async function importPart(tx: Repositories, run: HistoryRun, kind: keyof typeof PARTS, part: { parentId: string; id: string; resourceOwner: string }, stamp: Stamp): Promise<Stamp> {
  const { aggregateType, key, importEvent } = PARTS[kind];
  const parentHistory = run.carried.get(carriedKey(aggregateType, part.parentId));
  if (!parentHistory) return stamp;
  const own = parentHistory.filter((event) => event.payload?.[key] === part.id);
  const event = await tx.events.append(
    { aggregateType, aggregateId: part.parentId, type: importEvent, payload: { [key]: part.id, importedEvents: own.length }, creator: run.creator, resourceOwner: part.resourceOwner },
    run.at,
  );
  return { ...stamp, sequence: event.sequence, createdAt: own.length ? new Date(own[0].createdAt) : stamp.createdAt };
}
