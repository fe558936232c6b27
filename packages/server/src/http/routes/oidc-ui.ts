/**
 * The browser side of the authorization server: the login page (a plain HTML form, usable
 * without JavaScript), automatic consent for our first-party applications, and userinfo for
 * our access tokens (the library's own userinfo refuses tokens that carry an audience, and
 * every token here does). These routes need the Node request/response (`c.env.incoming`),
 * so they only work when served through server.ts.
 */
import type { Context, Hono } from 'hono';
import { parseBearer } from '../../auth/authenticate.js';
import { checkPasswordLogin } from '../../domain/login/password-login.js';
import { requestedOrg } from '../../oidc/scopes.js';
import { userinfoAnswerer } from '../../oidc/userinfo.js';
import { clientAddress } from '../client-address.js';
import type { AppEnv } from '../env.js';
import { loginPage, messagePage } from '../../ui/pages.js';
import { login } from '../../domain/policies/login.js';
import { signInLook } from '../../domain/login/page-look.js';
import { loginLanguage, loginPageTexts } from '../../domain/texts/login-texts.js';
import { hasNul } from '../../oidc/nul-guard.js';
import { providersFor } from '../../domain/federation/sign-in.js';
import { registerFederationRoutes } from './login-federation.js';
import { appOf, expiredPage, FAILURE_STATUS, FAILURE_TEXT, interactionOf, UNCONFIRMED_HINT, node, type Details, type OidcRouteDeps } from './login-flow.js';
import { afterPassword, leadToSecondFactor, registerLoginStepRoutes } from './login-steps.js';
import { registerPasswordResetRoutes } from './login-password-reset.js';
import { registerRegistrationRoutes } from './login-register.js';
import { registrationTarget } from '../../domain/login/registration.js';
import { projectAccessRefusal } from '../../domain/login/project-access.js';
import { orgScopeRefusal } from '../../domain/login/org-scope.js';

export function registerOidcRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  const details = (c: Context) => interactionOf(provider, c, c.req.param('uid') ?? '');
  const expired = expiredPage;

  /**
   * The login form as the application's organisation has it: its login policy (password form,
   * identity providers); the colours and links are the ones its project's privateLabelingSetting
   * chooses (page-look.ts).
   */
  async function showLogin(c: Context, d: Details, loginName: string, error: string | undefined, status: 200 | 400 | 401 | 403 | 429 | 503 = 200) {
    const app = await appOf(store, d);
    const orgId = app?.orgId ?? deps.instanceId;
    const providers = app ? await providersFor(store, app.orgId, deps.instanceId) : [];
    const [policy, look, texts, registration] = await Promise.all([
      login.effective(store.read, deps.instanceId, orgId),
      signInLook(store.read, deps.instanceId, app),
      loginPageTexts(store.read, deps.instanceId, orgId, loginLanguage(d.params.ui_locales)),
      registrationTarget(store.read, deps.instanceId, app, requestedOrg(String(d.params.scope ?? ''))),
    ]);
    // Where people register here, a wrong-password answer also reminds them that a new account
    // signs in once its address is confirmed (said to everyone alike, so it tells nothing).
    if (error === FAILURE_TEXT.invalid_credentials && registration.allowed) error = `${error} ${UNCONFIRMED_HINT}`;
    return c.html(loginPage({ uid: d.uid, loginName, error, appName: app?.name, providers, passwordForm: policy.allowUsernamePassword, passwordReset: policy.allowUsernamePassword && !policy.hidePasswordReset, register: registration.allowed, look, texts }), status);
  }

  app.get('/ui/login/:uid', async (c) => {
    const d = await details(c);
    if (!d) return expired(c);
    if (d.prompt.name === 'login') return (await leadToSecondFactor(c, deps, d)) ?? showLogin(c, d, String(d.params.login_hint ?? ''), undefined);
    if (d.prompt.name !== 'consent' || !d.session?.accountId) return expired(c);
    const refused = await projectAccessRefusal(store.read, String(d.params.client_id), d.session.accountId);
    if (refused) return c.html(messagePage('No access to this application', refused.message, await signInLook(store.read, deps.instanceId, await appOf(store, d), d.session.accountId)), 403);
    const otherOrg = await orgScopeRefusal(store.read, requestedOrg(String(d.params.scope ?? '')), d.session.accountId);
    if (otherOrg) return c.html(messagePage('Not an account of this organisation', otherOrg.message, await signInLook(store.read, deps.instanceId, await appOf(store, d), d.session.accountId)), 403);
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

  app.post('/ui/login/:uid', async (c) => {
    const d = await details(c);
    if (!d || d.prompt.name !== 'login') return expired(c);
    // A body that does not parse (e.g. broken multipart) is the user's mistake, not the server's.
    const form = await c.req.parseBody().catch(() => undefined);
    if (!form) return showLogin(c, d, '', 'Enter your login name and password.', 400);
    // A posted password where the login policy allows none (the form was not offered).
    const app = await appOf(store, d);
    if (!(await login.effective(store.read, deps.instanceId, app?.orgId ?? deps.instanceId)).allowUsernamePassword) {
      return showLogin(c, d, '', 'Signing in with a password is not allowed for this application. Use one of the identity providers.', 403);
    }
    const loginName = typeof form.loginName === 'string' ? form.loginName : '';
    const password = typeof form.password === 'string' ? form.password : '';
    if (!loginName || !password) return showLogin(c, d, loginName, 'Enter your login name and password.', 400);
    // No login name or password holds U+0000, and PostgreSQL cannot look one up (oidc/nul-guard.ts).
    if (hasNul(loginName) || hasNul(password)) return showLogin(c, d, '', 'Enter your login name and password.', 400);
    const outcome = await checkPasswordLogin(store, deps.instanceId, loginName, password, deps.passwordVerifier, clientAddress(c, deps.trustProxy));
    if (!outcome.ok) {
      if (outcome.refusedHash) {
        // Stored before the cost bounds existed; an administrator should reset this password.
        c.get('logger')?.warn('stored password hash refused at login', { requestId: c.get('requestId'), userId: outcome.userId, reason: outcome.refusedHash });
      }
      if (outcome.reason === 'busy' || outcome.reason === 'throttled') c.header('Retry-After', '5');
      return showLogin(c, d, loginName, FAILURE_TEXT[outcome.reason], FAILURE_STATUS[outcome.reason]);
    }
    // The authenticator app's code and a required new password come next, if any (login-steps.ts).
    return afterPassword(c, deps, d.uid, outcome);
  });

  registerFederationRoutes(app, deps);
  registerLoginStepRoutes(app, deps);
  registerPasswordResetRoutes(app, deps);
  registerRegistrationRoutes(app, deps);

  const userinfoOf = userinfoAnswerer({ store, instanceId: deps.instanceId, readAccessToken: deps.readAccessToken });
  const userinfo = async (c: Context) => {
    c.header('Cache-Control', 'no-store');
    const answer = await userinfoOf(parseBearer(c.req.header('authorization')));
    if (answer.status === 200) return c.json(answer.claims);
    c.header('WWW-Authenticate', `Bearer realm="${deps.issuer}", error="${answer.error}"`);
    return c.json({ error: answer.error, error_description: answer.error === 'invalid_token' ? 'invalid token provided' : 'openid scope is missing' }, answer.status);
  };
  app.get('/oidc/v1/userinfo', userinfo);
  app.post('/oidc/v1/userinfo', userinfo);
}
