/**
 * JWT identity providers, management side (description §4.3, reference §3):
 * openapi/paths/management/idps.yaml. Deprecated operations: every response carries the
 * deprecation headers (idpDeprecation, run before auth).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addJwtIdp, addOidcIdp, deactivateIdp, reactivateIdp, removeIdp, updateIdp, updateIdpJwtConfig, updateIdpOidcConfig } from '../../domain/idps/commands.js';
import { orgScope } from '../../domain/idps/idp.js';
import { getIdp, listIdps } from '../../domain/idps/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import type { OperationId } from '../generated/operations.gen.js';
import { idpDeprecation } from '../middleware/deprecation.js';
import { routesOf, type OperationHandler } from '../operation.js';

export function registerManagementIdpRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets } = deps;
  const route = routesOf(app, deps);
  const deprecated = <Id extends OperationId>(id: Id, handler: OperationHandler<Id>) => route(id, handler, { beforeAuth: [idpDeprecation(id)] });

  deprecated('AddOrgJWTIDP', async (c) => c.json(await addJwtIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200));

  deprecated('AddOrgOIDCIDP', async (c) => c.json(await addOidcIdp(store, secrets, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200));

  deprecated('UpdateOrgIDPOIDCConfig', async (c) =>
    c.json(await updateIdpOidcConfig(store, secrets, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200),
  );

  deprecated('ListOrgIDPs', async (c) => c.json(await listIdps(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200));

  deprecated('GetOrgIDPByID', async (c) => c.json({ idp: await getIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId) }, 200));

  deprecated('UpdateOrgIDP', async (c) => c.json(await updateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200));

  deprecated('RemoveOrgIDP', async (c) => c.json(await removeIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200));

  deprecated('UpdateOrgIDPJWTConfig', async (c) =>
    c.json(await updateIdpJwtConfig(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200),
  );

  deprecated('DeactivateOrgIDP', async (c) => c.json(await deactivateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200));

  deprecated('ReactivateOrgIDP', async (c) => c.json(await reactivateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200));
}
