/**
 * Project grants (ZITADEL's): a project's organisation grants the project, with some of its roles,
 * to another organisation. The granted organisation's managers then give its users user grants on
 * the project (domain/user-grants/commands.ts, with the grant's id), limited to the granted roles,
 * and those roles reach the users' tokens like any other. Events go on the project aggregate
 * (`project.grant.added|changed|deactivated|reactivated|removed`), as in ZITADEL.
 *
 * Cascades, in the same transaction as the change: roles taken out of the grant are taken out of
 * its user grants (`user.grant.cascade.changed`); removing the grant removes its user grants
 * (`user.grant.cascade.removed`) and its members (grant-members.ts). A deactivated grant keeps its user grants, but
 * their roles are not put into tokens until it is reactivated (oidc/scopes.ts).
 */

import type { ProjectGrantRow } from '../../store/repositories/project-grants.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { cascadeGrantRoles, USER_GRANT_AGGREGATE } from '../user-grants/cascade.js';
import { appendProjectEvent, PROJECT_AGGREGATE, projectForCaller } from './access.js';

export const PROJECT_GRANT_STATES = ['PROJECT_GRANT_STATE_UNSPECIFIED', 'PROJECT_GRANT_STATE_ACTIVE', 'PROJECT_GRANT_STATE_INACTIVE'] as const;
export type ProjectGrantState = (typeof PROJECT_GRANT_STATES)[number];

/** ZITADEL's GrantedProject. */
export interface ProjectGrantView {
  grantId: string;
  details: ObjectDetails;
  grantedOrgId: string;
  grantedOrgName?: string;
  grantedRoleKeys: string[];
  state: ProjectGrantState;
  projectId: string;
  projectName?: string;
  projectOwnerId: string;
  projectOwnerName?: string;
}

export const projectGrantNotFound = () => notFound('PROJECT-D8JxR', 'Project grant not found');

const unique = (keys: string[] | undefined) => [...new Set((keys ?? []).map((k) => k.trim()).filter(Boolean))];

/** The project lock: grants change the project aggregate, as its roles do (roles.ts). */
const PROJECT_LOCK = 'project';

async function checkGrantedRoles(tx: Repositories, projectId: string, roleKeys: string[]): Promise<void> {
  const defined = await tx.projects.roles.existingKeys(projectId, roleKeys);
  if (defined.length !== roleKeys.length) {
    const missing = roleKeys.filter((k) => !defined.includes(k));
    throw failedPrecondition('PROJECT-m9gDs', `Project role not found: ${missing.join(', ')}`);
  }
}

/** AddProjectGrant: the context organisation's project to another organisation, with some of its roles. */
export async function addProjectGrant(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  input: { grantedOrgId: string; roleKeys?: string[] },
): Promise<{ grantId: string; details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.write');
  const grantedOrgId = input.grantedOrgId.trim();
  if (!grantedOrgId) throw invalidArgument('PROJECT-3b8fs', 'Project grant is invalid: grantedOrgId is missing');
  const roleKeys = unique(input.roleKeys);
  const grantId = newId();
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.grant.write');
      if (grantedOrgId === project.orgId) throw invalidArgument('PROJECT-0wn0r', 'A project cannot be granted to its own organisation');
      if (!(await tx.orgs.exists(grantedOrgId))) throw failedPrecondition('PROJECT-3m9s1', 'Granted organisation not found');
      await checkGrantedRoles(tx, project.id, roleKeys);
      if (await tx.projectGrants.find(project.id, grantedOrgId)) throw alreadyExists('V3-DKcYh', 'Project grant already exists: the project is granted to this organisation');
      const event = await appendProjectEvent(tx, ctx, project, 'project.grant.added', { grantId, grantedOrgId, roleKeys });
      await tx.projectGrants.insert({
        id: grantId,
        projectId: project.id,
        orgId: project.orgId,
        grantedOrgId,
        roleKeys,
        state: 'PROJECT_GRANT_STATE_ACTIVE',
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      return { grantId, details: addedDetails(event) };
    },
    [[PROJECT_LOCK, projectId]],
  );
}

/** The grant of the context organisation's project, after `permission` was checked for the project. */
export async function grantOfProject(tx: Repositories, ctx: RequestContext, projectId: string, grantId: string, permission: string) {
  const project = await projectForCaller(tx, ctx, projectId, permission);
  const grant = await tx.projectGrants.get(grantId);
  if (!grant || grant.projectId !== project.id) throw projectGrantNotFound();
  return { project, grant };
}

/** UpdateProjectGrant: the granted roles. Roles taken out leave the grant's user grants too. */
export async function updateProjectGrant(store: Store, ctx: RequestContext, projectId: string, grantId: string, input: { roleKeys?: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.write');
  const roleKeys = unique(input.roleKeys);
  return store.transaction(
    async (tx) => {
      const { project, grant } = await grantOfProject(tx, ctx, projectId, grantId, 'project.grant.write');
      await checkGrantedRoles(tx, project.id, roleKeys);
      if (roleKeys.length === grant.roleKeys.length && roleKeys.every((k) => grant.roleKeys.includes(k))) {
        throw failedPrecondition('PROJECT-0o0pL', 'Project grant has not been changed');
      }
      const event = await appendProjectEvent(tx, ctx, project, 'project.grant.changed', { grantId, roleKeys });
      await tx.projectGrants.update(grant.id, { roleKeys, sequence: event.sequence, changedAt: event.createdAt });
      await cascadeGrantRoles(tx, ctx.caller.userId, grant.id, roleKeys);
      return { details: changedDetails(event) };
    },
    [[PROJECT_LOCK, projectId]],
  );
}

export async function deactivateProjectGrant(store: Store, ctx: RequestContext, projectId: string, grantId: string) {
  return setState(store, ctx, projectId, grantId, 'PROJECT_GRANT_STATE_INACTIVE');
}

export async function reactivateProjectGrant(store: Store, ctx: RequestContext, projectId: string, grantId: string) {
  return setState(store, ctx, projectId, grantId, 'PROJECT_GRANT_STATE_ACTIVE');
}

async function setState(store: Store, ctx: RequestContext, projectId: string, grantId: string, state: ProjectGrantState): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.write');
  return store.transaction(
    async (tx) => {
      const { project, grant } = await grantOfProject(tx, ctx, projectId, grantId, 'project.grant.write');
      if (grant.state === state) {
        throw state === 'PROJECT_GRANT_STATE_INACTIVE' ? failedPrecondition('PROJECT-47fu8', 'Project grant is not active') : failedPrecondition('PROJECT-2kd9w', 'Project grant is not inactive');
      }
      const type = state === 'PROJECT_GRANT_STATE_INACTIVE' ? 'project.grant.deactivated' : 'project.grant.reactivated';
      const event = await appendProjectEvent(tx, ctx, project, type, { grantId });
      await tx.projectGrants.update(grant.id, { state, sequence: event.sequence, changedAt: event.createdAt });
      return { details: changedDetails(event) };
    },
    [[PROJECT_LOCK, projectId]],
  );
}

/** RemoveProjectGrant: with its user grants and its members. */
export async function removeProjectGrant(store: Store, ctx: RequestContext, projectId: string, grantId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.grant.delete');
  return store.transaction(
    async (tx) => {
      const { project, grant } = await grantOfProject(tx, ctx, projectId, grantId, 'project.grant.delete');
      const event = await appendProjectEvent(tx, ctx, project, 'project.grant.removed', { grantId, grantedOrgId: grant.grantedOrgId });
      await tx.projectGrants.remove(grant.id);
      for (const userGrant of await tx.userGrants.byProjectGrant(grant.id)) {
        await tx.events.append({
          aggregateType: USER_GRANT_AGGREGATE,
          aggregateId: userGrant.id,
          type: 'user.grant.cascade.removed',
          payload: { userId: userGrant.userId, projectId: userGrant.projectId, projectGrantId: grant.id },
          creator: ctx.caller.userId,
          resourceOwner: userGrant.orgId,
        });
        await tx.userGrants.remove(userGrant.id);
      }
      await tx.members.removeScope('project_grant', grant.id);
      return { details: changedDetails(event) };
    },
    [[PROJECT_LOCK, projectId]],
  );
}

/** A removed project role leaves every grant of the project that granted it (and, through cascade.ts, its user grants). */
export async function cascadeRoleRemovalToProjectGrants(tx: Repositories, ctx: RequestContext, projectId: string, projectOrgId: string, roleKey: string): Promise<void> {
  for (const grant of await tx.projectGrants.byProject(projectId)) {
    if (!grant.roleKeys.includes(roleKey)) continue;
    const roleKeys = grant.roleKeys.filter((k) => k !== roleKey);
    // The role's removal touched the project already (roles.ts); its cascades do not again.
    const event = await tx.events.append({
      aggregateType: PROJECT_AGGREGATE,
      aggregateId: projectId,
      type: 'project.grant.cascade.changed',
      payload: { grantId: grant.id, roleKeys },
      creator: ctx.caller.userId,
      resourceOwner: projectOrgId,
    });
    await tx.projectGrants.update(grant.id, { roleKeys, sequence: event.sequence, changedAt: event.createdAt });
  }
}

export async function toView(read: Repositories, grant: ProjectGrantRow): Promise<ProjectGrantView> {
  const [project, owner, granted] = await Promise.all([read.projects.get(grant.projectId), read.orgs.get(grant.orgId), read.orgs.get(grant.grantedOrgId)]);
  return {
    grantId: grant.id,
    details: viewDetails(grant, grant.orgId),
    grantedOrgId: grant.grantedOrgId,
    ...(granted ? { grantedOrgName: granted.name } : {}),
    grantedRoleKeys: grant.roleKeys,
    state: grant.state as ProjectGrantState,
    projectId: grant.projectId,
    ...(project ? { projectName: project.name } : {}),
    projectOwnerId: grant.orgId,
    ...(owner ? { projectOwnerName: owner.name } : {}),
  };
}

export async function getProjectGrant(store: Store, ctx: RequestContext, projectId: string, grantId: string): Promise<{ projectGrant: ProjectGrantView }> {
  requirePermission(ctx, 'project.grant.read');
  const { grant } = await grantOfProject(store.read, ctx, projectId, grantId, 'project.grant.read');
  return { projectGrant: await toView(store.read, grant) };
}

export async function listProjectGrants(store: Store, ctx: RequestContext, projectId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: ProjectGrantView[] }> {
  requirePermission(ctx, 'project.grant.read');
  const project = await projectForCaller(store.read, ctx, projectId, 'project.grant.read');
  const { total, rows } = await store.read.projectGrants.search(project.id, toPage(input.query));
  return { details: listDetails(total), result: await Promise.all(rows.map((g) => toView(store.read, g))) };
}

/** ListGrantedProjects: the projects granted to the context organisation, as their grants. */
export async function listGrantedProjects(store: Store, ctx: RequestContext, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: ProjectGrantView[] }> {
  requirePermission(ctx, 'project.read');
  // A caller whose permission comes from project roles sees only those projects (as ListProjects).
  const { total, rows } = await store.read.projectGrants.grantedTo(ctx.orgId, toPage(input.query), ctx.permissions.projectsWith('project.read'));
  return { details: listDetails(total), result: await Promise.all(rows.map((g) => toView(store.read, g))) };
}
