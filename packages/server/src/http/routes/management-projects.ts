/**
 * Projects, their roles and members (management API): openapi/paths/management/projects.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addProjectMember, removeProjectMember, searchProjectMembers } from '../../domain/projects/members.js';
import { addProject, getProject, searchProjects, updateProject } from '../../domain/projects/projects.js';
import { removeProject } from '../../domain/projects/removal.js';
import { addProjectRole, bulkAddProjectRoles, removeProjectRole, searchProjectRoles } from '../../domain/projects/roles.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementProjectRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddProject', async (c) => c.json(await addProject(store, c.get('ctx'), c.req.valid('json')), 200));

  route('UpdateProject', async (c) => c.json(await updateProject(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('RemoveProject', async (c) => c.json(await removeProject(store, c.get('ctx'), c.req.valid('param').projectId), 200));

  route('GetProjectByID', async (c) => c.json({ project: await getProject(store, c.get('ctx'), c.req.valid('param').projectId) }, 200));

  route('ListProjects', async (c) => c.json(await searchProjects(store, c.get('ctx'), c.req.valid('json')), 200));

  route('AddProjectRole', async (c) => {
    const { roleKey, displayName, group } = c.req.valid('json');
    return c.json(await addProjectRole(store, c.get('ctx'), c.req.valid('param').projectId, { key: roleKey, displayName, group }), 200);
  });

  route('BulkAddProjectRoles', async (c) => c.json(await bulkAddProjectRoles(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json').roles), 200));

  route('ListProjectRoles', async (c) => c.json(await searchProjectRoles(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('RemoveProjectRole', async (c) => {
    const { projectId, roleKey } = c.req.valid('param');
    return c.json(await removeProjectRole(store, c.get('ctx'), projectId, roleKey), 200);
  });

  route('AddProjectMember', async (c) => c.json(await addProjectMember(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('ListProjectMembers', async (c) => c.json(await searchProjectMembers(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('RemoveProjectMember', async (c) => {
    const { projectId, userId } = c.req.valid('param');
    return c.json(await removeProjectMember(store, c.get('ctx'), projectId, userId), 200);
  });
}
