/**
 * The audit trail (admin ListEvents): every event of the instance, newest first unless `asc`.
 * Filters follow ZITADEL's ListEventsRequest (editorUserId, aggregateTypes, aggregateId,
 * eventTypes, resourceOwner, creation-date `range {since, until}` or `from`); paging is
 * `limit`/`offset` where ZITADEL pages by a `sequence` cursor.
 */
import { requirePermission, type RequestContext } from '../context.js';
import { invalidArgument } from '../errors.js';
import { DEFAULT_LIST_LIMIT } from '../list.js';
import type { Store } from '../../store/store.js';

export interface EventSearchInput {
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
}

export interface EventView {
  editor: { userId: string };
  aggregate: { id: string; type: { type: string }; resourceOwner: string };
  sequence: string;
  position: string;
  creationDate: string;
  payload: Record<string, unknown>;
  type: { type: string };
}

export async function searchEvents(store: Store, ctx: RequestContext, input: EventSearchInput): Promise<{ events: EventView[] }> {
  requirePermission(ctx, 'events.read');
  if (input.from && input.range) throw invalidArgument('ADMIN-0dR4n', 'Give either range or from, not both');
  const since = input.range?.since ?? input.from;
  const offset = Number(input.offset ?? 0);
  const { events } = await store.read.events.search({
    creator: input.editorUserId || undefined,
    aggregateTypes: input.aggregateTypes,
    aggregateId: input.aggregateId || undefined,
    eventTypes: input.eventTypes,
    resourceOwner: input.resourceOwner || undefined,
    from: since ? new Date(since) : undefined,
    until: input.range?.until ? new Date(input.range.until) : undefined,
    limit: input.limit || DEFAULT_LIST_LIMIT,
    offset: Number.isSafeInteger(offset) ? offset : 0,
    asc: input.asc ?? false,
  });
  return {
    events: events.map((e) => ({
      editor: { userId: e.creator },
      aggregate: { id: e.aggregateId, type: { type: e.aggregateType }, resourceOwner: e.resourceOwner },
      sequence: String(e.sequence),
      position: String(e.position),
      creationDate: e.createdAt.toISOString(),
      payload: e.payload,
      type: { type: e.type },
    })),
  };
}
