/**
 * The organisation's domains: openapi/paths/management/org-domains.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  addOrgDomain,
  generateOrgDomainValidation,
  listOrgDomains,
  removeOrgDomain,
  setPrimaryOrgDomain,
  validateOrgDomain,
  type DomainCheckOptions,
} from '../../domain/orgs/domains.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import {
  AddOrgDomainRequest,
  EmptyRequest,
  GenerateOrgDomainValidationRequest,
  GenerateOrgDomainValidationResponse,
  ListOrgDomainsRequest,
  ListOrgDomainsResponse,
  OrgDomainParam,
} from '../schemas/orgs.js';

const BASE = '/management/v1/orgs/me/domains';

export function registerManagementOrgDomainRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps, checks: DomainCheckOptions = {}) {
  const route = <M extends 'post' | 'delete'>(method: M, path: string, operationId: string) =>
    ({ method, path, operationId, tags: ['Organizations'], security: SECURED, middleware: [auth] as [typeof auth] });
  const optionalBody = { required: false, content: { 'application/json': { schema: EmptyRequest } } };

  app.openapi(
    createRoute({ ...route('post', BASE, 'AddOrgDomain'), request: { headers: OrgHeader, body: jsonBody(AddOrgDomainRequest) }, responses: { 200: jsonResponse('Added (unverified).', DetailsResponse), ...errorResponses(400, 401, 403, 409) } }),
    async (c) => c.json(await addOrgDomain(store, c.get('ctx'), c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', `${BASE}/_search`, 'ListOrgDomains'), request: { headers: OrgHeader, body: jsonBody(ListOrgDomainsRequest) }, responses: { 200: jsonResponse("The organisation's domains.", ListOrgDomainsResponse), ...errorResponses(400, 401, 403) } }),
    async (c) => c.json(await listOrgDomains(store, c.get('ctx'), c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('delete', `${BASE}/{domain}`, 'RemoveOrgDomain'), request: { headers: OrgHeader, params: OrgDomainParam }, responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await removeOrgDomain(store, c.get('ctx'), c.req.valid('param').domain), 200),
  );
  app.openapi(
    createRoute({
      ...route('post', `${BASE}/{domain}/validation/_generate`, 'GenerateOrgDomainValidation'),
      request: { headers: OrgHeader, params: OrgDomainParam, body: jsonBody(GenerateOrgDomainValidationRequest) },
      responses: { 200: jsonResponse('The token and where to put it.', GenerateOrgDomainValidationResponse), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await generateOrgDomainValidation(store, c.get('ctx'), c.req.valid('param').domain, c.req.valid('json'), checks), 200),
  );
  app.openapi(
    createRoute({
      ...route('post', `${BASE}/{domain}/validation/_validate`, 'ValidateOrgDomain'),
      request: { headers: OrgHeader, params: OrgDomainParam, body: optionalBody },
      responses: { 200: jsonResponse('Verified.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await validateOrgDomain(store, c.get('ctx'), c.req.valid('param').domain, checks), 200),
  );
  app.openapi(
    createRoute({
      ...route('post', `${BASE}/{domain}/_set_primary`, 'SetPrimaryOrgDomain'),
      request: { headers: OrgHeader, params: OrgDomainParam, body: optionalBody },
      responses: { 200: jsonResponse('Primary; login names follow it.', DetailsResponse), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await setPrimaryOrgDomain(store, c.get('ctx'), c.req.valid('param').domain), 200),
  );
}
