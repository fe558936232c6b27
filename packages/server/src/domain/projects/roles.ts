/**
 * Project roles: the role keys user grants hand out. Roles are events on the project aggregate;
 * removing a role also takes it out of every user grant on the project (ZITADEL cascades the
 * same way), in the same transaction.
 */

import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, invalidArgument, notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';
import { cascadeRoleRemoval } from '../user-grants/cascade.js';
import { cascadeRoleRemovalToProjectGrants } from './grants.js';

/** Commands on one project's roles run one after the other (Store.transaction's locks). */
const PROJECT_LOCK = 'project';

import type { ProjectRoleRow } from '../../store/repositories/projects.js';
import { appendProjectEvent, appendProjectEvents, projectForCaller } from './access.js';

export interface RoleInput {
  key: string;
  displayName: string;
  group?: string;
}

export interface RoleView {
  key: string;
  details: ObjectDetails;
  displayName: string;
  group?: string;
}

export async function addProjectRole(store: Store, ctx: RequestContext, projectId: string, role: RoleInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.role.write');
  return store.transaction((tx) => addRoles(tx, ctx, projectId, [role]), [[PROJECT_LOCK, projectId]]);
}

/** All roles or none: one duplicate (stored, or twice in the request) refuses the whole call. */
export async function bulkAddProjectRoles(store: Store, ctx: RequestContext, projectId: string, roles: RoleInput[]): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.role.write');
  if (roles.length === 0) throw invalidArgument('PROJECT-8m9vS', 'At least one role is required');
  return store.transaction((tx) => addRoles(tx, ctx, projectId, roles), [[PROJECT_LOCK, projectId]]);
}

async function addRoles(tx: Repositories, ctx: RequestContext, projectId: string, roles: RoleInput[]): Promise<{ details: ObjectDetails }> {
  const project = await projectForCaller(tx, ctx, projectId, 'project.role.write');
  const keys = roles.map((r) => r.key.trim());
  const taken = await tx.projects.roles.existingKeys(project.id, keys);
  if (taken.length > 0 || new Set(keys).size !== keys.length) throw alreadyExists('V3-DKcYh', 'Role already exists');
  const added = roles.map((role, i) => ({ roleKey: keys[i]!, displayName: role.displayName.trim(), group: role.group?.trim() ?? '' }));
  const events = await appendProjectEvents(
    tx,
    ctx,
    project,
    added.map(({ roleKey, displayName, group }) => ['project.role.added', { key: roleKey, displayName, group }]),
  );
  const rows: ProjectRoleRow[] = added.map((role, i) => ({
    projectId: project.id,
    orgId: project.orgId,
    ...role,
    sequence: events[i]!.sequence,
    createdAt: events[i]!.createdAt,
    changedAt: events[i]!.createdAt,
  }));
  await tx.projects.roles.insert(rows);
  return { details: changedDetails(events.at(-1)!) };
}

export interface RoleSearch {
  query?: ListQueryInput;
  queries?: { keyQuery?: { key: string; method?: TextQueryMethod }; displayNameQuery?: { displayName: string; method?: TextQueryMethod } }[];
}

export async function searchProjectRoles(store: Store, ctx: RequestContext, projectId: string, input: RoleSearch): Promise<{ details: ListDetails; result: RoleView[] }> {
  requirePermission(ctx, 'project.role.read');
  const project = await projectForCaller(store.read, ctx, projectId, 'project.role.read');
  const keyQuery = input.queries?.find((q) => q.keyQuery)?.keyQuery;
  const displayNameQuery = input.queries?.find((q) => q.displayNameQuery)?.displayNameQuery;
  const { total, rows } = await store.read.projects.roles.search({
    projectId: project.id,
    key: keyQuery ? textMatch(keyQuery.key, keyQuery.method) : undefined,
    displayName: displayNameQuery ? textMatch(displayNameQuery.displayName, displayNameQuery.method) : undefined,
    ...toPage(input.query),
  });
  return {
    details: listDetails(total),
    result: rows.map((row) => ({
      key: row.roleKey,
      details: viewDetails(row, row.orgId),
      displayName: row.displayName,
      ...(row.group ? { group: row.group } : {}),
    })),
  };
}

export async function removeProjectRole(store: Store, ctx: RequestContext, projectId: string, roleKey: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.role.delete');
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.role.delete');
      if (!(await tx.projects.roles.get(project.id, roleKey))) throw notFound('COMMAND-DM2xs', 'Role not found');
      const event = await appendProjectEvent(tx, ctx, project, 'project.role.removed', { key: roleKey });
      await tx.projects.roles.remove(project.id, roleKey);
      await cascadeRoleRemovalToProjectGrants(tx, ctx, project.id, project.orgId, roleKey);
      await cascadeRoleRemoval(tx, ctx, project.id, roleKey);
      return { details: changedDetails(event) };
    },
    [[PROJECT_LOCK, projectId]],
  );
}
