/**
 * How project operations find their project and check the caller's hold on it: a project
 * exists only in the organisation that owns it (another organisation's project answers 404),
 * and a permission that comes from a project role counts only for that project.
 */

import type { StoredEvent } from '../../store/repositories/events.js';
import type { ProjectRow } from '../../store/repositories/projects.js';
import type { Repositories } from '../../store/store.js';
import type { RequestContext } from '../context.js';
import { notFound, permissionDenied } from '../errors.js';

export const PROJECT_AGGREGATE = 'project';

export const projectNotFound = () => notFound('PROJECT-Gd2hh', 'Project not found');

/** The context organisation's project, after `permission` was checked for it. */
export async function projectForCaller(repos: Repositories, ctx: RequestContext, projectId: string, permission: string): Promise<ProjectRow> {
  const project = await repos.projects.getInOrg(projectId, ctx.orgId);
  if (!project) throw projectNotFound();
  if (!ctx.permissions.allowsProject(permission, project.id)) {
    throw permissionDenied('AUTH-5mWD2', `No matching permissions found (${permission})`);
  }
  return project;
}

/**
 * Events on `project`'s aggregate, which carries the changes of its roles, grants, members and
 * applications too, in order, and the project's row touched once with the last one's position (its
 * `changedAt` and sequence move with every such change, as ZITADEL's project view does).
 */
export async function appendProjectEvents(
  tx: Repositories,
  ctx: RequestContext,
  project: Pick<ProjectRow, 'id' | 'orgId'>,
  events: [type: string, payload: Record<string, unknown>][],
): Promise<StoredEvent[]> {
  const appended: StoredEvent[] = [];
  for (const [type, payload] of events) {
    appended.push(await tx.events.append({ aggregateType: PROJECT_AGGREGATE, aggregateId: project.id, type, payload, creator: ctx.caller.userId, resourceOwner: project.orgId }));
  }
  const last = appended.at(-1);
  if (last) await tx.projects.touch(project.id, last.sequence, last.createdAt);
  return appended;
}

/** One event on the project's aggregate, the project touched (appendProjectEvents). */
export async function appendProjectEvent(tx: Repositories, ctx: RequestContext, project: Pick<ProjectRow, 'id' | 'orgId'>, type: string, payload: Record<string, unknown>): Promise<StoredEvent> {
  const [event] = await appendProjectEvents(tx, ctx, project, [[type, payload]]);
  return event!;
}
