/**
 * `details` of description §2.1, always derived from the event log: the sequence and time of
 * the events a write appended, or the sequence and dates a state row recorded from them.
 */
export interface ObjectDetails {
  sequence: string;
  creationDate?: string;
  changeDate?: string;
  resourceOwner: string;
}

export interface EventStamp {
  sequence: number;
  createdAt: Date;
  resourceOwner: string;
}

/** Details of a write that created an object. */
export function addedDetails(event: EventStamp): ObjectDetails {
  const at = event.createdAt.toISOString();
  return { sequence: String(event.sequence), creationDate: at, changeDate: at, resourceOwner: event.resourceOwner };
}

/** Details of a write that changed or removed an object. */
export function changedDetails(event: EventStamp): ObjectDetails {
  return { sequence: String(event.sequence), changeDate: event.createdAt.toISOString(), resourceOwner: event.resourceOwner };
}

/** Details of an object as read from its state row. */
export function viewDetails(row: { sequence: number; createdAt: Date; changedAt: Date }, resourceOwner: string): ObjectDetails {
  return {
    sequence: String(row.sequence),
    creationDate: row.createdAt.toISOString(),
    changeDate: row.changedAt.toISOString(),
    resourceOwner,
  };
}
