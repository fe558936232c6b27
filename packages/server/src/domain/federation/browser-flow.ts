/**
 * Signing in through an identity provider, step by step as the browser (and the provider's proxy)
 * arrives — ZITADEL's JWT IdP flow (`internal/api/ui/login/jwt_handler.go`) and its OIDC one. Each
 * step is one function returning a login outcome (login/flow.ts); the routes are
 * http/routes/login-federation.ts.
 *
 * 1. The provider's button (`startProviderSignIn`): the browser gets an HttpOnly cookie with a
 *    random value and is sent to the provider — a JWT provider's `jwtEndpoint` with `authRequestID`
 *    (the sign-in attempt) and `userAgentID` (sealed: attempt, provider, hash of the cookie;
 *    browser-state.ts), an OIDC provider's authorization endpoint (oidc-upstream.ts) with a sealed
 *    `state` (the same, plus the PKCE verifier and the nonce).
 * 2. The provider's answer: the JWT through the provider's proxy (`jwtFromProxy`), or the upstream
 *    issuer's code (`oidcCallback`). The token is validated and the identity signed in, registered
 *    or sent on to linking (sign-in.ts); the browser is redirected to step 3 on this service's own
 *    origin with the outcome sealed. These requests carry no cookie of the attempt (the proxy's
 *    has none; the OIDC callback's path is not the attempt's): only sealed values tie them to it.
 * 3. Back in the browser that started (`providerCallback`), proven by the cookie: the sign-in goes
 *    on to the steps the login policy still asks (login/steps.ts), or the link page shows.
 * 4. Linking to an existing account (`linkWithPassword`): its password links the identity.
 * Every refusal is a page saying why and what to do next, and a log line.
 */

import { isOidcIdp, jwtConfigOf, oidcConfigOf } from '../idps/idp.js';
import { attemptApp, type CookieChange, FAILURE_STATUS, FAILURE_TEXT, failureRetryAfter, type LoginDeps, type LoginOutcome, loginUrl, type SignInAttempt, showPage } from '../login/flow.js';
import { signInLook } from '../login/page-look.js';
import { checkPasswordLogin } from '../login/password-login.js';
import { secondFactorStep } from '../login/second-factor.js';
import { signInApp } from '../login/sign-in-app.js';
import { afterFirstFactor, afterPassword } from '../login/steps.js';
import { hasNul } from '../unstorable-text.js';
import { AGENT_COOKIE, agentOf, newAgentSecret, type Outcome, openOidcState, openOutcome, openUserAgent, STATE_TTL_MS, sealOidcState, sealOutcome, sealUserAgent } from './browser-state.js';
import { ExternalTokenError, tokenFromHeader, validateProviderToken } from './jwt-token.js';
import { mappedClaim, OIDC_CALLBACK_PATH, UpstreamError } from './oidc-upstream.js';
import { type IdentityProvider, identityProvider } from './providers.js';
import { identityFromClaims, linkIdentity, providersFor, SignInRefused, signInWithIdentity } from './sign-in.js';

/** The client id of a sign-in attempt, found by its id (oidc-provider's interaction), if it still exists. */
export type AttemptLookup = (uid: string) => Promise<{ clientId: string } | undefined>;

type RefusalStatus = 400 | 401 | 403 | 502;

/** The page saying why, with the way back to the login page when there is one, and the log line. */
function refused(status: RefusalStatus, message: string, details: Record<string, unknown>, backTo?: string): LoginOutcome {
  return { refusal: { message, backTo }, status, log: { level: 'warn', message: 'sign-in through an identity provider refused', fields: { reason: message, ...details } } };
}

const issuerOf = (deps: LoginDeps) => deps.issuer.replace(/\/+$/, '');

/** 1. The provider's button on the login page. */
export async function startProviderSignIn(deps: LoginDeps, attempt: SignInAttempt, idpId: string): Promise<LoginOutcome> {
  const { uid } = attempt;
  const app = await attemptApp(deps, attempt);
  const idp = app && idpId ? (await providersFor(deps.store, app.orgId, deps.instanceId)).find((p) => p.id === idpId) : undefined;
  if (!idp) return refused(400, 'This identity provider is not offered for this sign-in (it may have been deactivated or removed).', { uid, idpId }, loginUrl(deps, uid));
  const secret = newAgentSecret();
  const cookies: CookieChange[] = [{ name: AGENT_COOKIE, path: `/ui/login/${uid}`, value: secret, maxAgeSeconds: STATE_TTL_MS / 1000 }];
  if (isOidcIdp(idp)) {
    try {
      const to = await deps.oidcUpstreams.authorizationUrl(idp, issuerOf(deps) + OIDC_CALLBACK_PATH, (pending) =>
        sealOidcState(deps.secrets, { uid, idpId: idp.id, agent: agentOf(secret), ...pending }),
      );
      return { redirect: to.href, status: 303, cookies };
    } catch (error) {
      if (error instanceof UpstreamError) return { ...refused(502, error.message, { uid, idpId: idp.id, check: error.reason }, loginUrl(deps, uid)), cookies };
      throw error;
    }
  }
  const to = new URL(idp.jwtEndpoint);
  to.searchParams.set('authRequestID', uid);
  to.searchParams.set('userAgentID', sealUserAgent(deps.secrets, { uid, idpId: idp.id, agent: agentOf(secret) }));
  return { redirect: to.href, status: 303, cookies };
}

/**
 * The provider of an attempt, if the attempt still exists and the provider is offered to its
 * application and active; otherwise the refusal.
 */
async function attemptProvider(deps: LoginDeps, findAttempt: AttemptLookup, uid: string, idpId: string): Promise<{ idp: IdentityProvider; orgId: string } | { refusal: LoginOutcome }> {
  const back = loginUrl(deps, uid);
  const attempt = await findAttempt(uid);
  if (!attempt) return { refusal: refused(400, 'This sign-in attempt has expired. Start signing in at the application again.', { uid }) };
  const app = await signInApp(deps.store, attempt.clientId);
  const idp = await identityProvider(deps.store, idpId);
  const offered = app && idp && [app.orgId, deps.instanceId].includes(idp.ownerId);
  if (!idp || !offered) return { refusal: refused(400, 'The identity provider of this sign-in no longer exists.', { uid, idpId }, back) };
  if (idp.state !== 'IDP_STATE_ACTIVE')
    return { refusal: refused(403, `The identity provider "${idp.name}" is deactivated. Sign in another way or ask an administrator.`, { uid, idpId: idp.id }, back) };
  return { idp, orgId: app.orgId };
}

/** Hands the outcome to step 3, in the browser that started (sealed for its cookie). */
function toCallback(deps: LoginDeps, uid: string, agent: string, outcome: Outcome): LoginOutcome {
  const to = new URL(`${loginUrl(deps, uid)}/idp/callback`);
  to.searchParams.set('state', sealOutcome(deps.secrets, { uid, agent, outcome }));
  return { redirect: to.href, status: 302 };
}

/** The identity signed in (or registered, or sent on to linking), or why not. */
async function signIn(
  deps: LoginDeps,
  uid: string,
  agent: string,
  found: { idp: IdentityProvider; orgId: string },
  claims: () => Promise<Parameters<typeof identityFromClaims>>,
): Promise<LoginOutcome> {
  const { idp } = found;
  let outcome: Outcome;
  try {
    outcome = await signInWithIdentity(deps.store, deps.instanceId, idp, found.orgId, identityFromClaims(...(await claims())));
  } catch (error) {
    const details = { uid, idpId: idp.id };
    if (error instanceof UpstreamError) return refused(error.reason === 'refused' ? 401 : 502, error.message, { ...details, check: error.reason }, loginUrl(deps, uid));
    if (error instanceof ExternalTokenError) return refused(error.reason === 'keys_unavailable' ? 502 : 401, error.message, { ...details, check: error.reason }, loginUrl(deps, uid));
    if (error instanceof SignInRefused) return refused(403, error.message, details, loginUrl(deps, uid));
    throw error;
  }
  return toCallback(deps, uid, agent, outcome);
}

/** What the upstream issuer sent back to the OIDC callback (its query). */
export interface OidcCallbackQuery {
  state: string;
  code?: string;
  error?: string;
  errorDescription?: string;
  /** Every parameter as sent, for the code's exchange. */
  params: URLSearchParams;
}

/** 2 (OIDC). The upstream issuer sends the browser back with a code (or an error). */
export async function oidcCallback(deps: LoginDeps, findAttempt: AttemptLookup, query: OidcCallbackQuery): Promise<LoginOutcome> {
  const sealed = query.state;
  const pending = sealed && !hasNul(sealed) ? openOidcState(deps.secrets, sealed) : undefined;
  if (!pending) return refused(400, 'This answer of an identity provider is invalid or has expired. Start signing in at the application again.', {});
  const { uid } = pending;
  const found = await attemptProvider(deps, findAttempt, uid, pending.idpId);
  if ('refusal' in found) return found.refusal;
  const { idp } = found;
  const back = loginUrl(deps, uid);
  if (!isOidcIdp(idp)) return refused(400, 'The identity provider of this sign-in changed its kind. Start again from the sign-in page.', { uid, idpId: idp.id }, back);
  if (query.error) {
    const why = `${query.error}${query.errorDescription ? `: ${query.errorDescription}` : ''}`.slice(0, 300);
    return refused(403, `"${idp.name}" did not sign you in (${why}). Try again, or sign in another way.`, { uid, idpId: idp.id, upstreamError: query.error }, back);
  }
  if (!query.code) return refused(400, 'The identity provider\u2019s answer has neither a code nor an error. Start again from the sign-in page.', { uid, idpId: idp.id }, back);
  // The URL the upstream redirected to, on this service's own issuer (not the request's host,
  // which a proxy may have rewritten): openid-client checks it against the redirect URI.
  const callbackUrl = new URL(issuerOf(deps) + OIDC_CALLBACK_PATH);
  for (const [name, value] of query.params) callbackUrl.searchParams.append(name, value);
  return signIn(deps, uid, pending.agent, found, async () => {
    const claims = await deps.oidcUpstreams.claimsFromCallback(idp, callbackUrl, sealed, pending);
    const settings = oidcConfigOf(idp);
    return [idp.id, claims, { userName: mappedClaim(claims, settings.usernameMapping), displayName: mappedClaim(claims, settings.displayNameMapping) }];
  });
}

/** 2 (JWT). The provider's proxy forwards the browser's request with the JWT in the configured header. */
export async function jwtFromProxy(
  deps: LoginDeps,
  findAttempt: AttemptLookup,
  request: { authRequestId: string; userAgentId: string; header: (name: string) => string | undefined },
): Promise<LoginOutcome> {
  const uid = request.authRequestId;
  const sealed = request.userAgentId;
  if (!uid || !sealed || hasNul(uid)) return refused(400, 'The request lacks authRequestID or userAgentID. Start signing in at the application again.', {});
  const agentState = openUserAgent(deps.secrets, sealed);
  if (!agentState || agentState.uid !== uid) return refused(400, 'This sign-in link is invalid or has expired. Start signing in at the application again.', { uid });
  const found = await attemptProvider(deps, findAttempt, uid, agentState.idpId);
  if ('refusal' in found) return found.refusal;
  const { idp } = found;
  if (isOidcIdp(idp)) return refused(400, 'The identity provider of this sign-in is not a JWT provider.', { uid, idpId: idp.id }, loginUrl(deps, uid));
  return signIn(deps, uid, agentState.agent, found, async () => {
    const token = tokenFromHeader(request.header, idp.jwtHeaderName);
    return [idp.id, await validateProviderToken(token, jwtConfigOf(idp), deps.providerKeys)];
  });
}

/** The outcome sealed for this attempt in this very browser (its agent cookie), else undefined. */
function outcomeFor(deps: LoginDeps, uid: string, sealed: string, agentCookie: string | undefined): Outcome | undefined {
  const state = sealed ? openOutcome(deps.secrets, sealed) : undefined;
  if (!agentCookie || !state || state.uid !== uid || state.agent !== agentOf(agentCookie)) return undefined;
  return state.outcome;
}

/** The link page wears the colours of the login page (the user is not known yet). */
const linkPageLook = async (deps: LoginDeps, attempt: SignInAttempt) => signInLook(deps.store.read, deps.instanceId, await attemptApp(deps, attempt));

/** 3. Back in the browser that started: signed in (a second factor the login policy forces for such sign-ins comes next), or the link page. */
export async function providerCallback(deps: LoginDeps, attempt: SignInAttempt, sealed: string, agentCookie: string | undefined): Promise<LoginOutcome> {
  const { uid } = attempt;
  const outcome = outcomeFor(deps, uid, sealed, agentCookie);
  if (!outcome) return refused(400, 'This sign-in result belongs to another browser or has expired. Start again from the sign-in page.', { uid }, loginUrl(deps, uid));
  if (outcome.kind === 'signed-in') return afterFirstFactor(deps, attempt, { id: outcome.userId }, 'provider', ['fed']);
  const idp = await identityProvider(deps.store, outcome.identity.idpId);
  const look = await linkPageLook(deps, attempt);
  const { externalUserName } = outcome.identity;
  return showPage({ name: 'link', uid, state: sealed, providerName: idp?.name ?? 'identity provider', externalUserName, reason: outcome.reason, look });
}

/** The link form as sent. */
export interface LinkForm {
  state: string;
  loginName: string;
  password: string;
}

/** 4. Linking to an existing account: its password (and the steps it owes) link the identity. */
export async function linkWithPassword(deps: LoginDeps, attempt: SignInAttempt, form: LinkForm, agentCookie: string | undefined, clientAddress?: string): Promise<LoginOutcome> {
  const { uid } = attempt;
  const outcome = outcomeFor(deps, uid, form.state, agentCookie);
  if (!outcome || outcome.kind !== 'link') return refused(400, 'This link request belongs to another browser or has expired. Start again from the sign-in page.', { uid }, loginUrl(deps, uid));
  const idp = await identityProvider(deps.store, outcome.identity.idpId);
  if (!idp || idp.state !== 'IDP_STATE_ACTIVE') return refused(403, 'The identity provider is no longer active. Sign in another way.', { uid }, loginUrl(deps, uid));
  const look = await linkPageLook(deps, attempt);
  const { externalUserName } = outcome.identity;
  const again = (error: string, status: 400 | 401 | 403 | 429 | 503, loginName = '', retryAfterSeconds?: number) =>
    showPage({ name: 'link', uid, state: form.state, providerName: idp.name, externalUserName, reason: outcome.reason, loginName, error, look }, status, retryAfterSeconds);
  const { loginName, password } = form;
  if (!loginName || !password || hasNul(loginName) || hasNul(password)) return again('Enter your login name and password.', 400, hasNul(loginName) ? '' : loginName);
  const check = await checkPasswordLogin(deps.store, deps.instanceId, loginName, password, deps.passwordVerifier, clientAddress);
  if (!check.ok) return again(FAILURE_TEXT[check.reason], FAILURE_STATUS[check.reason], loginName, failureRetryAfter(check.reason));
  // The password alone does not sign in a user with an authenticator app (or who must change the
  // password, or owes the second factor the login policy asks): the link waits for those steps.
  const owesSteps =
    check.otpRequired ||
    check.passwordChangeRequired ||
    (await secondFactorStep(deps.store.read, deps.instanceId, { id: check.userId, orgId: check.orgId }, 'password-link', { hasApp: false })) !== 'none';
  if (owesSteps) return afterPassword(deps, attempt, check, outcome.identity);
  try {
    await linkIdentity(deps.store, idp, outcome.identity, check.userId);
  } catch (error) {
    if (error instanceof SignInRefused) return again(error.message, 403, loginName);
    throw error;
  }
  return afterFirstFactor(deps, attempt, { id: check.userId, orgId: check.orgId, hasApp: false }, 'provider', ['fed']);
}
