import { z } from '@hono/zod-openapi';
import { PROJECT_GRANT_STATES } from '../../domain/projects/grants.js';
import { PROJECT_GRANT_ROLES } from '../../domain/permissions.js';
import { Details, ListDetails, ListQuery } from './common.js';

const id = z.string().min(1).max(200);
const roleKeys = z.array(z.string().min(1).max(200)).max(1000);

export const ProjectGrantParam = z.object({ projectId: id, grantId: id });
export const ProjectGrantMemberParam = z.object({ projectId: id, grantId: id, userId: id });

export const AddProjectGrantRequest = z
  .object({ grantedOrgId: z.string().min(1).max(200), roleKeys: roleKeys.optional() })
  .openapi('AddProjectGrantRequest');

export const AddProjectGrantResponse = z.object({ grantId: z.string(), details: Details });

export const UpdateProjectGrantRequest = z.object({ roleKeys: roleKeys.optional() }).openapi('UpdateProjectGrantRequest');

export const ProjectGrant = z
  .object({
    grantId: z.string(),
    details: Details,
    grantedOrgId: z.string(),
    grantedOrgName: z.string().optional(),
    grantedRoleKeys: z.array(z.string()),
    state: z.enum(PROJECT_GRANT_STATES),
    projectId: z.string(),
    projectName: z.string().optional(),
    projectOwnerId: z.string(),
    projectOwnerName: z.string().optional(),
  })
  .openapi('ProjectGrant');

export const ProjectGrantResponse = z.object({ projectGrant: ProjectGrant });

export const ListProjectGrantsRequest = z.object({ query: ListQuery.optional() });

export const ListProjectGrantsResponse = z.object({ details: ListDetails, result: z.array(ProjectGrant) });

export const AddProjectGrantMemberRequest = z.object({ userId: id, roles: z.array(z.enum(PROJECT_GRANT_ROLES)).min(1) });
export const UpdateProjectGrantMemberRequest = z.object({ roles: z.array(z.enum(PROJECT_GRANT_ROLES)).min(1) });
