/**
 * JWT identity providers of the instance (ZITADEL's admin twin of AddOrgJWTIDP):
 * openapi/paths/admin/idps.yaml. Deprecated like the management side: every response carries the
 * deprecation headers, added by route() because the spec marks the operations deprecated.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { addJwtIdp, addOidcIdp, removeIdp } from '../../domain/idps/commands.js';
import { instanceScope } from '../../domain/idps/idp.js';
import { getIdp, listIdps } from '../../domain/idps/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAdminIdpRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets } = deps;
  const route = routesOf(app, deps);

  route('AddJWTIDP', async (c) => c.json(await addJwtIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200));

  route('AddOIDCIDP', async (c) => c.json(await addOidcIdp(store, secrets, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200));

  route('ListIDPs', async (c) => c.json(await listIdps(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200));

  route('GetIDPByID', async (c) => c.json({ idp: await getIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('param').idpId) }, 200));

  route('RemoveIDP', async (c) => c.json(await removeIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('param').idpId), 200));
}
