/**
 * Project members: PROJECT_* roles held on one project (rows of the members table with scope
 * 'project', owned by the project's organisation). Their permissions count only for that project.
 */

import type { MemberWithUser } from '../../store/repositories/members.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { PROJECT_ROLES } from '../permissions.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { loginNameReader } from '../users/login-names.js';
import { appendProjectEvent, projectForCaller } from './access.js';

export interface ProjectMemberView {
  userId: string;
  details: ObjectDetails;
  roles: string[];
  userName: string;
  preferredLoginName: string;
  displayName?: string;
  userType: 'TYPE_HUMAN' | 'TYPE_MACHINE';
}

function checkRoles(roles: string[]) {
  const unknown = roles.filter((r) => !(PROJECT_ROLES as readonly string[]).includes(r));
  if (roles.length === 0 || unknown.length > 0) {
    throw invalidArgument('PROJECT-W8m4l', `Invalid member roles${unknown.length ? `: ${unknown.join(', ')}` : ''} (allowed: ${PROJECT_ROLES.join(', ')})`);
  }
}

export async function addProjectMember(store: Store, ctx: RequestContext, projectId: string, input: { userId: string; roles: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.member.write');
  const roles = [...new Set(input.roles)];
  checkRoles(roles);
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.member.write');
      if (!(await tx.users.get(input.userId))) throw failedPrecondition('PROJECT-3m9ds', 'User not found');
      if (await tx.members.get('project', project.id, input.userId)) throw alreadyExists('V3-DKcYh', 'Member already exists');
      const event = await appendProjectEvent(tx, ctx, project, 'project.member.added', { userId: input.userId, roles });
      await tx.members.insert({
        scopeType: 'project',
        scopeId: project.id,
        userId: input.userId,
        resourceOwner: project.orgId,
        roles,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      return { details: addedDetails(event) };
    },
    [[USER_AGGREGATE, input.userId]],
  );
}

export async function searchProjectMembers(store: Store, ctx: RequestContext, projectId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: ProjectMemberView[] }> {
  requirePermission(ctx, 'project.member.read');
  const project = await projectForCaller(store.read, ctx, projectId, 'project.member.read');
  const { total, rows } = await store.read.members.search('project', project.id, {}, toPage(input.query));
  return { details: listDetails(total), result: await toProjectMemberViews(store.read, ctx.instanceId, rows) };
}

/** Members of a project or of a project grant (grant-members.ts), as ZITADEL's member views show them. */
export async function toProjectMemberViews(read: Repositories, instanceId: string, rows: MemberWithUser[]): Promise<ProjectMemberView[]> {
  const names = loginNameReader(read, instanceId);
  return Promise.all(
    rows.map(async ({ member, user }) => {
      const displayName = displayNameOf(user.data);
      return {
        userId: member.userId,
        details: viewDetails(member, member.resourceOwner),
        roles: member.roles,
        userName: user.userName,
        preferredLoginName: (await names.of(user)).preferredLoginName,
        ...(displayName ? { displayName } : {}),
        userType: user.type === 'human' ? 'TYPE_HUMAN' : 'TYPE_MACHINE',
      } as ProjectMemberView;
    }),
  );
}

export async function removeProjectMember(store: Store, ctx: RequestContext, projectId: string, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.member.delete');
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.member.delete');
      if (!(await tx.members.get('project', project.id, userId))) throw notFound('PROJECT-D8JxR', 'Member not found');
      const event = await appendProjectEvent(tx, ctx, project, 'project.member.removed', { userId });
      await tx.members.remove('project', project.id, userId);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/** A human's display name (profile) or a machine's name, whichever the user's data holds. */
export function displayNameOf(data: Record<string, unknown>): string | undefined {
  const profile = (data.profile ?? {}) as Record<string, unknown>;
  const value = profile.displayName ?? data.displayName ?? data.name;
  return typeof value === 'string' && value ? value : undefined;
}
