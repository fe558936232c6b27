/**
 * RemoveProject (ZITADEL's `DELETE /management/v1/projects/{id}`, permission `project.delete`):
 * the project with everything it owns, in one transaction, an event for each: its grants to
 * other organisations (`project.grant.cascade.removed`) with their members and the user grants
 * given through them, the user grants on it (`user.grant.cascade.removed`), its applications
 * (`project.application.cascade.removed`) with their keys (`project.application.key.cascade.removed`),
 * its members (`project.member.cascade.removed`), its roles; then `project.removed`. Ids stay unused
 * by anything else, so an import can bring the project back with them (issue 30).
 */

import type { StoredEvent } from '../../store/repositories/events.js';
import type { ProjectRow } from '../../store/repositories/projects.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { removeUserGrantsWithin } from '../user-grants/cascade.js';
import { PROJECT_AGGREGATE, projectForCaller } from './access.js';

export async function removeProject(store: Store, ctx: RequestContext, projectId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.delete');
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.delete');
      return { details: changedDetails(await removeProjectWithin(tx, ctx, project, 'project.removed')) };
    },
    [['project', projectId]],
  );
}

/**
 * What a cascade leaves to later: an organisation's removal removes the user grants on its
 * projects (given by it or, through its project grants, by others: as many as there are users)
 * in the background, a batch at a time (domain/orgs/removal.ts).
 */
export interface ProjectCascade {
  userGrantsLater?: boolean;
}

/** The project and what it owns, inside the caller's transaction (RemoveProject, RemoveOrg). */
export async function removeProjectWithin(
  tx: Repositories,
  ctx: RequestContext,
  project: ProjectRow,
  type: 'project.removed' | 'project.cascade.removed',
  cascade: ProjectCascade = {},
): Promise<StoredEvent> {
  const onProject = (eventType: string, payload: Record<string, unknown>) =>
    tx.events.append({ aggregateType: PROJECT_AGGREGATE, aggregateId: project.id, type: eventType, payload, creator: ctx.caller.userId, resourceOwner: project.orgId });
  for (const grant of await tx.projectGrants.byProject(project.id)) {
    await removeGrantWithin(tx, ctx, grant, project.orgId, cascade);
  }
  if (!cascade.userGrantsLater) await removeUserGrantsWithin(tx, ctx.caller.userId, await tx.userGrants.byProject(project.id));
  for (const app of await tx.removal.appsOf(project.id)) {
    for (const key of await tx.removal.appKeysOf(app.id)) {
      await onProject('project.application.key.cascade.removed', { appId: app.id, keyId: key.id });
    }
    await tx.appKeys.removeAllOf(app.id);
    await onProject('project.application.cascade.removed', { appId: app.id, name: app.name, clientId: app.clientId });
    await tx.oidcApps.remove(app.id);
  }
  for (const m of await tx.removal.membersOf('project', project.id)) {
    await onProject('project.member.cascade.removed', { userId: m.userId });
  }
  await tx.members.removeScope('project', project.id);
  await tx.removal.removeProject(project.id);
  return onProject(type, { name: project.name });
}

/** A project grant with its members and the user grants given through it (the project's aggregate carries the event). */
export async function removeGrantWithin(
  tx: Repositories,
  ctx: RequestContext,
  grant: { id: string; projectId: string; grantedOrgId: string },
  projectOrgId: string,
  cascade: ProjectCascade = {},
): Promise<void> {
  await tx.events.append({
    aggregateType: PROJECT_AGGREGATE,
    aggregateId: grant.projectId,
    type: 'project.grant.cascade.removed',
    payload: { grantId: grant.id, grantedOrgId: grant.grantedOrgId },
    creator: ctx.caller.userId,
    resourceOwner: projectOrgId,
  });
  if (!cascade.userGrantsLater) await removeUserGrantsWithin(tx, ctx.caller.userId, await tx.userGrants.byProjectGrant(grant.id));
  for (const m of await tx.removal.membersOf('project_grant', grant.id)) {
    await tx.events.append({
      aggregateType: PROJECT_AGGREGATE,
      aggregateId: grant.projectId,
      type: 'project.grant.member.cascade.removed',
      payload: { grantId: grant.id, userId: m.userId },
      creator: ctx.caller.userId,
      resourceOwner: projectOrgId,
    });
  }
  await tx.members.removeScope('project_grant', grant.id);
  await tx.projectGrants.remove(grant.id);
}
