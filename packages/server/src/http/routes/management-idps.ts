/**
 * JWT identity providers, management side (description §4.3, reference §3):
 * openapi/paths/management/idps.yaml. Deprecated operations: every response carries the
 * deprecation headers, added by route() because the spec marks the operations deprecated.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addJwtIdp, addOidcIdp, deactivateIdp, reactivateIdp, removeIdp, updateIdp, updateIdpJwtConfig, updateIdpOidcConfig } from '../../domain/idps/commands.js';
import { orgScope } from '../../domain/idps/idp.js';
import { getIdp, listIdps } from '../../domain/idps/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerManagementIdpRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets } = deps;
  const route = routesOf(app, deps);

  route('AddOrgJWTIDP', async (c) => c.json(await addJwtIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200));

  route('AddOrgOIDCIDP', async (c) => c.json(await addOidcIdp(store, secrets, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200));

  route('UpdateOrgIDPOIDCConfig', async (c) => c.json(await updateIdpOidcConfig(store, secrets, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200));

  route('ListOrgIDPs', async (c) => c.json(await listIdps(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200));

  route('GetOrgIDPByID', async (c) => c.json({ idp: await getIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId) }, 200));

  route('UpdateOrgIDP', async (c) => c.json(await updateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200));

  route('RemoveOrgIDP', async (c) => c.json(await removeIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200));

  route('UpdateOrgIDPJWTConfig', async (c) => c.json(await updateIdpJwtConfig(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200));

  route('DeactivateOrgIDP', async (c) => c.json(await deactivateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200));

  route('ReactivateOrgIDP', async (c) => c.json(await reactivateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200));
}
