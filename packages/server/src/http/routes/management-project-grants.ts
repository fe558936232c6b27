/**
 * Project grants (management API): openapi/paths/management/project-grants.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listAllProjectGrants } from '../../domain/projects/all-grants.js';
import { addProjectGrantMember, listProjectGrantMembers, removeProjectGrantMember, updateProjectGrantMember } from '../../domain/projects/grant-members.js';
import {
  addProjectGrant,
  deactivateProjectGrant,
  getProjectGrant,
  listGrantedProjects,
  listProjectGrants,
  reactivateProjectGrant,
  removeProjectGrant,
  updateProjectGrant,
} from '../../domain/projects/grants.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementProjectGrantRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddProjectGrant', async (c) => c.json(await addProjectGrant(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('ListAllProjectGrants', async (c) => c.json(await listAllProjectGrants(store, c.get('ctx'), c.req.valid('json')), 200));

  route('ListProjectGrants', async (c) => c.json(await listProjectGrants(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200));

  route('GetProjectGrantByID', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await getProjectGrant(store, c.get('ctx'), projectId, grantId), 200);
  });

  route('UpdateProjectGrant', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await updateProjectGrant(store, c.get('ctx'), projectId, grantId, c.req.valid('json')), 200);
  });

  route('RemoveProjectGrant', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await removeProjectGrant(store, c.get('ctx'), projectId, grantId), 200);
  });

  route('DeactivateProjectGrant', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await deactivateProjectGrant(store, c.get('ctx'), projectId, grantId), 200);
  });

  route('ReactivateProjectGrant', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await reactivateProjectGrant(store, c.get('ctx'), projectId, grantId), 200);
  });

  // Members of a project grant (users of the granted organisation, PROJECT_GRANT_* roles).
  route('AddProjectGrantMember', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await addProjectGrantMember(store, c.get('ctx'), projectId, grantId, c.req.valid('json')), 200);
  });

  route('ListProjectGrantMembers', async (c) => {
    const { projectId, grantId } = c.req.valid('param');
    return c.json(await listProjectGrantMembers(store, c.get('ctx'), projectId, grantId, c.req.valid('json')), 200);
  });

  route('UpdateProjectGrantMember', async (c) => {
    const { projectId, grantId, userId } = c.req.valid('param');
    return c.json(await updateProjectGrantMember(store, c.get('ctx'), projectId, grantId, userId, c.req.valid('json')), 200);
  });

  route('RemoveProjectGrantMember', async (c) => {
    const { projectId, grantId, userId } = c.req.valid('param');
    return c.json(await removeProjectGrantMember(store, c.get('ctx'), projectId, grantId, userId), 200);
  });

  route('ListGrantedProjects', async (c) => c.json(await listGrantedProjects(store, c.get('ctx'), c.req.valid('json')), 200));
}
