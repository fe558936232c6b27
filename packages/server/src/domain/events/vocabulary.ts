/**
 * Admin ListEventTypes and ListAggregateTypes: what the trail's filters accept, from the one
 * registry of what this service appends (types.ts), sorted. Permission `events.read`, as ListEvents.
 */
import { type RequestContext, requirePermission } from '../context.js';
import { AGGREGATE_TYPES, EVENT_TYPES, type LocalizedMessage, localizedAggregateType, localizedEventType } from './types.js';

export interface TypeView {
  type: string;
  localized: LocalizedMessage;
}

export function listEventTypes(ctx: RequestContext): { eventTypes: TypeView[] } {
  requirePermission(ctx, 'events.read');
  return {
    eventTypes: Object.keys(EVENT_TYPES)
      .sort()
      .map((type) => ({ type, localized: localizedEventType(type) })),
  };
}

export function listAggregateTypes(ctx: RequestContext): { aggregateTypes: TypeView[] } {
  requirePermission(ctx, 'events.read');
  return {
    aggregateTypes: Object.keys(AGGREGATE_TYPES)
      .sort()
      .map((type) => ({ type, localized: localizedAggregateType(type) })),
  };
}
