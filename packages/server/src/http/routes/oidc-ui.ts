/**
 * The browser side of the authorization server: the login page (a plain HTML form, usable
 * without JavaScript), automatic consent for our first-party applications, and userinfo for
 * our access tokens (the library's own userinfo refuses tokens that carry an audience, and
 * every token here does). These routes need the Node request/response (`c.env.incoming`),
 * so they only work when served through server.ts.
 */
import type { Context, Hono } from 'hono';
import { parseBearer } from '../../auth/authenticate.js';
import { EXPIRED } from '../../domain/login/flow.js';
import { consentRefusal, loginPageOf, submitPassword } from '../../domain/login/login-form.js';
import { leadToSecondFactor } from '../../domain/login/steps.js';
import { userinfoAnswerer } from '../../oidc/userinfo.js';
import { clientAddress } from '../client-address.js';
import type { AppEnv } from '../env.js';
import { registerFederationRoutes } from './login-federation.js';
import { answer, attemptFrom, forAttempt, formOf, interactionOf, node, type OidcRouteDeps } from './login-flow.js';
import { registerPasswordResetRoutes } from './login-password-reset.js';
import { registerRegistrationRoutes } from './login-register.js';
import { registerLoginStepRoutes } from './login-steps.js';

export function registerOidcRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  // The login page (or, for a session lacking only the second factor, that step), or the consent step.
  app.get('/ui/login/:uid', async (c) => {
    const d = await interactionOf(provider, c, c.req.param('uid'));
    if (!d) return answer(c, EXPIRED);
    const attempt = attemptFrom(d);
    if (d.prompt.name === 'login') return answer(c, (await leadToSecondFactor(deps, attempt)) ?? (await loginPageOf(deps, attempt)), deps);
    if (d.prompt.name !== 'consent' || !d.session?.accountId) return answer(c, EXPIRED);
    const refused = await consentRefusal(deps, attempt, d.session.accountId);
    if (refused) return answer(c, refused);
    // First-party applications: grant exactly what is missing, without asking.
    const missing = d.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    const grant = (d.grantId ? await provider.Grant.find(d.grantId) : undefined) ?? new provider.Grant({ accountId: d.session.accountId, clientId: String(d.params.client_id) });
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    const to = await provider.interactionResult(node(c).incoming, node(c).outgoing, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return c.redirect(to, 303);
  });

  app.post(
    '/ui/login/:uid',
    forAttempt(deps, async (attempt, c) => {
      const form = await formOf(c);
      const sent = form && { loginName: form.loginName ?? '', password: form.password ?? '' };
      return submitPassword(deps, attempt, sent, clientAddress(c, deps.trustProxy));
    }),
  );

  registerFederationRoutes(app, deps);
  registerLoginStepRoutes(app, deps);
  registerPasswordResetRoutes(app, deps);
  registerRegistrationRoutes(app, deps);

  const userinfoOf = userinfoAnswerer({ store, instanceId: deps.instanceId, readAccessToken: deps.readAccessToken });
  const userinfo = async (c: Context) => {
    c.header('Cache-Control', 'no-store');
    const result = await userinfoOf(parseBearer(c.req.header('authorization')));
    if (result.status === 200) return c.json(result.claims);
    c.header('WWW-Authenticate', `Bearer realm="${deps.issuer}", error="${result.error}"`);
    return c.json({ error: result.error, error_description: result.error === 'invalid_token' ? 'invalid token provided' : 'openid scope is missing' }, result.status);
  };
  app.get('/oidc/v1/userinfo', userinfo);
  app.post('/oidc/v1/userinfo', userinfo);
}
