/**
 * The browser side of the authorization server: the login page (a plain HTML form, usable
 * without JavaScript), automatic consent for our first-party applications, and userinfo for
 * our access tokens (the library's own userinfo refuses tokens that carry an audience, and
 * every token here does). These routes need the Node request/response (`c.env.incoming`),
 * so they only work when served through server.ts.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import type Provider from 'oidc-provider';
import type { PasswordVerifier } from '../../auth/password-verifier.js';
import { checkPasswordLogin } from '../../domain/login/password-login.js';
import { clientAddress } from '../client-address.js';
import { loginNameReader } from '../../domain/users/login-names.js';
import { hasScope, audienceProjects, rolesClaim, rolesClaimNames, USER_METADATA_SCOPE, userClaims, ZITADEL_ROLES_CLAIM } from '../../oidc/scopes.js';
import { metadataClaim } from '../../domain/users/metadata.js';
import type { AccessTokenReader } from '../../oidc/access-tokens.js';
import type { Store } from '../../store/store.js';
import type { AppEnv } from '../env.js';
import { loginPage, messagePage } from './oidc-ui-pages.js';
import { login } from '../../domain/policies/login.js';
import { signInLook } from './page-look.js';
import { loginLanguage, loginPageTexts } from '../../domain/texts/login-texts.js';
import { hasNul } from '../../oidc/nul-guard.js';
import { providersFor } from '../../domain/federation/sign-in.js';
import type { ProviderKeys } from '../../domain/federation/provider-keys.js';
import type { OidcUpstreams } from '../../domain/federation/oidc-upstream.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { registerFederationRoutes } from './login-federation.js';
import { afterPassword, registerLoginStepRoutes } from './login-steps.js';
import { registerPasswordResetRoutes } from './login-password-reset.js';
import { projectAccessRefusal } from '../../domain/login/project-access.js';

export interface OidcRouteDeps {
  provider: Provider;
  store: Store;
  readAccessToken: AccessTokenReader;
  issuer: string;
  /** The bounded pool password checks run in (default: the process's own). */
  passwordVerifier?: PasswordVerifier;
  /** Behind the TLS-terminating proxy: a client's address is the last X-Forwarded-For entry (client-address.ts). */
  trustProxy?: boolean;
  instanceId: string;
  /** Seals what a sign-in through an identity provider carries through the browser. */
  secrets: SecretBox;
  /** Identity providers' signing keys, cached per process. */
  providerKeys: ProviderKeys;
  /** OIDC identity providers' upstream issuers (discovery cached per process). */
  oidcUpstreams: OidcUpstreams;
}

export const FAILURE_TEXT = {
  invalid_credentials: 'The login name or the password is wrong.',
  locked: 'This user is locked after too many failed attempts. Ask an administrator to unlock it.',
  inactive: 'This user is not active.',
  busy: 'Too many sign-ins are being checked right now. Please try again in a few seconds.',
  throttled: 'Too many sign-ins for this user or from this address are being checked right now. Please try again in a few seconds.',
} as const;
export const FAILURE_STATUS = { invalid_credentials: 401, locked: 403, inactive: 403, busy: 503, throttled: 429 } as const;

export const node = (c: Context) => c.env as unknown as HttpBindings;

export type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The sign-in attempt of this browser, if `uid` names it (oidc-provider's interaction cookie). */
export async function interactionOf(provider: Provider, c: Context, uid: string): Promise<Details | undefined> {
  try {
    const d = await provider.interactionDetails(node(c).incoming, node(c).outgoing);
    return d.uid === uid ? d : undefined;
  } catch {
    return undefined; // no or expired interaction cookie
  }
}

/** The OIDC application a sign-in is for (a machine client has none), and so its organisation. */
export async function appOf(store: Store, d: Details) {
  const clientId = typeof d.params.client_id === 'string' ? d.params.client_id : undefined;
  return clientId ? store.read.oidcApps.byClientId(clientId) : undefined;
}


export const expiredPage = (c: Context) =>
  c.html(messagePage('Sign-in expired', 'This sign-in attempt has expired or was opened in another browser. Go back to the application and start again.'), 400);

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
    const [policy, look, texts] = await Promise.all([
      login.effective(store.read, deps.instanceId, orgId),
      signInLook(store.read, deps.instanceId, app),
      loginPageTexts(store.read, deps.instanceId, orgId, loginLanguage(d.params.ui_locales)),
    ]);
    return c.html(loginPage({ uid: d.uid, loginName, error, appName: app?.name, providers, passwordForm: policy.allowUsernamePassword, passwordReset: policy.allowUsernamePassword && !policy.hidePasswordReset, look, texts }), status);
  }

  app.get('/ui/login/:uid', async (c) => {
    const d = await details(c);
    if (!d) return expired(c);
    if (d.prompt.name === 'login') return showLogin(c, d, String(d.params.login_hint ?? ''), undefined);
    if (d.prompt.name !== 'consent' || !d.session?.accountId) return expired(c);
    const refused = await projectAccessRefusal(store.read, String(d.params.client_id), d.session.accountId);
    if (refused) return c.html(messagePage('No access to this application', refused.message, await signInLook(store.read, deps.instanceId, await appOf(store, d), d.session.accountId)), 403);
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

  const userinfo = async (c: Context) => {
    c.header('Cache-Control', 'no-store');
    const challenge = (error: string, status: 401 | 403) => {
      c.header('WWW-Authenticate', `Bearer realm="${deps.issuer}", error="${error}"`);
      return c.json({ error, error_description: error === 'invalid_token' ? 'invalid token provided' : 'openid scope is missing' }, status);
    };
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    const access = match ? await deps.readAccessToken(match[1]) : undefined;
    if (!access) return challenge('invalid_token', 401);
    if (!hasScope(access.scope, 'openid')) return challenge('insufficient_scope', 403);
    const user = await store.read.users.get(access.userId);
    if (!user || user.type !== 'human' || !['USER_STATE_ACTIVE', 'USER_STATE_INITIAL'].includes(user.state)) return challenge('invalid_token', 401);
    const std = userClaims(user, (await loginNameReader(store.read, deps.instanceId).of(user)).preferredLoginName);
    const body: Record<string, unknown> = { sub: user.id };
    if (hasScope(access.scope, 'profile')) Object.assign(body, std.profile);
    if (hasScope(access.scope, 'email')) Object.assign(body, std.email);
    const app = await store.read.oidcApps.byClientId(access.clientId);
    // Asked for by a roles scope, or asserted by the app's project (ZITADEL's projectRoleAssertion,
    // under ZITADEL's claim name).
    let roleClaims = rolesClaimNames(access.scope);
    if (!roleClaims.length && app && (await store.read.projects.get(app.projectId))?.projectRoleAssertion) roleClaims = [ZITADEL_ROLES_CLAIM];
    if (roleClaims.length) {
      const roles = await rolesClaim(store, user.id, [...(app ? [app.projectId] : []), ...audienceProjects(access.scope)]);
      for (const name of roleClaims) body[name] = roles;
    }
    if (hasScope(access.scope, USER_METADATA_SCOPE)) body[USER_METADATA_SCOPE] = await metadataClaim(store.read, user.id);
    return c.json(body);
  };
  app.get('/oidc/v1/userinfo', userinfo);
  app.post('/oidc/v1/userinfo', userinfo);
}
