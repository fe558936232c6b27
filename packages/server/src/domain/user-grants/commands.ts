/**
 * User grants, write side (reference §2.2–2.3). A grant lives in the organisation that granted
 * it (the context organisation) and is its own aggregate, so a new grant's sequence is 1.
 * Permissions come first (any hold on the permission), then the grant or project is looked up in
 * the context organisation only, then a permission held only through project roles must cover
 * the grant's project (403 `EVENT-Shu7e`). A project of another organisation can be granted only
 * through a project grant to the context organisation (domain/projects/grants.ts), and only with
 * the roles that grant has.
 */

import type { GrantRemoval, UserGrantRow } from '../../store/repositories/user-grants.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound, permissionDenied } from '../errors.js';
import { newId } from '../ids.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { USER_GRANT_AGGREGATE } from './cascade.js';

export const USER_GRANT_STATES = ['USER_GRANT_STATE_UNSPECIFIED', 'USER_GRANT_STATE_ACTIVE', 'USER_GRANT_STATE_INACTIVE'] as const;

export const grantNotFound = () => notFound('COMMAND-1My0t', 'User grant not found');

/** A permission held only through project (or project grant) roles must cover the project (or the grant). */
export function checkProjectScope(ctx: RequestContext, permission: string, projectId: string, projectGrantId?: string | null): void {
  if (!ctx.permissions.allowsProject(permission, projectId) && !(projectGrantId && ctx.permissions.allowsProject(permission, projectGrantId))) {
    throw permissionDenied('EVENT-Shu7e', 'User has no permissions on this project');
  }
}

async function checkRoleKeys(tx: Repositories, grant: { projectId: string; projectGrantId?: string | null }, roleKeys: string[]): Promise<void> {
  if (grant.projectGrantId) {
    // Through a project grant: only the roles granted (ZITADEL's Errors.Project.Role.NotFound as well).
    const projectGrant = await tx.projectGrants.get(grant.projectGrantId);
    const missing = roleKeys.filter((k) => !projectGrant?.roleKeys.includes(k));
    if (missing.length) throw failedPrecondition('COMMAND-mm9F4', `Project role not found in the project grant: ${missing.join(', ')}`);
    return;
  }
  const defined = await tx.projects.roles.existingKeys(grant.projectId, roleKeys);
  if (defined.length !== roleKeys.length) throw failedPrecondition('COMMAND-mm9F4', 'Project role not found');
}

/**
 * The project a user grant of the context organisation is for: its own project, or one granted to
 * it (by `projectGrantId`, or found by the project when not given: a project is granted to an
 * organisation once). Unknown, foreign and not granted projects answer alike (reference §2.2).
 */
async function grantableProject(tx: Repositories, ctx: RequestContext, projectId: string, projectGrantId: string | undefined) {
  if (!projectGrantId) {
    const own = await tx.projects.getInOrg(projectId, ctx.orgId);
    if (own) return { projectId: own.id, projectGrantId: null };
  }
  const projectGrant = projectGrantId ? await tx.projectGrants.get(projectGrantId) : await tx.projectGrants.find(projectId, ctx.orgId);
  if (!projectGrant || projectGrant.projectId !== projectId || projectGrant.grantedOrgId !== ctx.orgId) throw failedPrecondition('COMMAND-4m9ff', 'Grant not found');
  return { projectId: projectGrant.projectId, projectGrantId: projectGrant.id };
}

const unique = (keys: string[] | undefined) => [...new Set((keys ?? []).map((k) => k.trim()))];

export async function addUserGrant(
  store: Store,
  ctx: RequestContext,
  userId: string,
  input: { projectId: string; projectGrantId?: string; roleKeys?: string[] },
): Promise<{ userGrantId: string; details: ObjectDetails }> {
  requirePermission(ctx, 'user.grant.write');
  if (!userId.trim() || !input.projectId.trim()) throw invalidArgument('COMMAND-kVfMa', 'User grant is invalid');
  const roleKeys = unique(input.roleKeys);
  const id = newId();
  return store.transaction(
    async (tx) => {
      if (!(await tx.users.get(userId))) throw failedPrecondition('COMMAND-4f8sg', 'User could not be found');
      const project = await grantableProject(tx, ctx, input.projectId, input.projectGrantId?.trim() || undefined);
      checkProjectScope(ctx, 'user.grant.write', project.projectId, project.projectGrantId);
      await checkRoleKeys(tx, project, roleKeys);
      if (await tx.userGrants.find(ctx.orgId, userId, project.projectId)) throw alreadyExists('V3-DKcYh', 'User grant already exists');
      const event = await tx.events.append({
        aggregateType: USER_GRANT_AGGREGATE,
        aggregateId: id,
        type: 'user.grant.added',
        payload: { userId, projectId: project.projectId, ...(project.projectGrantId ? { projectGrantId: project.projectGrantId } : {}), roleKeys },
        creator: ctx.caller.userId,
        resourceOwner: ctx.orgId,
      });
      await tx.userGrants.insert({
        id,
        orgId: ctx.orgId,
        userId,
        projectId: project.projectId,
        projectGrantId: project.projectGrantId,
        roleKeys,
        state: 'USER_GRANT_STATE_ACTIVE',
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      return { userGrantId: id, details: addedDetails(event) };
      // The project's lock: a project grant removed or changed meanwhile (grants.ts) waits for this.
    },
    [
      [USER_AGGREGATE, userId],
      ['project', input.projectId],
    ],
  );
}

/**
 * The grant addressed by the path, after the permission checks. Unlike ZITADEL (which ignores
 * the path's user id) a grant of another user answers 404 as well.
 */
async function grantForCaller(tx: Repositories, ctx: RequestContext, userId: string, grantId: string, permission: string): Promise<UserGrantRow> {
  const grant = await tx.userGrants.getInOrg(grantId, ctx.orgId);
  if (!grant || grant.userId !== userId) throw grantNotFound();
  checkProjectScope(ctx, permission, grant.projectId, grant.projectGrantId);
  return grant;
}

const grantEvent = (ctx: RequestContext, grant: UserGrantRow, type: string, payload: Record<string, unknown>) => ({
  aggregateType: USER_GRANT_AGGREGATE,
  aggregateId: grant.id,
  type,
  payload,
  creator: ctx.caller.userId,
  resourceOwner: grant.orgId,
});

async function appendGrantEvent(tx: Repositories, ctx: RequestContext, grant: UserGrantRow, type: string, payload: Record<string, unknown>) {
  return tx.events.append(grantEvent(ctx, grant, type, payload));
}

/** Replaces the grant's roles; the same roles again is refused as ZITADEL does. */
export async function updateUserGrant(store: Store, ctx: RequestContext, userId: string, grantId: string, input: { roleKeys?: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.grant.write');
  const roleKeys = unique(input.roleKeys);
  return store.transaction(
    async (tx) => {
      const grant = await grantForCaller(tx, ctx, userId, grantId, 'user.grant.write');
      await checkRoleKeys(tx, grant, roleKeys);
      const same = roleKeys.length === grant.roleKeys.length && roleKeys.every((k) => grant.roleKeys.includes(k));
      if (same) throw failedPrecondition('COMMAND-Rs8fy', 'User grant has not been changed');
      const event = await appendGrantEvent(tx, ctx, grant, 'user.grant.changed', { roleKeys });
      await tx.userGrants.update(grant.id, { roleKeys, sequence: event.sequence, changedAt: event.createdAt });
      return { details: changedDetails(event) };
    },
    [
      [USER_AGGREGATE, userId],
      [USER_GRANT_AGGREGATE, grantId],
    ],
  );
}

export async function deactivateUserGrant(store: Store, ctx: RequestContext, userId: string, grantId: string): Promise<{ details: ObjectDetails }> {
  return setState(store, ctx, userId, grantId, 'USER_GRANT_STATE_INACTIVE');
}

export async function reactivateUserGrant(store: Store, ctx: RequestContext, userId: string, grantId: string): Promise<{ details: ObjectDetails }> {
  return setState(store, ctx, userId, grantId, 'USER_GRANT_STATE_ACTIVE');
}

async function setState(store: Store, ctx: RequestContext, userId: string, grantId: string, state: 'USER_GRANT_STATE_ACTIVE' | 'USER_GRANT_STATE_INACTIVE') {
  requirePermission(ctx, 'user.grant.write');
  return store.transaction(
    async (tx) => {
      const grant = await grantForCaller(tx, ctx, userId, grantId, 'user.grant.write');
      if (grant.state === state) {
        throw state === 'USER_GRANT_STATE_INACTIVE' ? failedPrecondition('COMMAND-1S9gx', 'User grant is not active') : failedPrecondition('COMMAND-1ML0v', 'User grant is not inactive');
      }
      const type = state === 'USER_GRANT_STATE_INACTIVE' ? 'user.grant.deactivated' : 'user.grant.reactivated';
      const event = await appendGrantEvent(tx, ctx, grant, type, {});
      await tx.userGrants.update(grant.id, { state, sequence: event.sequence, changedAt: event.createdAt });
      return { details: changedDetails(event) };
    },
    [
      [USER_AGGREGATE, userId],
      [USER_GRANT_AGGREGATE, grantId],
    ],
  );
}

/** The removal's event; the store adds the grant, its organisation and its user and project. */
const grantRemoval = (ctx: RequestContext): GrantRemoval => ({ aggregateType: USER_GRANT_AGGREGATE, type: 'user.grant.removed', creator: ctx.caller.userId });

/**
 * RemoveUserGrant (reference §2.3): the row goes, so the same grant can be added again. The grant
 * is removed first and checked after (PostgreSQL does the read, the delete and the event in one
 * statement): a grant of another user answers 404 as grantForCaller does, and a refused project
 * throws, which rolls the removal back.
 */
export async function removeUserGrant(store: Store, ctx: RequestContext, userId: string, grantId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.grant.delete');
  return store.transaction(
    async (tx) => {
      const removed = await tx.userGrants.takeInOrgWithEvent(grantId, ctx.orgId, userId, grantRemoval(ctx));
      if (!removed) throw grantNotFound();
      checkProjectScope(ctx, 'user.grant.delete', removed.projectId, removed.projectGrantId);
      return { details: changedDetails(removed.event) };
    },
    [
      [USER_AGGREGATE, userId],
      [USER_GRANT_AGGREGATE, grantId],
    ],
  );
}

/** BulkRemoveUserGrant: every grant must exist in the context organisation, else nothing is removed. */
export async function bulkRemoveUserGrants(store: Store, ctx: RequestContext, grantIds: string[]): Promise<Record<string, never>> {
  requirePermission(ctx, 'user.grant.delete');
  const ids = [...new Set(grantIds)];
  if (ids.length === 0) throw invalidArgument('COMMAND-5M0sd', 'User grant ids are missing');
  // The grants' users are locked as well (a user's removal removes its grants): read them first
  // to know which, then read the grants again under the locks.
  const users = (await store.read.userGrants.manyInOrg(ids, ctx.orgId)).map((g) => [USER_AGGREGATE, g.userId] as const);
  return store.transaction(
    async (tx) => {
      const grants = await tx.userGrants.manyInOrg(ids, ctx.orgId);
      if (grants.length !== ids.length) throw grantNotFound();
      for (const grant of grants) checkProjectScope(ctx, 'user.grant.delete', grant.projectId, grant.projectGrantId);
      for (const grant of grants) await tx.userGrants.takeInOrgWithEvent(grant.id, ctx.orgId, grant.userId, grantRemoval(ctx));
      return {};
    },
    [...users, ...ids.map((id) => [USER_GRANT_AGGREGATE, id] as const)],
  );
}
