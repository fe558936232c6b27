/**
 * Signing in through a JWT identity provider (ZITADEL's JWT IdP flow, `internal/api/ui/login/
 * jwt_handler.go`), as browser endpoints beside the login page:
 *
 * 1. `POST /ui/login/{uid}/idp` (the provider's button on the login page): the browser gets an
 *    HttpOnly cookie with a random value and is sent to the provider's `jwtEndpoint` with
 *    `authRequestID` (the sign-in attempt) and `userAgentID` (sealed: attempt, provider, hash of
 *    the cookie; domain/federation/browser-state.ts).
 * 2. `GET /ui/login/login/jwt/authorize` (ZITADEL's path, so proxies set up for ZITADEL work): the
 *    provider's proxy forwards the browser's request here with the JWT in the configured header.
 *    The token is validated and the identity signed in, registered or sent on to linking; the
 *    answer (relayed by the proxy) redirects the browser to step 3 on this service's own origin.
 *    This request comes from the proxy, without the browser's cookies: only the sealed values
 *    tie it to the attempt.
 * 3. `GET /ui/login/{uid}/idp/callback`: in the browser that started, proven by the cookie, the
 *    sign-in completes (oidc-provider continues to the client with a code) or the link page shows.
 * 4. `POST /ui/login/{uid}/idp/link`: an existing account's password links the identity.
 * An OIDC provider (domain/federation/oidc-upstream.ts) replaces steps 1–2: the button sends the
 * browser to the upstream issuer's authorization endpoint with a sealed `state` (attempt, provider,
 * cookie hash, PKCE verifier, nonce), and the upstream sends it back to
 * `GET /ui/login/login/externalidp/callback` (ZITADEL's path), where the code is exchanged and the
 * identity signed in, registered or sent on to linking; then step 3 as above. That callback has
 * no cookie of the attempt (its path is the attempt's), so step 3 is where the browser is proven.
 * Every refusal is a page saying why and what to do next, and a log line.
 */
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { afterFirstFactor, afterPassword } from './login-steps.js';
import { secondFactorStep } from '../../domain/login/second-factor.js';
import { checkPasswordLogin } from '../../domain/login/password-login.js';
import { clientAddress } from '../client-address.js';
import {
  AGENT_COOKIE,
  agentOf,
  newAgentSecret,
  openOidcState,
  openOutcome,
  openUserAgent,
  sealOidcState,
  sealOutcome,
  sealUserAgent,
  STATE_TTL_MS,
  type Outcome,
} from '../../domain/federation/browser-state.js';
import { mappedClaim, OIDC_CALLBACK_PATH, UpstreamError } from '../../domain/federation/oidc-upstream.js';
import { isOidcIdp, jwtConfigOf, oidcConfigOf } from '../../domain/idps/idp.js';
import { identityProvider, type IdentityProvider } from '../../domain/federation/providers.js';
import { signInApp } from '../../domain/login/sign-in-app.js';
import { ExternalTokenError, tokenFromHeader, validateProviderToken } from '../../domain/federation/jwt-token.js';
import { identityFromClaims, linkIdentity, providersFor, SignInRefused, signInWithIdentity } from '../../domain/federation/sign-in.js';
import { hasNul } from '../../oidc/nul-guard.js';
import type { AppEnv } from '../env.js';
import { federationErrorPage, linkPage } from '../../ui/pages.js';
import { signInLook } from '../../domain/login/page-look.js';
import { appOf, expiredPage, FAILURE_STATUS, FAILURE_TEXT, interactionOf, node, type OidcRouteDeps } from './login-flow.js';

/** ZITADEL's path of the JWT endpoint the provider's proxy forwards to. */
export const JWT_AUTHORIZE_PATH = '/ui/login/login/jwt/authorize';

export function registerFederationRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store, secrets } = deps;
  const issuer = deps.issuer.replace(/\/+$/, '');
  const loginUrl = (uid: string) => `${issuer}/ui/login/${encodeURIComponent(uid)}`;

  const refuse = (c: Context, status: 400 | 401 | 403 | 502, message: string, details: Record<string, unknown>, backTo?: string) => {
    c.get('logger')?.warn('sign-in through an identity provider refused', { requestId: c.get('requestId'), reason: message, ...details });
    return c.html(federationErrorPage(message, backTo), status);
  };

  // 1. The provider's button.
  app.post('/ui/login/:uid/idp', async (c) => {
    const uid = c.req.param('uid');
    const d = await interactionOf(provider, c, uid);
    if (!d || d.prompt.name !== 'login') return expiredPage(c);
    const form = await c.req.parseBody().catch(() => undefined);
    const idpId = typeof form?.idpId === 'string' ? form.idpId : '';
    const app = await appOf(store, d);
    const idp = app && idpId ? (await providersFor(store, app.orgId, deps.instanceId)).find((p) => p.id === idpId) : undefined;
    if (!idp) return refuse(c, 400, 'This identity provider is not offered for this sign-in (it may have been deactivated or removed).', { uid, idpId }, loginUrl(uid));
    const secret = newAgentSecret();
    setCookie(c, AGENT_COOKIE, secret, {
      path: `/ui/login/${uid}`,
      httpOnly: true,
      sameSite: 'Lax',
      secure: issuer.startsWith('https:'),
      maxAge: STATE_TTL_MS / 1000,
    });
    if (isOidcIdp(idp)) {
      try {
        const to = await deps.oidcUpstreams.authorizationUrl(idp, issuer + OIDC_CALLBACK_PATH, (pending) =>
          sealOidcState(secrets, { uid, idpId: idp.id, agent: agentOf(secret), ...pending }),
        );
        return c.redirect(to.href, 303);
      } catch (error) {
        if (error instanceof UpstreamError) return refuse(c, 502, error.message, { uid, idpId: idp.id, check: error.reason }, loginUrl(uid));
        throw error;
      }
    }
    const to = new URL(idp.jwtEndpoint);
    to.searchParams.set('authRequestID', uid);
    to.searchParams.set('userAgentID', sealUserAgent(secrets, { uid, idpId: idp.id, agent: agentOf(secret) }));
    return c.redirect(to.href, 303);
  });

  /**
   * The provider of an attempt, if it still exists, is offered to the attempt's application and is
   * active; otherwise the refusal page to show.
   */
  async function attemptProvider(c: Context, uid: string, idpId: string) {
    const back = loginUrl(uid);
    const interaction = await provider.Interaction.find(uid);
    if (!interaction) return { refusal: refuse(c, 400, 'This sign-in attempt has expired. Start signing in at the application again.', { uid }) };
    const app = await signInApp(store, interaction.params.client_id);
    const idp = await identityProvider(store, idpId);
    const offered = app && idp && [app.orgId, deps.instanceId].includes(idp.ownerId);
    if (!idp || !offered) return { refusal: refuse(c, 400, 'The identity provider of this sign-in no longer exists.', { uid, idpId }, back) };
    if (idp.state !== 'IDP_STATE_ACTIVE') return { refusal: refuse(c, 403, `The identity provider "${idp.name}" is deactivated. Sign in another way or ask an administrator.`, { uid, idpId: idp.id }, back) };
    return { idp, orgId: app.orgId };
  }

  /** Hands the outcome to step 3, in the browser that started (sealed for its cookie). */
  const toCallback = (c: Context, uid: string, agent: string, outcome: Outcome) => {
    const to = new URL(`${loginUrl(uid)}/idp/callback`);
    to.searchParams.set('state', sealOutcome(secrets, { uid, agent, outcome }));
    return c.redirect(to.href, 302);
  };

  // 2 (OIDC). The upstream issuer sends the browser back with a code (or an error).
  app.get(OIDC_CALLBACK_PATH, async (c) => {
    const sealed = c.req.query('state') ?? '';
    const pending = sealed && !hasNul(sealed) ? openOidcState(secrets, sealed) : undefined;
    if (!pending) return refuse(c, 400, 'This answer of an identity provider is invalid or has expired. Start signing in at the application again.', {});
    const { uid } = pending;
    const found = await attemptProvider(c, uid, pending.idpId);
    if ('refusal' in found) return found.refusal;
    const idp: IdentityProvider = found.idp;
    if (!isOidcIdp(idp)) return refuse(c, 400, 'The identity provider of this sign-in changed its kind. Start again from the sign-in page.', { uid, idpId: idp.id }, loginUrl(uid));
    const error = c.req.query('error');
    if (error) {
      const description = c.req.query('error_description');
      const why = `${error}${description ? `: ${description}` : ''}`.slice(0, 300);
      return refuse(c, 403, `"${idp.name}" did not sign you in (${why}). Try again, or sign in another way.`, { uid, idpId: idp.id, upstreamError: error }, loginUrl(uid));
    }
    if (!c.req.query('code')) return refuse(c, 400, 'The identity provider\u2019s answer has neither a code nor an error. Start again from the sign-in page.', { uid, idpId: idp.id }, loginUrl(uid));
    // The URL the upstream redirected to, on this service's own issuer (not the request's host,
    // which a proxy may have rewritten): openid-client checks it against the redirect URI.
    const callbackUrl = new URL(issuer + OIDC_CALLBACK_PATH);
    for (const [name, value] of new URL(c.req.url).searchParams) callbackUrl.searchParams.append(name, value);
    let outcome: Outcome;
    try {
      const claims = await deps.oidcUpstreams.claimsFromCallback(idp, callbackUrl, sealed, pending);
      const settings = oidcConfigOf(idp);
      const identity = identityFromClaims(idp.id, claims, {
        userName: mappedClaim(claims, settings.usernameMapping),
        displayName: mappedClaim(claims, settings.displayNameMapping),
      });
      outcome = await signInWithIdentity(store, deps.instanceId, idp, found.orgId, identity);
    } catch (error) {
      if (error instanceof UpstreamError) return refuse(c, error.reason === 'refused' ? 401 : 502, error.message, { uid, idpId: idp.id, check: error.reason }, loginUrl(uid));
      if (error instanceof SignInRefused) return refuse(c, 403, error.message, { uid, idpId: idp.id }, loginUrl(uid));
      throw error;
    }
    return toCallback(c, uid, pending.agent, outcome);
  });

  // 2. The provider's proxy, with the JWT.
  app.get(JWT_AUTHORIZE_PATH, async (c) => {
    const uid = c.req.query('authRequestID') ?? '';
    const sealed = c.req.query('userAgentID') ?? '';
    if (!uid || !sealed || hasNul(uid)) return refuse(c, 400, 'The request lacks authRequestID or userAgentID. Start signing in at the application again.', {});
    const agentState = openUserAgent(secrets, sealed);
    if (!agentState || agentState.uid !== uid) {
      return refuse(c, 400, 'This sign-in link is invalid or has expired. Start signing in at the application again.', { uid });
    }
    const back = loginUrl(uid);
    const found = await attemptProvider(c, uid, agentState.idpId);
    if ('refusal' in found) return found.refusal;
    const idp: IdentityProvider = found.idp;
    if (isOidcIdp(idp)) return refuse(c, 400, 'The identity provider of this sign-in is not a JWT provider.', { uid, idpId: idp.id }, back);

    let outcome: Outcome;
    try {
      const token = tokenFromHeader((name) => c.req.header(name), idp.jwtHeaderName);
      const claims = await validateProviderToken(token, jwtConfigOf(idp), deps.providerKeys);
      outcome = await signInWithIdentity(store, deps.instanceId, idp, found.orgId, identityFromClaims(idp.id, claims));
    } catch (error) {
      if (error instanceof ExternalTokenError) {
        return refuse(c, error.reason === 'keys_unavailable' ? 502 : 401, error.message, { uid, idpId: idp.id, check: error.reason }, back);
      }
      if (error instanceof SignInRefused) return refuse(c, 403, error.message, { uid, idpId: idp.id }, back);
      throw error;
    }
    return toCallback(c, uid, agentState.agent, outcome);
  });

  /** The outcome sealed for this attempt in this very browser, else undefined. */
  function outcomeFor(c: Context, uid: string, sealed: string) {
    const cookie = getCookie(c, AGENT_COOKIE);
    const state = sealed ? openOutcome(secrets, sealed) : undefined;
    if (!cookie || !state || state.uid !== uid || state.agent !== agentOf(cookie)) return undefined;
    return state.outcome;
  }

  /** Signed in through the provider: a second factor the login policy forces for such sign-ins comes next (login-steps.ts). */
  async function complete(c: Context, uid: string, userId: string) {
    return afterFirstFactor(c, deps, uid, userId, 'provider', ['fed']);
  }

  // 3. Back in the browser that started.
  app.get('/ui/login/:uid/idp/callback', async (c) => {
    const uid = c.req.param('uid');
    const d = await interactionOf(provider, c, uid);
    if (!d || d.prompt.name !== 'login') return expiredPage(c);
    const sealed = c.req.query('state') ?? '';
    const outcome = outcomeFor(c, uid, sealed);
    if (!outcome) return refuse(c, 400, 'This sign-in result belongs to another browser or has expired. Start again from the sign-in page.', { uid }, loginUrl(uid));
    if (outcome.kind === 'signed-in') return complete(c, uid, outcome.userId);
    const idp = await identityProvider(store, outcome.identity.idpId);
    const look = await appLook(d);
    return c.html(linkPage({ uid, state: sealed, providerName: idp?.name ?? 'identity provider', externalUserName: outcome.identity.externalUserName, reason: outcome.reason, look }));
  });

  /** Whether the login policy asks a second factor (or its setup) of a user who gave the password to link an identity. */
  const secondFactorAfterLink = async (userId: string) => {
    const user = await store.read.users.get(userId);
    return user ? secondFactorStep(store.read, deps.instanceId, user, 'password-link') : 'none';
  };

  /** The link page wears the colours of the login page (the user is not known yet). */
  const appLook = async (d: NonNullable<Awaited<ReturnType<typeof interactionOf>>>) => signInLook(store.read, deps.instanceId, await appOf(store, d));

  // 4. Linking to an existing account.
  app.post('/ui/login/:uid/idp/link', async (c) => {
    const uid = c.req.param('uid');
    const d = await interactionOf(provider, c, uid);
    if (!d || d.prompt.name !== 'login') return expiredPage(c);
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const sealed = field('state');
    const outcome = outcomeFor(c, uid, sealed);
    if (!outcome || outcome.kind !== 'link') return refuse(c, 400, 'This link request belongs to another browser or has expired. Start again from the sign-in page.', { uid }, loginUrl(uid));
    const idp = await identityProvider(store, outcome.identity.idpId);
    if (!idp || idp.state !== 'IDP_STATE_ACTIVE') return refuse(c, 403, 'The identity provider is no longer active. Sign in another way.', { uid }, loginUrl(uid));
    const look = await appLook(d);
    const page = (error: string, status: 400 | 401 | 403 | 429 | 503, loginName = '') =>
      c.html(linkPage({ uid, state: sealed, providerName: idp.name, externalUserName: outcome.identity.externalUserName, reason: outcome.reason, loginName, error, look }), status);
    const loginName = field('loginName');
    const password = field('password');
    if (!loginName || !password || hasNul(loginName) || hasNul(password)) return page('Enter your login name and password.', 400, hasNul(loginName) ? '' : loginName);
    const check = await checkPasswordLogin(store, deps.instanceId, loginName, password, deps.passwordVerifier, clientAddress(c, deps.trustProxy));
    if (!check.ok) {
      if (check.reason === 'busy' || check.reason === 'throttled') c.header('Retry-After', '5');
      return page(FAILURE_TEXT[check.reason], FAILURE_STATUS[check.reason], loginName);
    }
    // The password alone does not sign in a user with an authenticator app (or who must change the
    // password): the link waits for those steps (login-steps.ts).
    if (check.otpRequired || check.passwordChangeRequired || (await secondFactorAfterLink(check.userId)) !== 'none') return afterPassword(c, deps, uid, check, outcome.identity);
    try {
      await linkIdentity(store, idp, outcome.identity, check.userId);
    } catch (error) {
      if (error instanceof SignInRefused) return page(error.message, 403, loginName);
      throw error;
    }
    return complete(c, uid, check.userId);
  });
}
