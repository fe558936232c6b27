/**
 * Project grant members (ZITADEL's): PROJECT_GRANT_* roles on one project grant, given by the
 * project's organisation (the calls act on its project) to users of the granted organisation.
 * The membership is owned by the granted organisation, whose context its permissions count in,
 * and only for that grant (domain/permissions.ts): a PROJECT_GRANT_OWNER manages the user grants
 * given through the grant and the grant's members, and nothing else. Events go on the project
 * aggregate (`project.grant.member.added|changed|removed`), as in ZITADEL.
 */
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { PROJECT_GRANT_ROLES } from '../permissions.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { appendProjectEvent } from './access.js';
import { grantOfProject } from './grants.js';
import { type ProjectMemberView, toProjectMemberViews } from './members.js';

function checkRoles(roles: string[]) {
  const unknown = roles.filter((r) => !(PROJECT_GRANT_ROLES as readonly string[]).includes(r));
  if (roles.length === 0 || unknown.length > 0) {
    throw invalidArgument('PROJECT-0wpld', `Invalid member roles${unknown.length ? `: ${unknown.join(', ')}` : ''} (allowed: ${PROJECT_GRANT_ROLES.join(', ')})`);
  }
}

export async function addProjectGrantMember(store: Store, ctx: RequestContext, projectId: string, grantId: string, input: { userId: string; roles: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.member.write');
  const roles = [...new Set(input.roles)];
  checkRoles(roles);
  return store.transaction(
    async (tx) => {
      const { project, grant } = await grantOfProject(tx, ctx, projectId, grantId, 'project.grant.member.write');
      const user = await tx.users.get(input.userId);
      // ZITADEL: the member must belong to the organisation the project is granted to.
      if (!user || user.orgId !== grant.grantedOrgId) throw failedPrecondition('PROJECT-2E8gd', 'User not found in the granted organisation');
      if (await tx.members.get('project_grant', grant.id, user.id)) throw alreadyExists('PROJECT-37fug', 'Member already exists');
      const event = await appendProjectEvent(tx, ctx, project, 'project.grant.member.added', { grantId: grant.id, userId: user.id, roles });
      await tx.members.insert({
        scopeType: 'project_grant',
        scopeId: grant.id,
        userId: user.id,
        resourceOwner: grant.grantedOrgId,
        roles,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      return { details: addedDetails(event) };
    },
    [
      [USER_AGGREGATE, input.userId],
      ['project', projectId],
    ],
  );
}

export async function updateProjectGrantMember(store: Store, ctx: RequestContext, projectId: string, grantId: string, userId: string, input: { roles: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.member.write');
  const roles = [...new Set(input.roles)];
  checkRoles(roles);
  return store.transaction(
    async (tx) => {
      const { project, grant } = await grantOfProject(tx, ctx, projectId, grantId, 'project.grant.member.write');
      const member = await tx.members.get('project_grant', grant.id, userId);
      if (!member) throw notFound('PROJECT-05ffd', 'Member not found');
      if (roles.length === member.roles.length && roles.every((r) => member.roles.includes(r))) throw failedPrecondition('PROJECT-Fshx8', 'Member has not been changed');
      const event = await appendProjectEvent(tx, ctx, project, 'project.grant.member.changed', { grantId: grant.id, userId, roles });
      await tx.members.update('project_grant', grant.id, userId, roles, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [
      [USER_AGGREGATE, userId],
      ['project', projectId],
    ],
  );
}

export async function removeProjectGrantMember(store: Store, ctx: RequestContext, projectId: string, grantId: string, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.member.delete');
  return store.transaction(
    async (tx) => {
      const { project, grant } = await grantOfProject(tx, ctx, projectId, grantId, 'project.grant.member.delete');
      if (!(await tx.members.get('project_grant', grant.id, userId))) throw notFound('PROJECT-05ffd', 'Member not found');
      const event = await appendProjectEvent(tx, ctx, project, 'project.grant.member.removed', { grantId: grant.id, userId });
      await tx.members.remove('project_grant', grant.id, userId);
      return { details: changedDetails(event) };
    },
    [
      [USER_AGGREGATE, userId],
      ['project', projectId],
    ],
  );
}

export async function listProjectGrantMembers(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  grantId: string,
  input: { query?: ListQueryInput },
): Promise<{ details: ListDetails; result: ProjectMemberView[] }> {
  requirePermission(ctx, 'project.grant.member.read');
  const { grant } = await grantOfProject(store.read, ctx, projectId, grantId, 'project.grant.member.read');
  const { total, rows } = await store.read.members.search('project_grant', grant.id, {}, toPage(input.query));
  return { details: listDetails(total), result: await toProjectMemberViews(store.read, ctx.instanceId, rows) };
}
