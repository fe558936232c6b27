import { z } from '@hono/zod-openapi';
import { Details, ListDetails, ListQuery } from './common.js';

const Roles = z.array(z.string().max(200)).min(1).max(50);

export const AddMemberRequest = z.object({ userId: z.string().min(1).max(200), roles: Roles }).openapi('AddMemberRequest');

export const UpdateMemberRequest = z.object({ roles: Roles }).openapi('UpdateMemberRequest');

export const ListMembersRequest = z
  .object({
    query: ListQuery.optional(),
    queries: z
      .array(z.object({ userIdQuery: z.object({ userId: z.string().max(200) }).optional() }))
      .max(20)
      .optional(),
  })
  .openapi('ListMembersRequest');

export const Member = z
  .object({
    userId: z.string(),
    details: Details,
    roles: z.array(z.string()),
    preferredLoginName: z.string(),
    email: z.string().optional(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    displayName: z.string(),
    userType: z.enum(['TYPE_HUMAN', 'TYPE_MACHINE']),
  })
  .openapi('Member');

export const ListMembersResponse = z.object({ details: ListDetails, result: z.array(Member) }).openapi('ListMembersResponse');
