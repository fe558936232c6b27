/**
 * The authorization server's front door: every request for oidc-provider's paths enters here
 * (server.ts sends them), is logged (request-log.ts), and is either answered here or handed to
 * oidc-provider.
 *
 * The form-bearing machine endpoints — token, introspection, revocation, PAR — carry what this
 * service decides before the library does, in their form bodies. Such a form is read here, once
 * (form-request.ts: the library's limit and its 400), and what is decided is a function of its
 * parameters:
 * - the JWT-profile grant at the token endpoint (`isJwtProfileGrant`) is answered here
 *   (jwt-profile-grant.ts): it comes without the client authentication the library requires;
 * - a client assertion in the form (`presentedAssertion`) is judged as ZITADEL judges it and
 *   relayed (client-assertions.ts `withClientAssertion`): the library's own rules refuse what
 *   ZITADEL's libraries send;
 * - a JWT to introspect is set aside (introspection.ts `withJwtSetAside`): the library refuses
 *   JWTs, and the introspection middleware answers it after the library has authenticated the client.
 * The library then reads the resulting form from one replay of the request (`FormReplay`), which
 * carries the set-aside JWT. A form no rewrite can apply to — at revocation or PAR, a client that
 * authenticates with its Authorization header — and every other request reach the library as they came.
 */
import type Provider from 'oidc-provider';
import type { Logger } from '../log.js';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { clientAssertionJudge, presentedAssertion, withClientAssertion } from './client-assertions.js';
import type { OAuthClients } from './clients.js';
import { answerUnreadableForm, declaredWithinLimit, type Form, FormReplay, isForm, readForm, UNREADABLE_FORM } from './form-request.js';
import { withJwtSetAside } from './introspection.js';
import { advertiseJwtProfileGrant, isJwtProfileGrant, type JwtProfileGrantDeps, jwtProfileGrant } from './jwt-profile-grant.js';
import { refuseNulQuery } from './nul-guard.js';
import { ROUTES } from './provider.js';
import { answerUnknownOAuthPath, isKnownOAuthPath, logOAuthRequest, noteOAuthFailure, watchOAuthEvents } from './request-log.js';

/** The endpoints whose forms are read here; they speak JSON only. */
const FORM_ENDPOINTS: ReadonlySet<string> = new Set([ROUTES.token, ROUTES.introspection, ROUTES.revocation, ROUTES.pushed_authorization_request]);

/** Endpoints whose every form is read (a rewrite may apply whatever the client authentication). */
const ALWAYS_READ: ReadonlySet<string> = new Set([ROUTES.token, ROUTES.introspection]);

export interface FrontDoorDeps extends JwtProfileGrantDeps {
  /** The provider's clients (the same as createOidcProvider's). */
  clients: OAuthClients;
  logger?: Logger;
}

/** What oidc-provider reads in place of the form that arrived. */
interface Rewritten {
  body: Buffer;
  setAsideToken?: string;
}

/**
 * The front door of `provider`: a handler for every request to its paths. It adds the provider's
 * error events to the log and the JWT-profile grant to its discovery document (a `provider.use`),
 * then takes the provider's request handler (Koa composes the middleware registered until then).
 */
export function authorizationServerFrontDoor(provider: Provider, deps: FrontDoorDeps) {
  const { issuer, logger } = deps;
  watchOAuthEvents(provider, logger);
  advertiseJwtProfileGrant(provider);
  const oidc = provider.callback();
  const answerJwtProfile = jwtProfileGrant(deps);
  const judge = clientAssertionJudge({ issuer, tokenEndpoint: ROUTES.token, findClient: deps.clients.find, relay: deps.clients.relay });

  /** The form oidc-provider is to read for this one: each rewrite in turn; the same bytes when none applied. */
  async function rewritten(req: NodeRequest, path: string, form: Form): Promise<Rewritten> {
    let { params } = form;
    let setAsideToken: string | undefined;
    if (path === ROUTES.introspection) {
      const aside = withJwtSetAside(params);
      if (aside) ({ params, token: setAsideToken } = aside);
    }
    // With an Authorization header the client authenticates otherwise (the library refuses a mix).
    const presented = req.headers.authorization ? undefined : presentedAssertion(params);
    const judged = presented && (await judge(presented, path));
    if (judged !== undefined) params = withClientAssertion(params, judged);
    return { body: params === form.params ? form.body : Buffer.from(params.toString()), setAsideToken };
  }

  async function answerForm(req: NodeRequest, res: NodeResponse, path: string): Promise<void> {
    if (!isForm(req) || (!ALWAYS_READ.has(path) && req.headers.authorization)) return void oidc(req, res);
    const form = declaredWithinLimit(req) ? await readForm(req) : 'too-large';
    if (form === 'too-large') {
      noteOAuthFailure(res, { error: UNREADABLE_FORM.error, description: UNREADABLE_FORM.error_description });
      return answerUnreadableForm(res);
    }
    if (path === ROUTES.token && isJwtProfileGrant(form.params)) return answerJwtProfile(res, provider, form.params);
    const { body, setAsideToken } = await rewritten(req, path, form);
    void oidc(new FormReplay(req, body, setAsideToken), res);
  }

  return (req: NodeRequest, res: NodeResponse, path: string): void => {
    logOAuthRequest(logger, req, res, path);
    const formEndpoint = FORM_ENDPOINTS.has(path);
    // Machine endpoints speak JSON only: oidc-provider would render an HTML error page to a
    // caller whose Accept header prefers HTML (a browser, curl -H 'accept: text/html').
    if (formEndpoint) req.headers.accept = 'application/json';
    if (!isKnownOAuthPath(path)) answerUnknownOAuthPath(res);
    else if (refuseNulQuery(req, res, path)) return;
    else if (formEndpoint && req.method === 'POST') answerForm(req, res, path).catch(() => req.destroy());
    else void oidc(req, res);
  };
}
