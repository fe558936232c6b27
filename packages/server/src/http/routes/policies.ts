/**
 * Policies: openapi/paths/admin/policies.yaml and openapi/paths/management/policies.yaml. Every
 * kind has the same seven operations (domain/policies/policy.ts); ZITADEL's names per kind.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import { domain } from '../../domain/policies/domain.js';
import { label } from '../../domain/policies/label.js';
import { lockout } from '../../domain/policies/lockout.js';
import { login } from '../../domain/policies/login.js';
import { passwordComplexity } from '../../domain/policies/password-complexity.js';
import { privacy } from '../../domain/policies/privacy.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { DetailsResponse, errorResponses, jsonBody, jsonResponse, OrgHeader, SECURED } from '../schemas/common.js';
import {
  DomainPolicyRequest,
  DomainPolicyResponse,
  LabelPolicyRequest,
  LabelPolicyResponse,
  LockoutPolicyRequest,
  LockoutPolicyResponse,
  LoginPolicyRequest,
  LoginPolicyResponse,
  PasswordComplexityPolicyRequest,
  PasswordComplexityPolicyResponse,
  PrivacyPolicyRequest,
  PrivacyPolicyResponse,
} from '../schemas/policies.js';

interface KindRoutes {
  /** Path below /admin/v1/policies/ and /management/v1/policies/ (and …/policies/default/). */
  path: string;
  /** ZITADEL's operation names: the kind's part, e.g. `PasswordComplexity`. */
  name: string;
  ops: typeof passwordComplexity | typeof lockout | typeof login | typeof privacy | typeof label | typeof domain;
  request: z.ZodType;
  response: z.ZodType;
}

function registerKind(app: OpenAPIHono<AppEnv>, { store, auth }: RouteDeps, k: KindRoutes) {
  const route = <M extends 'get' | 'post' | 'put' | 'delete'>(method: M, path: string, operationId: string) =>
    ({ method, path, operationId, tags: ['Policies'], security: SECURED, middleware: [auth] as [typeof auth] });
  const admin = `/admin/v1/policies/${k.path}`;
  const org = `/management/v1/policies/${k.path}`;
  // The domain's view matches the response schema by construction (policy.ts `show`).
  const ops = k.ops as unknown as typeof passwordComplexity;
  const body = (input: unknown) => input as Parameters<typeof ops.updateDefault>[2];
  app.openapi(
    createRoute({ ...route('get', admin, `Get${k.name}Policy`), responses: { 200: jsonResponse('The policy.', k.response), ...errorResponses(401, 403) } }),
    async (c) => c.json(await ops.getDefault(store, c.get('ctx')), 200),
  );
  app.openapi(
    createRoute({ ...route('put', admin, `Update${k.name}Policy`), request: { body: jsonBody(k.request) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403) } }),
    async (c) => c.json(await ops.updateDefault(store, c.get('ctx'), body(c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({ ...route('get', org, `GetOrg${k.name}Policy`), request: { headers: OrgHeader }, responses: { 200: jsonResponse('The effective policy.', k.response), ...errorResponses(401, 403) } }),
    async (c) => c.json(await ops.getOrg(store, c.get('ctx')), 200),
  );
  app.openapi(
    createRoute({ ...route('post', org, `AddCustom${k.name}Policy`), request: { headers: OrgHeader, body: jsonBody(k.request) }, responses: { 200: jsonResponse('Added.', DetailsResponse), ...errorResponses(400, 401, 403, 409) } }),
    async (c) => c.json(await ops.addOrg(store, c.get('ctx'), body(c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({ ...route('put', org, `UpdateCustom${k.name}Policy`), request: { headers: OrgHeader, body: jsonBody(k.request) }, responses: { 200: jsonResponse('Changed.', DetailsResponse), ...errorResponses(400, 401, 403, 404) } }),
    async (c) => c.json(await ops.updateOrg(store, c.get('ctx'), body(c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({ ...route('delete', org, `Reset${k.name}PolicyToDefault`), request: { headers: OrgHeader }, responses: { 200: jsonResponse('Removed.', DetailsResponse), ...errorResponses(401, 403, 404) } }),
    async (c) => c.json(await ops.resetOrg(store, c.get('ctx')), 200),
  );
  app.openapi(
    createRoute({ ...route('get', `/management/v1/policies/default/${k.path}`, `GetDefault${k.name}Policy`), request: { headers: OrgHeader }, responses: { 200: jsonResponse('The instance policy.', k.response), ...errorResponses(401, 403) } }),
    async (c) => c.json(await ops.getDefault(store, c.get('ctx'), 'policy.read'), 200),
  );
}

export function registerPolicyRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  registerKind(app, deps, { path: 'password/complexity', name: 'PasswordComplexity', ops: passwordComplexity, request: PasswordComplexityPolicyRequest, response: PasswordComplexityPolicyResponse });
  registerKind(app, deps, { path: 'lockout', name: 'Lockout', ops: lockout, request: LockoutPolicyRequest, response: LockoutPolicyResponse });
  registerKind(app, deps, { path: 'login', name: 'Login', ops: login, request: LoginPolicyRequest, response: LoginPolicyResponse });
  registerKind(app, deps, { path: 'privacy', name: 'Privacy', ops: privacy, request: PrivacyPolicyRequest, response: PrivacyPolicyResponse });
  registerKind(app, deps, { path: 'label', name: 'Label', ops: label, request: LabelPolicyRequest, response: LabelPolicyResponse });
  registerKind(app, deps, { path: 'domain', name: 'Domain', ops: domain, request: DomainPolicyRequest, response: DomainPolicyResponse });
}
