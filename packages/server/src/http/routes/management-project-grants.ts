/**
 * Project grants (management API): openapi/paths/management/project-grants.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
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
import { addProjectGrantMember, listProjectGrantMembers, removeProjectGrantMember, updateProjectGrantMember } from '../../domain/projects/grant-members.js';
import { ListProjectMembersRequest, ListProjectMembersResponse } from '../schemas/projects.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { ProjectIdParam } from '../schemas/projects.js';
import {
  AddProjectGrantMemberRequest,
  AddProjectGrantRequest,
  ProjectGrantMemberParam,
  UpdateProjectGrantMemberRequest,
  AddProjectGrantResponse,
  ListProjectGrantsRequest,
  ListProjectGrantsResponse,
  ProjectGrantParam,
  ProjectGrantResponse,
  UpdateProjectGrantRequest,
} from '../schemas/project-grants.js';

const TAG = ['Project grants'];
const GRANT_PATH = '/management/v1/projects/{projectId}/grants/{grantId}';

export function registerManagementProjectGrantRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const route = <R extends Parameters<typeof createRoute>[0]>(r: R) => createRoute({ tags: TAG, security: SECURED, middleware: [auth] as const, ...r });

  app.openapi(
    route({
      method: 'post',
      path: '/management/v1/projects/{projectId}/grants',
      operationId: 'AddProjectGrant',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(AddProjectGrantRequest) },
      responses: { 200: jsonResponse('Granted.', AddProjectGrantResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await addProjectGrant(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    route({
      method: 'post',
      path: '/management/v1/projects/{projectId}/grants/_search',
      operationId: 'ListProjectGrants',
      request: { headers: OrgHeader, params: ProjectIdParam, body: jsonBody(ListProjectGrantsRequest) },
      responses: { 200: jsonResponse('The project\'s grants.', ListProjectGrantsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await listProjectGrants(store, c.get('ctx'), c.req.valid('param').projectId, c.req.valid('json')), 200),
  );

  app.openapi(
    route({
      method: 'get',
      path: GRANT_PATH,
      operationId: 'GetProjectGrantByID',
      request: { headers: OrgHeader, params: ProjectGrantParam },
      responses: { 200: jsonResponse('The grant.', ProjectGrantResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, grantId } = c.req.valid('param');
      return c.json(await getProjectGrant(store, c.get('ctx'), projectId, grantId), 200);
    },
  );

  app.openapi(
    route({
      method: 'put',
      path: GRANT_PATH,
      operationId: 'UpdateProjectGrant',
      request: { headers: OrgHeader, params: ProjectGrantParam, body: jsonBody(UpdateProjectGrantRequest) },
      responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, grantId } = c.req.valid('param');
      return c.json(await updateProjectGrant(store, c.get('ctx'), projectId, grantId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: GRANT_PATH,
      operationId: 'RemoveProjectGrant',
      request: { headers: OrgHeader, params: ProjectGrantParam },
      responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, grantId } = c.req.valid('param');
      return c.json(await removeProjectGrant(store, c.get('ctx'), projectId, grantId), 200);
    },
  );

  for (const [action, operationId, run] of [
    ['_deactivate', 'DeactivateProjectGrant', deactivateProjectGrant],
    ['_reactivate', 'ReactivateProjectGrant', reactivateProjectGrant],
  ] as const) {
    app.openapi(
      route({
        method: 'post',
        path: `${GRANT_PATH}/${action}`,
        operationId,
        request: { headers: OrgHeader, params: ProjectGrantParam },
        responses: { 200: jsonResponse('Done.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
      }),
      async (c) => {
        const { projectId, grantId } = c.req.valid('param');
        return c.json(await run(store, c.get('ctx'), projectId, grantId), 200);
      },
    );
  }

  // Members of a project grant (users of the granted organisation, PROJECT_GRANT_* roles).
  app.openapi(
    route({
      method: 'post',
      path: `${GRANT_PATH}/members`,
      operationId: 'AddProjectGrantMember',
      request: { headers: OrgHeader, params: ProjectGrantParam, body: jsonBody(AddProjectGrantMemberRequest) },
      responses: { 200: jsonResponse('Added.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { projectId, grantId } = c.req.valid('param');
      return c.json(await addProjectGrantMember(store, c.get('ctx'), projectId, grantId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${GRANT_PATH}/members/_search`,
      operationId: 'ListProjectGrantMembers',
      request: { headers: OrgHeader, params: ProjectGrantParam, body: jsonBody(ListProjectMembersRequest) },
      responses: { 200: jsonResponse('The grant\'s members.', ListProjectMembersResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, grantId } = c.req.valid('param');
      return c.json(await listProjectGrantMembers(store, c.get('ctx'), projectId, grantId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    route({
      method: 'put',
      path: `${GRANT_PATH}/members/{userId}`,
      operationId: 'UpdateProjectGrantMember',
      request: { headers: OrgHeader, params: ProjectGrantMemberParam, body: jsonBody(UpdateProjectGrantMemberRequest) },
      responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, grantId, userId } = c.req.valid('param');
      return c.json(await updateProjectGrantMember(store, c.get('ctx'), projectId, grantId, userId, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: `${GRANT_PATH}/members/{userId}`,
      operationId: 'RemoveProjectGrantMember',
      request: { headers: OrgHeader, params: ProjectGrantMemberParam },
      responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { projectId, grantId, userId } = c.req.valid('param');
      return c.json(await removeProjectGrantMember(store, c.get('ctx'), projectId, grantId, userId), 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/management/v1/granted_projects/_search',
      operationId: 'ListGrantedProjects',
      request: { headers: OrgHeader, body: jsonBody(ListProjectGrantsRequest) },
      responses: { 200: jsonResponse('The grants to the organisation.', ListProjectGrantsResponse), ...errorResponses(400, 401, 403) },
    }),
    async (c) => c.json(await listGrantedProjects(store, c.get('ctx'), c.req.valid('json')), 200),
  );
}
