/**
 * JWT identity providers of the instance (ZITADEL's admin twin of AddOrgJWTIDP):
 * openapi/paths/admin/idps.yaml. Deprecated like the management side: every response carries the
 * deprecation headers (idpDeprecation, run before auth).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addJwtIdp, addOidcIdp, removeIdp } from '../../domain/idps/commands.js';
import { instanceScope } from '../../domain/idps/idp.js';
import { getIdp, listIdps } from '../../domain/idps/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import type { OperationId } from '../generated/operations.gen.js';
import { idpDeprecation } from '../middleware/deprecation.js';
import { routesOf, type OperationHandler } from '../operation.js';

export function registerAdminIdpRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets } = deps;
  const route = routesOf(app, deps);
  const deprecated = <Id extends OperationId>(id: Id, handler: OperationHandler<Id>) => route(id, handler, { beforeAuth: [idpDeprecation(id)] });

  deprecated('AddJWTIDP', async (c) => c.json(await addJwtIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200));

  deprecated('AddOIDCIDP', async (c) => c.json(await addOidcIdp(store, secrets, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200));

  deprecated('ListIDPs', async (c) => c.json(await listIdps(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200));

  deprecated('GetIDPByID', async (c) => c.json({ idp: await getIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('param').idpId) }, 200));

  deprecated('RemoveIDP', async (c) => c.json(await removeIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('param').idpId), 200));
}
