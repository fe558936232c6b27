/**
 * JWT identity providers of the instance (ZITADEL's admin twin of AddOrgJWTIDP):
 * openapi/paths/admin/idps.yaml. Deprecated like the management side.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addJwtIdp, addOidcIdp, removeIdp } from '../../domain/idps/commands.js';
import { instanceScope } from '../../domain/idps/idp.js';
import { getIdp, listIdps } from '../../domain/idps/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { idpDeprecation } from '../middleware/deprecation.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, SECURED } from '../schemas/common.js';
import { AddJWTIDPRequest, AddJWTIDPResponse, AddOIDCIDPRequest, IdpIdParam, IDPResponse, ListIDPsRequest, ListIDPsResponse, withDeprecationHeaders } from '../schemas/idps.js';

const TAG = ['Identity providers'];

export function registerAdminIdpRoutes(app: OpenAPIHono<AppEnv>, { store, auth, secrets }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/idps/jwt',
      operationId: 'AddJWTIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('AddJWTIDP'), auth] as const,
      request: { body: jsonBody(AddJWTIDPRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Created.', AddJWTIDPResponse),
        ...errorResponses(400, 401, 403, 409, 413),
      }),
    }),
    async (c) => c.json(await addJwtIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/idps/oidc',
      operationId: 'AddOIDCIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('AddOIDCIDP'), auth] as const,
      request: { body: jsonBody(AddOIDCIDPRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Created.', AddJWTIDPResponse),
        ...errorResponses(400, 401, 403, 409, 413),
      }),
    }),
    async (c) => c.json(await addOidcIdp(store, secrets, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/idps/_search',
      operationId: 'ListIDPs',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('ListIDPs'), auth] as const,
      request: { body: jsonBody(ListIDPsRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('One page of providers.', ListIDPsResponse),
        ...errorResponses(400, 401, 403, 413),
      }),
    }),
    async (c) => c.json(await listIdps(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/v1/idps/{idpId}',
      operationId: 'GetIDPByID',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('GetIDPByID'), auth] as const,
      request: { params: IdpIdParam },
      responses: withDeprecationHeaders({
        200: jsonResponse('The provider.', IDPResponse),
        ...errorResponses(400, 401, 403, 404),
      }),
    }),
    async (c) => c.json({ idp: await getIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('param').idpId) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/admin/v1/idps/{idpId}',
      operationId: 'RemoveIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('RemoveIDP'), auth] as const,
      request: { params: IdpIdParam },
      responses: withDeprecationHeaders({
        200: jsonResponse('Removed.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404),
      }),
    }),
    async (c) => c.json(await removeIdp(store, c.get('ctx'), instanceScope(c.get('ctx').instanceId), c.req.valid('param').idpId), 200),
  );
}
