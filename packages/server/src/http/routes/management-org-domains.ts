/**
 * The organisation's domains: openapi/paths/management/org-domains.yaml.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addOrgDomain, type DomainCheckOptions, generateOrgDomainValidation, listOrgDomains, removeOrgDomain, setPrimaryOrgDomain, validateOrgDomain } from '../../domain/orgs/domains.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementOrgDomainRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps, checks: DomainCheckOptions = {}) {
  const { store } = deps;
  const route = routesOf(app, deps);

  route('AddOrgDomain', async (c) => c.json(await addOrgDomain(store, c.get('ctx'), c.req.valid('json')), 200));

  route('ListOrgDomains', async (c) => c.json(await listOrgDomains(store, c.get('ctx'), c.req.valid('json')), 200));

  route('RemoveOrgDomain', async (c) => c.json(await removeOrgDomain(store, c.get('ctx'), c.req.valid('param').domain), 200));

  route('GenerateOrgDomainValidation', async (c) => c.json(await generateOrgDomainValidation(store, c.get('ctx'), c.req.valid('param').domain, c.req.valid('json'), checks), 200));

  route('ValidateOrgDomain', async (c) => c.json(await validateOrgDomain(store, c.get('ctx'), c.req.valid('param').domain, checks), 200));

  route('SetPrimaryOrgDomain', async (c) => c.json(await setPrimaryOrgDomain(store, c.get('ctx'), c.req.valid('param').domain), 200));
}
