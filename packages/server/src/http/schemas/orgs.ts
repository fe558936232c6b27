import { z } from '@hono/zod-openapi';
import { ORG_STATES } from '../../domain/orgs/queries.js';
import { Details, ListDetails, ListQuery, TextQueryMethod } from './common.js';

export const Org = z
  .object({
    id: z.string(),
    details: Details,
    state: z.enum(ORG_STATES),
    name: z.string(),
    primaryDomain: z.string(),
  })
  .openapi('Org');

export const OrgResponse = z.object({ org: Org });

export const AddOrgRequest = z.object({ name: z.string().min(1).max(200) }).openapi('AddOrgRequest');

export const AddOrgResponse = z.object({ id: z.string(), details: Details }).openapi('AddOrgResponse');

export const ListOrgsRequest = z
  .object({
    query: ListQuery.optional(),
    queries: z
      .array(z.object({ nameQuery: z.object({ name: z.string().max(200), method: TextQueryMethod.optional() }).optional() }))
      .max(20)
      .optional(),
  })
  .openapi('ListOrgsRequest');

export const ListOrgsResponse = z.object({ details: ListDetails, result: z.array(Org) }).openapi('ListOrgsResponse');

export const OrgIdParam = z.object({ orgId: z.string() });
