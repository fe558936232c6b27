import { z } from '@hono/zod-openapi';

const timestamp = z.iso.datetime({ offset: true });

export const ListEventsRequest = z.object({
  limit: z.number().int().min(0).max(1000).optional(),
  offset: z.union([z.string().regex(/^[0-9]+$/), z.number().int().min(0)]).optional(),
  asc: z.boolean().optional(),
  editorUserId: z.string().max(200).optional(),
  aggregateTypes: z.array(z.string().max(200)).optional(),
  aggregateId: z.string().max(200).optional(),
  eventTypes: z.array(z.string().max(200)).optional(),
  resourceOwner: z.string().max(200).optional(),
  range: z.object({ since: timestamp.optional(), until: timestamp.optional() }).optional(),
  from: timestamp.optional(),
});

export const Event = z
  .object({
    editor: z.object({ userId: z.string() }),
    aggregate: z.object({ id: z.string(), type: z.object({ type: z.string() }), resourceOwner: z.string() }),
    sequence: z.string(),
    position: z.string(),
    creationDate: z.string(),
    payload: z.record(z.string(), z.unknown()),
    type: z.object({ type: z.string() }),
  })
  .openapi('Event');

export const ListEventsResponse = z.object({ events: z.array(Event) });
