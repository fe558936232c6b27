/**
 * Signing in through an identity provider (JWT or OIDC), as browser endpoints beside the login
 * page; the flow, step by step, is domain/federation/browser-flow.ts:
 * 1. `POST /ui/login/{uid}/idp`: the provider's button;
 * 2. `GET /ui/login/login/jwt/authorize` (ZITADEL's path, so proxies set up for ZITADEL work): the
 *    provider's proxy with the JWT; `GET /ui/login/login/externalidp/callback` (ZITADEL's path): an
 *    OIDC provider's answer. Neither carries the attempt's cookie, so the attempt is found by its id;
 * 3. `GET /ui/login/{uid}/idp/callback`: back in the browser that started;
 * 4. `POST /ui/login/{uid}/idp/link`: an existing account's password links the identity.
 */
import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { type AttemptLookup, jwtFromProxy, linkWithPassword, oidcCallback, providerCallback, startProviderSignIn } from '../../domain/federation/browser-flow.js';
import { AGENT_COOKIE } from '../../domain/federation/browser-state.js';
import { OIDC_CALLBACK_PATH } from '../../domain/federation/oidc-upstream.js';
import { clientAddress } from '../client-address.js';
import type { AppEnv } from '../env.js';
import { answer, forAttempt, formOf, type OidcRouteDeps } from './login-flow.js';

/** ZITADEL's path of the JWT endpoint the provider's proxy forwards to. */
export const JWT_AUTHORIZE_PATH = '/ui/login/login/jwt/authorize';

export function registerFederationRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  // The provider's requests come without the browser's cookies: the attempt is looked up by its id.
  const findAttempt: AttemptLookup = async (uid) => {
    const interaction = await deps.provider.Interaction.find(uid);
    return interaction ? { clientId: String(interaction.params.client_id ?? '') } : undefined;
  };

  app.post(
    '/ui/login/:uid/idp',
    forAttempt(deps, async (attempt, c) => startProviderSignIn(deps, attempt, (await formOf(c))?.idpId ?? '')),
  );

  app.get(OIDC_CALLBACK_PATH, async (c) => {
    const query = { state: c.req.query('state') ?? '', code: c.req.query('code'), error: c.req.query('error'), errorDescription: c.req.query('error_description') };
    return answer(c, await oidcCallback(deps, findAttempt, { ...query, params: new URL(c.req.url).searchParams }), deps);
  });

  app.get(JWT_AUTHORIZE_PATH, async (c) => {
    const request = { authRequestId: c.req.query('authRequestID') ?? '', userAgentId: c.req.query('userAgentID') ?? '', header: (name: string) => c.req.header(name) };
    return answer(c, await jwtFromProxy(deps, findAttempt, request), deps);
  });

  app.get(
    '/ui/login/:uid/idp/callback',
    forAttempt(deps, (attempt, c) => providerCallback(deps, attempt, c.req.query('state') ?? '', getCookie(c, AGENT_COOKIE))),
  );

  app.post(
    '/ui/login/:uid/idp/link',
    forAttempt(deps, async (attempt, c) => {
      const form = (await formOf(c)) ?? {};
      const link = { state: form.state ?? '', loginName: form.loginName ?? '', password: form.password ?? '' };
      return linkWithPassword(deps, attempt, link, getCookie(c, AGENT_COOKIE), clientAddress(c, deps.trustProxy));
    }),
  );
}
