/**
 * ZITADEL's change lists, the history tabs of its console (management ListUserChanges,
 * ListOrgChanges, ListProjectChanges, ListAppChanges): the events of one object's aggregate in the
 * context organisation, newest first unless `asc`, each as ZITADEL's `Change` (date, type with its
 * text, sequence, editor with display name and preferred login name, owning organisation). An
 * application has no aggregate of its own: its changes are its project's events naming it
 * (`appId`), as ZITADEL filters them.
 *
 * As in ZITADEL, the object need not exist any more (a removed user's history stays readable) and an
 * id with no events in the organisation answers an empty list; the permission is the object's read
 * permission in the context organisation (a project's, or the project role's for that project).
 */
import type { EventFilter, StoredEvent } from '../../store/repositories/events.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { invalidArgument, permissionDenied } from '../errors.js';
import { ORG_AGGREGATE } from '../orgs/commands.js';
import { PROJECT_AGGREGATE } from '../projects/access.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { editorsOf } from './editors.js';
import { sequenceCursor, trailLimit } from './paging.js';
import { type LocalizedMessage, localizedEventType } from './types.js';

/** Whose changes: what the four operations name. */
export type ChangeTarget = { kind: 'user'; userId: string } | { kind: 'org' } | { kind: 'project'; projectId: string } | { kind: 'app'; projectId: string; appId: string };

/** ZITADEL's ChangeQuery, from a JSON body (numbers or strings) or from URL parameters (strings). */
export interface ChangeQueryInput {
  sequence?: string | number;
  limit?: string | number;
  asc?: boolean | 'true' | 'false';
}

/** ZITADEL's `zitadel.change.v1.Change`. */
export interface ChangeView {
  changeDate: string;
  eventType: LocalizedMessage;
  sequence: string;
  editorId: string;
  editorDisplayName?: string;
  editorPreferredLoginName?: string;
  resourceOwnerId: string;
}

/**
 * The query of ListProjectChanges and ListAppChanges: ZITADEL's REST gateway reads it from the URL
 * (`query.sequence`, `query.limit`, `query.asc`), this service also from a JSON body `{query}` like
 * the other two; one of them, not both.
 */
export function changeQueryOf(body: ChangeQueryInput | undefined, params: Record<string, string | undefined>): ChangeQueryInput {
  const fromParams: ChangeQueryInput = {
    sequence: params['query.sequence'],
    limit: params['query.limit'],
    asc: params['query.asc'] as ChangeQueryInput['asc'],
  };
  const given = Object.values(fromParams).some((v) => v !== undefined);
  if (given && body) throw invalidArgument('CHANGE-qu3ry', 'give the query either as URL parameters or in the body, not both');
  return given ? fromParams : (body ?? {});
}

export async function listChanges(store: Store, ctx: RequestContext, target: ChangeTarget, query: ChangeQueryInput = {}): Promise<{ result: ChangeView[] }> {
  const filter = filterOf(ctx, target);
  const asc = query.asc === true || query.asc === 'true';
  const { events } = await store.read.events.search({
    ...filter,
    resourceOwner: ctx.orgId,
    sequenceBeyond: sequenceCursor(query.sequence),
    limit: trailLimit(query.limit),
    offset: 0,
    asc,
  });
  const editors = await editorsOf(store.read, ctx.instanceId, events);
  return { result: events.map((event) => toChangeView(event, editors.get(event.creator)!)) };
}

/** The permission check of the target and the events it covers. */
function filterOf(ctx: RequestContext, target: ChangeTarget): Pick<EventFilter, 'aggregateTypes' | 'aggregateId' | 'payload'> {
  switch (target.kind) {
    case 'user':
      requirePermission(ctx, 'user.read');
      return { aggregateTypes: [USER_AGGREGATE], aggregateId: target.userId };
    case 'org':
      requirePermission(ctx, 'org.read');
      return { aggregateTypes: [ORG_AGGREGATE], aggregateId: ctx.orgId };
    case 'project':
      requireProjectPermission(ctx, 'project.read', target.projectId);
      return { aggregateTypes: [PROJECT_AGGREGATE], aggregateId: target.projectId };
    case 'app':
      requireProjectPermission(ctx, 'project.app.read', target.projectId);
      return { aggregateTypes: [PROJECT_AGGREGATE], aggregateId: target.projectId, payload: { key: 'appId', value: target.appId } };
  }
}

/** ZITADEL's `check_field_name: ProjectId`: held in the organisation, or through a role on this project. */
function requireProjectPermission(ctx: RequestContext, permission: string, projectId: string): void {
  if (!ctx.permissions.allowsProject(permission, projectId)) throw permissionDenied('AUTH-5mWD2', `No matching permissions found (${permission})`);
}

function toChangeView(event: StoredEvent, editor: { userId: string; displayName?: string; preferredLoginName?: string }): ChangeView {
  return {
    changeDate: event.createdAt.toISOString(),
    eventType: localizedEventType(event.type),
    sequence: String(event.sequence),
    editorId: event.creator,
    ...(editor.displayName ? { editorDisplayName: editor.displayName } : {}),
    ...(editor.preferredLoginName ? { editorPreferredLoginName: editor.preferredLoginName } : {}),
    resourceOwnerId: event.resourceOwner,
  };
}
