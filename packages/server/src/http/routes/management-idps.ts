/**
 * JWT identity providers, management side (description §4.3, reference §3):
 * openapi/paths/management/idps.yaml. Deprecated operations: every response carries the
 * deprecation headers (middleware listed before auth).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addJwtIdp, addOidcIdp, deactivateIdp, reactivateIdp, removeIdp, updateIdp, updateIdpJwtConfig, updateIdpOidcConfig } from '../../domain/idps/commands.js';
import { orgScope } from '../../domain/idps/idp.js';
import { getIdp, listIdps } from '../../domain/idps/queries.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { idpDeprecation } from '../middleware/deprecation.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import {
  AddJWTIDPRequest,
  AddJWTIDPResponse,
  AddOIDCIDPRequest,
  IdpIdParam,
  IDPResponse,
  ListIDPsRequest,
  ListIDPsResponse,
  UpdateIDPJWTConfigRequest,
  UpdateIDPOIDCConfigRequest,
  UpdateIDPRequest,
  withDeprecationHeaders,
} from '../schemas/idps.js';

const TAG = ['Identity providers'];

export function registerManagementIdpRoutes(app: OpenAPIHono<AppEnv>, { store, auth, secrets }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/idps/jwt',
      operationId: 'AddOrgJWTIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('AddOrgJWTIDP'), auth] as const,
      request: { headers: OrgHeader, body: jsonBody(AddJWTIDPRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Created.', AddJWTIDPResponse),
        ...errorResponses(400, 401, 403, 409, 413),
      }),
    }),
    async (c) => c.json(await addJwtIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/idps/oidc',
      operationId: 'AddOrgOIDCIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('AddOrgOIDCIDP'), auth] as const,
      request: { headers: OrgHeader, body: jsonBody(AddOIDCIDPRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Created.', AddJWTIDPResponse),
        ...errorResponses(400, 401, 403, 409, 413),
      }),
    }),
    async (c) => c.json(await addOidcIdp(store, secrets, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/idps/{idpId}/oidc_config',
      operationId: 'UpdateOrgIDPOIDCConfig',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('UpdateOrgIDPOIDCConfig'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam, body: jsonBody(UpdateIDPOIDCConfigRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Changed.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404, 413),
      }),
    }),
    async (c) =>
      c.json(await updateIdpOidcConfig(store, secrets, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/idps/_search',
      operationId: 'ListOrgIDPs',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('ListOrgIDPs'), auth] as const,
      request: { headers: OrgHeader, body: jsonBody(ListIDPsRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('One page of providers.', ListIDPsResponse),
        ...errorResponses(400, 401, 403, 413),
      }),
    }),
    async (c) => c.json(await listIdps(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/management/v1/idps/{idpId}',
      operationId: 'GetOrgIDPByID',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('GetOrgIDPByID'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam },
      responses: withDeprecationHeaders({
        200: jsonResponse('The provider.', IDPResponse),
        ...errorResponses(400, 401, 403, 404),
      }),
    }),
    async (c) => c.json({ idp: await getIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/idps/{idpId}',
      operationId: 'UpdateOrgIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('UpdateOrgIDP'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam, body: jsonBody(UpdateIDPRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Changed.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404, 409, 413),
      }),
    }),
    async (c) => c.json(await updateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/management/v1/idps/{idpId}',
      operationId: 'RemoveOrgIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('RemoveOrgIDP'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam },
      responses: withDeprecationHeaders({
        200: jsonResponse('Removed.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404),
      }),
    }),
    async (c) => c.json(await removeIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/management/v1/idps/{idpId}/jwt_config',
      operationId: 'UpdateOrgIDPJWTConfig',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('UpdateOrgIDPJWTConfig'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam, body: jsonBody(UpdateIDPJWTConfigRequest) },
      responses: withDeprecationHeaders({
        200: jsonResponse('Changed.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404, 413),
      }),
    }),
    async (c) =>
      c.json(await updateIdpJwtConfig(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/idps/{idpId}/_deactivate',
      operationId: 'DeactivateOrgIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('DeactivateOrgIDP'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam },
      responses: withDeprecationHeaders({
        200: jsonResponse('Deactivated.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404),
      }),
    }),
    async (c) => c.json(await deactivateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/management/v1/idps/{idpId}/_reactivate',
      operationId: 'ReactivateOrgIDP',
      tags: TAG,
      deprecated: true,
      security: SECURED,
      middleware: [idpDeprecation('ReactivateOrgIDP'), auth] as const,
      request: { headers: OrgHeader, params: IdpIdParam },
      responses: withDeprecationHeaders({
        200: jsonResponse('Reactivated.', DetailsResponse),
        ...errorResponses(400, 401, 403, 404),
      }),
    }),
    async (c) => c.json(await reactivateIdp(store, c.get('ctx'), orgScope(c.get('ctx').orgId), c.req.valid('param').idpId), 200),
  );
}
