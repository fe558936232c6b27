/**
 * Projects, their roles and members (management API): openapi/paths/management/projects.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addProjectMember, removeProjectMember, searchProjectMembers } from '../../domain/projects/members.js';
import { addProject, getProject, searchProjects, updateProject } from '../../domain/projects/projects.js';
import { addProjectRole, bulkAddProjectRoles, removeProjectRole, searchProjectRoles } from '../../domain/projects/roles.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import {
  AddProjectMemberRequest,
  AddProjectRequest,
  AddProjectResponse,
  AddProjectRoleRequest,
  BulkAddProjectRolesRequest,
  ListProjectMembersRequest,
  ListProjectMembersResponse,
  ListProjectRolesRequest,
  ListProjectRolesResponse,
  ListProjectsRequest,
  ListProjectsResponse,
  ProjectIdParam,
  ProjectMemberParam,
  ProjectResponse,
  ProjectRoleParam,
} from '../schemas/projects.js';

const TAG = ['Projects'];

export function registerManagementProjectRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects',
      operationId: 'AddProject',
      request: { headers: OrgHeader, body: jsonBody(AddProjectRequest) },
      responses: { 200: jsonResponse('Created; the caller is its PROJECT_OWNER.', AddProjectResponse), ...errorResponses(400, 401, 403, 409) },
    }),
    async (c) => c.json(await addProject(store, c.get('ctx'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'put',
      path: '/management/v1/projects/{projectId}',
      operationId: 'UpdateProject',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(AddProjectRequest) },
      responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await updateProject(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'get',
      path: '/management/v1/projects/{projectId}',
      operationId: 'GetProjectByID',
      request: { headers: OrgHeader, params: ProjectIdParam },
      responses: { 200: jsonResponse('The project.', ProjectResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json({ project: await getProject(store, c.get('ctx'), c.req.valid('param').projectId) }, 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/_search',
      operationId: 'ListProjects',
      request: { headers: OrgHeader, body: jsonBody(ListProjectsRequest) },
      responses: { 200: jsonResponse('The matching projects of the organisation.', ListProjectsResponse), ...errorResponses(400, 401, 403) },
    }),
    async (c) => c.json(await searchProjects(store, c.get('ctx'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/roles',
      operationId: 'AddProjectRole',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(AddProjectRoleRequest) },
      responses: { 200: jsonResponse('Added.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { roleKey, displayName, group } = c.req.valid('json');
      return c.json(await addProjectRole(store, c.get('ctx'), c.req.valid('param').projectId, { key: roleKey, displayName, group }), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/roles/_bulk',
      operationId: 'BulkAddProjectRoles',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(BulkAddProjectRolesRequest) },
      responses: { 200: jsonResponse('All roles added.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await bulkAddProjectRoles(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json').roles), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/roles/_search',
      operationId: 'ListProjectRoles',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(ListProjectRolesRequest) },
      responses: { 200: jsonResponse('The matching roles, by key.', ListProjectRolesResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await searchProjectRoles(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'delete',
      path: '/management/v1/projects/{projectId}/roles/{roleKey}',
      operationId: 'RemoveProjectRole',
      request: { headers: OrgHeader, params: ProjectRoleParam },
      responses: { 200: jsonResponse('Removed, also from every user grant.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, roleKey } = c.req.valid('param');
      return c.json(await removeProjectRole(store, c.get('ctx'), projectId, roleKey), 200);
    },
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/members',
      operationId: 'AddProjectMember',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(AddProjectMemberRequest) },
      responses: { 200: jsonResponse('Added.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await addProjectMember(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'post',
      path: '/management/v1/projects/{projectId}/members/_search',
      operationId: 'ListProjectMembers',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(ListProjectMembersRequest) },
      responses: { 200: jsonResponse('The project\'s members.', ListProjectMembersResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await searchProjectMembers(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      method: 'delete',
      path: '/management/v1/projects/{projectId}/members/{userId}',
      operationId: 'RemoveProjectMember',
      request: { headers: OrgHeader, params: ProjectMemberParam },
      responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, userId } = c.req.valid('param');
      return c.json(await removeProjectMember(store, c.get('ctx'), projectId, userId), 200);
    },
  );
}
