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

export const OrgDomainParam = z.object({ domain: z.string().min(1).max(253) });
export const AddOrgDomainRequest = z.object({ domain: z.string().min(1).max(253) }).openapi('AddOrgDomainRequest');
export const ListOrgDomainsRequest = z.object({ query: ListQuery.optional() }).openapi('ListOrgDomainsRequest');
export const OrgDomain = z
  .object({ orgId: z.string(), domainName: z.string(), isVerified: z.boolean(), isPrimary: z.boolean(), validationType: z.string(), details: Details })
  .openapi('OrgDomain');
export const ListOrgDomainsResponse = z.object({ details: ListDetails, result: z.array(OrgDomain) }).openapi('ListOrgDomainsResponse');
export const GenerateOrgDomainValidationRequest = z
  .object({ type: z.enum(['DOMAIN_VALIDATION_TYPE_HTTP', 'DOMAIN_VALIDATION_TYPE_DNS']) })
  .openapi('GenerateOrgDomainValidationRequest');
export const GenerateOrgDomainValidationResponse = z.object({ token: z.string(), url: z.string() }).openapi('GenerateOrgDomainValidationResponse');
export const EmptyRequest = z.object({});
