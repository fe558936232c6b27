/**
 * One port for everything: the Hono API and login UI, and oidc-provider's endpoints, behind a
 * dispatcher on the path. The provider is a Koa app that must see the raw request (a body
 * parsed by Hono middleware first breaks client authentication), hence dispatching before Hono
 * rather than mounting it as a Hono route. main.ts and the end-to-end tests both use this.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type Provider from 'oidc-provider';
import { createApp, type App, type AppDeps } from './app.js';
import type { LockoutPolicy } from './domain/login/password-login.js';
import { accessTokenReader, oauthAccessTokenVerifier } from './oidc/access-tokens.js';
import { startPayloadSweeper } from './oidc/adapter.js';
import { loadOrCreateKeys } from './oidc/keys.js';
import { createOidcProvider, ROUTES } from './oidc/provider.js';

export interface ServerDeps extends Omit<AppDeps, 'oidc'> {
  /** The authorization server's issuer (EXTERNAL_URL): the base of every OAuth/OIDC URL. */
  issuer: string;
  lockout: LockoutPolicy;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-Proto/Host on provider routes. */
  trustProxy?: boolean;
}

export interface ServiceHandler {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  app: App;
  provider: Provider;
  /** Stops background work (expired-row sweeping). */
  stop: () => void;
}

/** Paths oidc-provider answers; everything else (and userinfo, see oidc-ui.ts) goes to Hono. */
function isProviderPath(path: string): boolean {
  if (path === ROUTES.userinfo) return false;
  return path.startsWith('/oauth/v2/') || path.startsWith('/oidc/v1/') || path === '/.well-known/openid-configuration' || path.startsWith('/.well-known/oauth-authorization-server');
}

export async function createRequestHandler(deps: ServerDeps): Promise<ServiceHandler> {
  const issuer = deps.issuer.replace(/\/+$/, '');
  const keys = await loadOrCreateKeys(deps.store);
  const provider = createOidcProvider({ store: deps.store, issuer, keys });
  if (deps.trustProxy) provider.proxy = true;
  const readAccessToken = accessTokenReader(provider, keys, issuer, deps.store);
  const app = createApp({
    ...deps,
    tokenVerifiers: [...(deps.tokenVerifiers ?? []), oauthAccessTokenVerifier(readAccessToken, deps.store)],
    oidc: { provider, store: deps.store, lockout: deps.lockout, readAccessToken, issuer },
  });
  const oidc = provider.callback();
  const hono = getRequestListener(app.fetch);
  const stop = startPayloadSweeper(deps.store);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (isProviderPath(path)) void oidc(req, res);
    else void hono(req, res);
  };
  return { handler, app, provider, stop };
}

/** A not-yet-listening HTTP server for the whole service. */
export async function createServer(deps: ServerDeps): Promise<ServiceHandler & { server: Server }> {
  const service = await createRequestHandler(deps);
  const server = createHttpServer(service.handler);
  server.on('close', service.stop);
  return { ...service, server };
}
