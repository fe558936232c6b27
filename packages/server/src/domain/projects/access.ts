/**
 * How project operations find their project and check the caller's hold on it: a project
 * exists only in the organisation that owns it (another organisation's project answers 404),
 * and a permission that comes from a project role counts only for that project.
 */

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
