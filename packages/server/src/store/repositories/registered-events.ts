/**
 * Every way a dialect appends an event (one, several at once, a text's or a grant's removal in one
 * statement), checked against the trail's vocabulary first (domain/events/types.ts): nothing is
 * appended under a type ListEventTypes does not know.
 */
import { assertRegisteredEvent } from '../../domain/events/types.js';
import type { DialectStatements } from './dialect-statements.js';

export function registeredEventsOnly(dialect: DialectStatements): DialectStatements {
  const { appendEvent, appendEvents, setTextWithEvent, takeUserGrantWithEvent } = dialect;
  return {
    ...dialect,
    appendEvent: async (event, at) => {
      assertRegisteredEvent(event);
      return appendEvent(event, at);
    },
    appendEvents:
      appendEvents &&
      (async (events, at) => {
        events.forEach(assertRegisteredEvent);
        return appendEvents(events, at);
      }),
    setTextWithEvent:
      setTextWithEvent &&
      (async (event, text, at) => {
        assertRegisteredEvent(event);
        return setTextWithEvent(event, text, at);
      }),
    takeUserGrantWithEvent:
      takeUserGrantWithEvent &&
      (async (id, orgId, userId, removal, at) => {
        assertRegisteredEvent(removal);
        return takeUserGrantWithEvent(id, orgId, userId, removal, at);
      }),
  };
}
