import { z } from '@hono/zod-openapi';
import { PRIVATE_LABELING_SETTINGS, PROJECT_STATES } from '../../domain/projects/projects.js';
import { PROJECT_ROLES } from '../../domain/permissions.js';
import { Details, ListDetails, ListQuery, TextQueryMethod } from './common.js';

const id = z.string().min(1).max(200);

export const ProjectIdParam = z.object({ projectId: id });
export const ProjectRoleParam = z.object({ projectId: id, roleKey: id });
export const ProjectMemberParam = z.object({ projectId: id, userId: id });

export const PrivateLabelingSetting = z.enum(PRIVATE_LABELING_SETTINGS).openapi('PrivateLabelingSetting');

export const AddProjectRequest = z
  .object({
    name: z.string().trim().min(1).max(200),
    projectRoleAssertion: z.boolean().optional(),
    projectRoleCheck: z.boolean().optional(),
    hasProjectCheck: z.boolean().optional(),
    privateLabelingSetting: PrivateLabelingSetting.optional(),
  })
  .openapi('AddProjectRequest');

export const AddProjectResponse = z.object({ id: z.string(), details: Details });

export const Project = z
  .object({
    id: z.string(),
    details: Details,
    name: z.string(),
    state: z.enum(PROJECT_STATES),
    projectRoleAssertion: z.boolean(),
    projectRoleCheck: z.boolean(),
    hasProjectCheck: z.boolean(),
    privateLabelingSetting: PrivateLabelingSetting,
  })
  .openapi('Project');

export const ProjectResponse = z.object({ project: Project });

export const ListProjectsRequest = z.object({
  query: ListQuery.optional(),
  queries: z.array(z.object({ nameQuery: z.object({ name: z.string().max(200), method: TextQueryMethod.optional() }).optional() })).optional(),
});

export const ListProjectsResponse = z.object({ details: ListDetails, result: z.array(Project) });

export const AddProjectRoleRequest = z
  .object({
    roleKey: z.string().trim().min(1).max(200),
    displayName: z.string().trim().min(1).max(200),
    group: z.string().max(200).optional(),
  })
  .openapi('AddProjectRoleRequest');

export const BulkAddProjectRolesRequest = z.object({
  roles: z
    .array(z.object({ key: z.string().trim().min(1).max(200), displayName: z.string().trim().min(1).max(200), group: z.string().max(200).optional() }))
    .min(1)
    .max(1000),
});

export const ProjectRole = z
  .object({ key: z.string(), details: Details, displayName: z.string(), group: z.string().optional() })
  .openapi('ProjectRole');

export const ListProjectRolesRequest = z.object({
  query: ListQuery.optional(),
  queries: z
    .array(
      z.object({
        keyQuery: z.object({ key: z.string().max(200), method: TextQueryMethod.optional() }).optional(),
        displayNameQuery: z.object({ displayName: z.string().max(200), method: TextQueryMethod.optional() }).optional(),
      }),
    )
    .optional(),
});

export const ListProjectRolesResponse = z.object({ details: ListDetails, result: z.array(ProjectRole) });

export const AddProjectMemberRequest = z.object({
  userId: id,
  roles: z.array(z.enum(PROJECT_ROLES)).min(1),
});

export const ProjectMember = z
  .object({
    userId: z.string(),
    details: Details,
    roles: z.array(z.string()),
    userName: z.string(),
    preferredLoginName: z.string(),
    displayName: z.string().optional(),
    userType: z.enum(['TYPE_HUMAN', 'TYPE_MACHINE']),
  })
  .openapi('ProjectMember');

export const ListProjectMembersRequest = z.object({ query: ListQuery.optional() });
export const ListProjectMembersResponse = z.object({ details: ListDetails, result: z.array(ProjectMember) });
