/**
 * Policies: openapi/paths/admin/policies.yaml and openapi/paths/management/policies.yaml.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  addOrgPasswordComplexity, getDefaultPasswordComplexity, getOrgPasswordComplexity, resetOrgPasswordComplexity,
  updateDefaultPasswordComplexity, updateOrgPasswordComplexity,
} from '../../domain/policies/password-complexity.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import { PasswordComplexityPolicyRequest, PasswordComplexityPolicyResponse } from '../schemas/policies.js';

export function registerPolicyRoutes(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps) {
  const route = <M extends 'get' | 'post' | 'put' | 'delete'>(method: M, path: string, operationId: string) =>
    ({ method, path, operationId, tags: ['Policies'], security: SECURED, middleware: [auth] as [typeof auth] });
  const admin = '/admin/v1/policies/password/complexity';
  const org = '/management/v1/policies/password/complexity';
  app.openapi(
    createRoute({ ...route('get', admin, 'GetPasswordComplexityPolicy'), responses: { 200: jsonResponse('The policy.', PasswordComplexityPolicyResponse), ...errorResponses(401, 403) } }),
    async (c) => c.json(await getDefaultPasswordComplexity(store, c.var.ctx), 200),
  );
  app.openapi(
    createRoute({ ...route('put', admin, 'UpdatePasswordComplexityPolicy'), request: { body: jsonBody(PasswordComplexityPolicyRequest) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403) } }),
    async (c) => c.json(await updateDefaultPasswordComplexity(store, c.var.ctx, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('get', org, 'GetOrgPasswordComplexityPolicy'), request: { headers: OrgHeader }, responses: { 200: jsonResponse('The effective policy.', PasswordComplexityPolicyResponse), ...errorResponses(401, 403) } }),
    async (c) => c.json(await getOrgPasswordComplexity(store, c.var.ctx), 200),
  );
  app.openapi(
    createRoute({ ...route('post', org, 'AddCustomPasswordComplexityPolicy'), request: { headers: OrgHeader, body: jsonBody(PasswordComplexityPolicyRequest) }, responses: { 200: jsonResponse('Added.', DetailsResponse), ...errorResponses(400, 401, 403, 409) } }),
    async (c) => c.json(await addOrgPasswordComplexity(store, c.var.ctx, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('put', org, 'UpdateCustomPasswordComplexityPolicy'), request: { headers: OrgHeader, body: jsonBody(PasswordComplexityPolicyRequest) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await updateOrgPasswordComplexity(store, c.var.ctx, c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({ ...route('delete', org, 'ResetPasswordComplexityPolicyToDefault'), request: { headers: OrgHeader }, responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(401, 403, 404) } }),
    async (c) => c.json(await resetOrgPasswordComplexity(store, c.var.ctx), 200),
  );
  app.openapi(
    createRoute({ ...route('get', '/management/v1/policies/default/password/complexity', 'GetDefaultPasswordComplexityPolicy'), request: { headers: OrgHeader }, responses: { 200: jsonResponse('The instance policy.', PasswordComplexityPolicyResponse), ...errorResponses(401, 403) } }),
    async (c) => c.json(await getDefaultPasswordComplexity(store, c.var.ctx, 'policy.read'), 200),
  );
}
