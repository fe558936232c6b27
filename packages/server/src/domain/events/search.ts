/**
 * The audit trail (admin ListEvents): every event of the instance, newest first unless `asc`.
 * Filters follow ZITADEL's ListEventsRequest (editorUserId, aggregateTypes, aggregateId,
 * eventTypes, resourceOwner, the `sequence` cursor, creation dates: `range {since, until}`, or
 * `from` (deprecated: `creationDate`), the point the reading starts from: events at or after it
 * ascending, at or before it descending); paging also by `limit`/`offset`. Payloads are read back
 * through `redactSecrets` (redact.ts).
 */
import type { StoredEvent } from '../../store/repositories/events.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { invalidArgument } from '../errors.js';
import { DEFAULT_LIST_LIMIT } from '../list.js';
import { type Editor, editorsOf } from './editors.js';
import { sequenceCursor } from './paging.js';
import { redactSecrets } from './redact.js';
import { type LocalizedMessage, localizedAggregateType, localizedEventType } from './types.js';

export interface EventSearchInput {
  sequence?: string | number;
  limit?: number;
  offset?: string | number;
  asc?: boolean;
  editorUserId?: string;
  aggregateTypes?: string[];
  aggregateId?: string;
  eventTypes?: string[];
  resourceOwner?: string;
  range?: { since?: string; until?: string };
  from?: string;
  creationDate?: string;
}

export interface EventView {
  editor: { userId: string; displayName?: string };
  aggregate: { id: string; type: { type: string; localized: LocalizedMessage }; resourceOwner: string };
  sequence: string;
  position: string;
  creationDate: string;
  payload: Record<string, unknown>;
  type: { type: string; localized: LocalizedMessage };
}

export async function searchEvents(store: Store, ctx: RequestContext, input: EventSearchInput): Promise<{ events: EventView[] }> {
  requirePermission(ctx, 'events.read');
  const asc = input.asc ?? false;
  const { from, until } = creationWindow(input, asc);
  const offset = Number(input.offset ?? 0);
  const { events } = await store.read.events.search({
    creator: input.editorUserId || undefined,
    aggregateTypes: input.aggregateTypes,
    aggregateId: input.aggregateId || undefined,
    eventTypes: input.eventTypes,
    resourceOwner: input.resourceOwner || undefined,
    sequenceBeyond: sequenceCursor(input.sequence),
    from,
    until,
    limit: input.limit || DEFAULT_LIST_LIMIT,
    offset: Number.isSafeInteger(offset) ? offset : 0,
    asc,
  });
  const editors = await editorsOf(store.read, ctx.instanceId, events);
  return { events: events.map((e) => toEventView(e, editors.get(e.creator)!)) };
}

/** ZITADEL's creation-date filters: `range` bounds both ends; `from` (or the deprecated `creationDate`) is where reading starts. */
function creationWindow(input: EventSearchInput, asc: boolean): { from?: Date; until?: Date } {
  const start = input.from ?? input.creationDate;
  if (input.from && input.creationDate) throw invalidArgument('ADMIN-0dR4n', 'Give either from or creationDate, not both');
  if (start && input.range) throw invalidArgument('ADMIN-0dR4n', 'Give either range or from, not both');
  if (input.range) {
    return { from: input.range.since ? new Date(input.range.since) : undefined, until: input.range.until ? new Date(input.range.until) : undefined };
  }
  if (!start) return {};
  return asc ? { from: new Date(start) } : { until: new Date(start) };
}

function toEventView(e: StoredEvent, editor: Editor): EventView {
  return {
    editor: { userId: e.creator, ...(editor.displayName ? { displayName: editor.displayName } : {}) },
    aggregate: { id: e.aggregateId, type: { type: e.aggregateType, localized: localizedAggregateType(e.aggregateType) }, resourceOwner: e.resourceOwner },
    sequence: String(e.sequence),
    position: String(e.position),
    creationDate: e.createdAt.toISOString(),
    payload: redactSecrets(e.payload),
    type: { type: e.type, localized: localizedEventType(e.type) },
  };
}
