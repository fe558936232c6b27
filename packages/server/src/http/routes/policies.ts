/**
 * Policies: openapi/paths/admin/policies.yaml and openapi/paths/management/policies.yaml. Every
 * kind has the same seven operations (domain/policies/policy.ts); ZITADEL's names per kind.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { domain } from '../../domain/policies/domain.js';
import { label } from '../../domain/policies/label.js';
import { lockout } from '../../domain/policies/lockout.js';
import { login } from '../../domain/policies/login.js';
import { passwordComplexity } from '../../domain/policies/password-complexity.js';
import { privacy } from '../../domain/policies/privacy.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerPolicyRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store } = deps;
  const route = routesOf(app, deps);

  // Each kind: the instance's default (admin API: get, update), the organisation's own (management
  // API: get the effective one, add, update, reset to the default) and the default as the
  // organisation reads it.
  route('GetPasswordComplexityPolicy', async (c) => c.json(await passwordComplexity.getDefault(store, c.get('ctx')), 200));
  route('UpdatePasswordComplexityPolicy', async (c) => c.json(await passwordComplexity.updateDefault(store, c.get('ctx'), c.req.valid('json')), 200));
  route('GetOrgPasswordComplexityPolicy', async (c) => c.json(await passwordComplexity.getOrg(store, c.get('ctx')), 200));
  route('AddCustomPasswordComplexityPolicy', async (c) => c.json(await passwordComplexity.addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('UpdateCustomPasswordComplexityPolicy', async (c) => c.json(await passwordComplexity.updateOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('ResetPasswordComplexityPolicyToDefault', async (c) => c.json(await passwordComplexity.resetOrg(store, c.get('ctx')), 200));
  route('GetDefaultPasswordComplexityPolicy', async (c) => c.json(await passwordComplexity.getDefault(store, c.get('ctx'), 'policy.read'), 200));

  route('GetLockoutPolicy', async (c) => c.json(await lockout.getDefault(store, c.get('ctx')), 200));
  route('UpdateLockoutPolicy', async (c) => c.json(await lockout.updateDefault(store, c.get('ctx'), c.req.valid('json')), 200));
  route('GetOrgLockoutPolicy', async (c) => c.json(await lockout.getOrg(store, c.get('ctx')), 200));
  route('AddCustomLockoutPolicy', async (c) => c.json(await lockout.addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('UpdateCustomLockoutPolicy', async (c) => c.json(await lockout.updateOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('ResetLockoutPolicyToDefault', async (c) => c.json(await lockout.resetOrg(store, c.get('ctx')), 200));
  route('GetDefaultLockoutPolicy', async (c) => c.json(await lockout.getDefault(store, c.get('ctx'), 'policy.read'), 200));

  route('GetLoginPolicy', async (c) => c.json(await login.getDefault(store, c.get('ctx')), 200));
  route('UpdateLoginPolicy', async (c) => c.json(await login.updateDefault(store, c.get('ctx'), c.req.valid('json')), 200));
  route('GetOrgLoginPolicy', async (c) => c.json(await login.getOrg(store, c.get('ctx')), 200));
  route('AddCustomLoginPolicy', async (c) => c.json(await login.addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('UpdateCustomLoginPolicy', async (c) => c.json(await login.updateOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('ResetLoginPolicyToDefault', async (c) => c.json(await login.resetOrg(store, c.get('ctx')), 200));
  route('GetDefaultLoginPolicy', async (c) => c.json(await login.getDefault(store, c.get('ctx'), 'policy.read'), 200));

  route('GetPrivacyPolicy', async (c) => c.json(await privacy.getDefault(store, c.get('ctx')), 200));
  route('UpdatePrivacyPolicy', async (c) => c.json(await privacy.updateDefault(store, c.get('ctx'), c.req.valid('json')), 200));
  route('GetOrgPrivacyPolicy', async (c) => c.json(await privacy.getOrg(store, c.get('ctx')), 200));
  route('AddCustomPrivacyPolicy', async (c) => c.json(await privacy.addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('UpdateCustomPrivacyPolicy', async (c) => c.json(await privacy.updateOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('ResetPrivacyPolicyToDefault', async (c) => c.json(await privacy.resetOrg(store, c.get('ctx')), 200));
  route('GetDefaultPrivacyPolicy', async (c) => c.json(await privacy.getDefault(store, c.get('ctx'), 'policy.read'), 200));

  route('GetLabelPolicy', async (c) => c.json(await label.getDefault(store, c.get('ctx')), 200));
  route('UpdateLabelPolicy', async (c) => c.json(await label.updateDefault(store, c.get('ctx'), c.req.valid('json')), 200));
  route('GetOrgLabelPolicy', async (c) => c.json(await label.getOrg(store, c.get('ctx')), 200));
  route('AddCustomLabelPolicy', async (c) => c.json(await label.addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('UpdateCustomLabelPolicy', async (c) => c.json(await label.updateOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('ResetLabelPolicyToDefault', async (c) => c.json(await label.resetOrg(store, c.get('ctx')), 200));
  route('GetDefaultLabelPolicy', async (c) => c.json(await label.getDefault(store, c.get('ctx'), 'policy.read'), 200));

  route('GetDomainPolicy', async (c) => c.json(await domain.getDefault(store, c.get('ctx')), 200));
  route('UpdateDomainPolicy', async (c) => c.json(await domain.updateDefault(store, c.get('ctx'), c.req.valid('json')), 200));
  route('GetOrgDomainPolicy', async (c) => c.json(await domain.getOrg(store, c.get('ctx')), 200));
  route('AddCustomDomainPolicy', async (c) => c.json(await domain.addOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('UpdateCustomDomainPolicy', async (c) => c.json(await domain.updateOrg(store, c.get('ctx'), c.req.valid('json')), 200));
  route('ResetDomainPolicyToDefault', async (c) => c.json(await domain.resetOrg(store, c.get('ctx')), 200));
  route('GetDefaultDomainPolicy', async (c) => c.json(await domain.getDefault(store, c.get('ctx'), 'policy.read'), 200));
}
