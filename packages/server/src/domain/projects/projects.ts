/**
 * Projects (management API): create, read, search. The creator becomes the project's
 * PROJECT_OWNER, as ZITADEL's AddProject does, so a caller allowed only to create projects
 * (ORG_PROJECT_CREATOR) can then manage what it created.
 */

import type { ProjectRow } from '../../store/repositories/projects.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, failedPrecondition } from '../errors.js';
import { newId } from '../ids.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';
import { PROJECT_AGGREGATE, projectForCaller } from './access.js';

export const PROJECT_STATES = ['PROJECT_STATE_UNSPECIFIED', 'PROJECT_STATE_ACTIVE', 'PROJECT_STATE_INACTIVE'] as const;
export const PRIVATE_LABELING_SETTINGS = [
  'PRIVATE_LABELING_SETTING_UNSPECIFIED',
  'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY',
  'PRIVATE_LABELING_SETTING_ALLOW_LOGIN_USER_RESOURCE_OWNER_POLICY',
] as const;
export type PrivateLabelingSetting = (typeof PRIVATE_LABELING_SETTINGS)[number];

export interface AddProjectInput {
  name: string;
  projectRoleAssertion?: boolean;
  projectRoleCheck?: boolean;
  hasProjectCheck?: boolean;
  privateLabelingSetting?: PrivateLabelingSetting;
}

export interface ProjectView {
  id: string;
  details: ObjectDetails;
  name: string;
  state: (typeof PROJECT_STATES)[number];
  projectRoleAssertion: boolean;
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
  privateLabelingSetting: PrivateLabelingSetting;
}

export async function addProject(store: Store, ctx: RequestContext, input: AddProjectInput): Promise<{ id: string; details: ObjectDetails }> {
  requirePermission(ctx, 'project.create');
  const name = input.name.trim();
  const settings = {
    projectRoleAssertion: input.projectRoleAssertion ?? false,
    projectRoleCheck: input.projectRoleCheck ?? false,
    hasProjectCheck: input.hasProjectCheck ?? false,
    privateLabelingSetting: input.privateLabelingSetting ?? 'PRIVATE_LABELING_SETTING_UNSPECIFIED',
  };
  const id = newId();
  return store.transaction(async (tx) => {
    if (await tx.projects.getByName(ctx.orgId, name)) throw alreadyExists('V3-DKcYh', 'Project already exists');
    const emit = (type: string, payload: Record<string, unknown>) =>
      tx.events.append({ aggregateType: PROJECT_AGGREGATE, aggregateId: id, type, payload, creator: ctx.caller.userId, resourceOwner: ctx.orgId });
    const added = await emit('project.added', { name, ...settings });
    const owner = await emit('project.member.added', { userId: ctx.caller.userId, roles: ['PROJECT_OWNER'] });
    await tx.projects.insert({ id, orgId: ctx.orgId, name, state: 'PROJECT_STATE_ACTIVE', ...settings, sequence: owner.sequence, createdAt: added.createdAt, changedAt: owner.createdAt });
    await tx.members.insert({
      scopeType: 'project',
      scopeId: id,
      userId: ctx.caller.userId,
      resourceOwner: ctx.orgId,
      roles: ['PROJECT_OWNER'],
      sequence: owner.sequence,
      createdAt: owner.createdAt,
      changedAt: owner.createdAt,
    });
    return { id, details: addedDetails(owner) };
  });
}

export async function getProject(store: Store, ctx: RequestContext, projectId: string): Promise<ProjectView> {
  requirePermission(ctx, 'project.read');
  return toProjectView(await projectForCaller(store.read, ctx, projectId, 'project.read'));
}

export interface ProjectSearch {
  query?: ListQueryInput;
  queries?: { nameQuery?: { name: string; method?: TextQueryMethod } }[];
}

/** The context organisation's projects; a caller with project roles only sees those projects. */
export async function searchProjects(store: Store, ctx: RequestContext, input: ProjectSearch): Promise<{ details: ListDetails; result: ProjectView[] }> {
  requirePermission(ctx, 'project.read');
  const page = toPage(input.query);
  const nameQuery = input.queries?.find((q) => q.nameQuery)?.nameQuery;
  const { total, rows } = await store.read.projects.search({
    orgId: ctx.orgId,
    ids: ctx.permissions.projectsWith('project.read'),
    name: nameQuery ? textMatch(nameQuery.name, nameQuery.method) : undefined,
    ...page,
  });
  return { details: listDetails(total), result: rows.map(toProjectView) };
}

/**
 * UpdateProject (ZITADEL's): the name and the settings, all of them (a flag left out is off, the
 * labeling setting unspecified). Nothing changed → 400 `COMMAND-1m9fS`; a name another project of
 * the organisation has → 409. Permission `project.write`.
 */
export async function updateProject(store: Store, ctx: RequestContext, projectId: string, input: AddProjectInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.write');
  const next = {
    name: input.name.trim(),
    projectRoleAssertion: input.projectRoleAssertion ?? false,
    projectRoleCheck: input.projectRoleCheck ?? false,
    hasProjectCheck: input.hasProjectCheck ?? false,
    privateLabelingSetting: input.privateLabelingSetting ?? 'PRIVATE_LABELING_SETTING_UNSPECIFIED',
  };
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.write');
      const changed = Object.fromEntries(Object.entries(next).filter(([key, value]) => project[key as keyof typeof next] !== value));
      if (Object.keys(changed).length === 0) throw failedPrecondition('COMMAND-1m9fS', 'Project has not been changed');
      if (changed.name !== undefined) {
        const other = await tx.projects.getByName(project.orgId, next.name);
        if (other && other.id !== project.id) throw alreadyExists('V3-DKcYh', 'Project already exists');
      }
      const event = await tx.events.append({
        aggregateType: PROJECT_AGGREGATE,
        aggregateId: project.id,
        type: 'project.changed',
        payload: changed,
        creator: ctx.caller.userId,
        resourceOwner: project.orgId,
      });
      await tx.projects.update(project.id, { ...next, sequence: event.sequence, changedAt: event.createdAt });
      return { details: changedDetails(event) };
    },
    [['project', projectId]],
  );
}

export function toProjectView(row: ProjectRow): ProjectView {
  return {
    id: row.id,
    details: viewDetails(row, row.orgId),
    name: row.name,
    state: row.state as ProjectView['state'],
    projectRoleAssertion: row.projectRoleAssertion,
    projectRoleCheck: row.projectRoleCheck,
    hasProjectCheck: row.hasProjectCheck,
    privateLabelingSetting: row.privateLabelingSetting as PrivateLabelingSetting,
  };
}
