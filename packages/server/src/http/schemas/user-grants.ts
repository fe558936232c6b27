import { z } from '@hono/zod-openapi';
import { USER_GRANT_STATES } from '../../domain/user-grants/commands.js';
import { Details, ListDetails, ListQuery } from './common.js';

const id = z.string().min(1).max(200);
const roleKeys = z.array(z.string().min(1).max(200)).max(1000);

export const UserIdParam = z.object({ userId: id });
export const UserGrantParam = z.object({ userId: id, grantId: id });

export const AddUserGrantRequest = z
  .object({ projectId: id, projectGrantId: z.string().max(200).optional(), roleKeys: roleKeys.optional() })
  .openapi('AddUserGrantRequest');

export const AddUserGrantResponse = z.object({ userGrantId: z.string(), details: Details });

export const UpdateUserGrantRequest = z.object({ roleKeys: roleKeys.optional() });

export const UserGrant = z
  .object({
    id: z.string(),
    details: Details,
    roleKeys: z.array(z.string()),
    state: z.enum(USER_GRANT_STATES),
    userId: z.string(),
    userName: z.string().optional(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    email: z.string().optional(),
    displayName: z.string().optional(),
    preferredLoginName: z.string().optional(),
    userType: z.enum(['TYPE_HUMAN', 'TYPE_MACHINE']).optional(),
    orgId: z.string(),
    orgName: z.string().optional(),
    orgDomain: z.string().optional(),
    projectId: z.string(),
    projectGrantId: z.string().optional(),
    projectName: z.string().optional(),
    grantedOrgId: z.string().optional(),
    grantedOrgName: z.string().optional(),
    grantedOrgDomain: z.string().optional(),
  })
  .openapi('UserGrant');

export const UserGrantResponse = z.object({ userGrant: UserGrant });

export const ListUserGrantsRequest = z.object({
  query: ListQuery.optional(),
  queries: z
    .array(
      z.object({
        userIdQuery: z.object({ userId: id }).optional(),
        projectIdQuery: z.object({ projectId: id }).optional(),
      }),
    )
    .optional(),
});

export const ListUserGrantsResponse = z.object({ details: ListDetails, result: z.array(UserGrant) });

export const BulkRemoveUserGrantRequest = z.object({ grantId: z.array(id).max(1000) });

export const EmptyResponse = z.object({});
