/**
 * The authorization server in the log. oidc-provider answers its endpoints itself, outside the
 * Hono middleware that logs API requests, so they are logged here: one line per request in the
 * API's format (method, path, status, duration — never a query string or body, which hold codes,
 * tokens and secrets), with the OAuth error and its description when the request failed (what a
 * failed client authentication needs to be diagnosed). At `debug`, each issued grant is logged
 * with its client, grant type and scopes.
 */

import type Provider from 'oidc-provider';
import type { Logger } from '../log.js';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { ROUTES } from './provider.js';

interface OAuthFailure {
  error: string;
  description?: string;
  clientId?: string;
}

/**
 * Failures by the response they answer: a request the front door read reaches oidc-provider as a
 * replay (form-request.ts), but with the response that arrived, which the log line is written for.
 */
const failures = new WeakMap<NodeResponse, OAuthFailure>();

/** A failure answered outside oidc-provider (the front door, the JWT-profile grant), for the request's log line. */
export function noteOAuthFailure(res: NodeResponse, failure: OAuthFailure): void {
  failures.set(res, failure);
}

type EventContext = { res: NodeResponse; oidc?: { client?: { clientId?: string }; params?: Record<string, unknown> } };
type EventError = { error?: string; error_description?: string; message?: string };

const ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'introspection.error',
  'revocation.error',
  'pushed_authorization_request.error',
  'end_session.error',
  'jwks.error',
  'discovery.error',
  'server_error',
] as const;

/** Remembers each failed request's OAuth error, for its log line. */
export function watchOAuthEvents(provider: Provider, logger: Logger | undefined): void {
  for (const event of ERROR_EVENTS) {
    // The typings list each event with its own signature; these all pass (ctx, error).
    (provider as unknown as { on(e: string, f: (ctx: EventContext, err: EventError) => void): void }).on(event, (ctx, err) => {
      failures.set(ctx.res, {
        error: err.error ?? 'server_error',
        description: err.error_description ?? (event === 'server_error' ? err.message : undefined),
        clientId: ctx.oidc?.client?.clientId,
      });
    });
  }
  (provider as unknown as { on(e: string, f: (ctx: EventContext) => void): void }).on('grant.success', (ctx) => {
    const params = ctx.oidc?.params ?? {};
    logger?.debug('oauth grant issued', { clientId: ctx.oidc?.client?.clientId, grantType: params.grant_type, scope: params.scope });
  });
}

/** One log line when the response is done. */
export function logOAuthRequest(logger: Logger | undefined, req: NodeRequest, res: NodeResponse, path: string): void {
  if (!logger) return;
  const started = performance.now();
  res.once('finish', () => {
    const failure = failures.get(res);
    const fields = {
      method: req.method,
      path,
      status: res.statusCode,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ...(failure ? { error: failure.error, errorDescription: failure.description, clientId: failure.clientId } : {}),
    };
    if (res.statusCode >= 500) logger.error('oauth request', fields);
    else if (failure) logger.warn('oauth request', fields);
    else logger.info('oauth request', fields);
  });
}

const KNOWN = new Set<string>([
  ...Object.values(ROUTES),
  `${ROUTES.end_session}/confirm`,
  `${ROUTES.end_session}/success`,
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
]);

/** Whether oidc-provider serves this path (else it would answer a plain-text `Not Found`). */
export function isKnownOAuthPath(path: string): boolean {
  return KNOWN.has(path) || path.startsWith(`${ROUTES.authorization}/`);
}

/** OAuth's error body for a path under the authorization server's prefixes that is no endpoint. */
export function answerUnknownOAuthPath(res: NodeResponse): void {
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error: 'invalid_request', error_description: 'no such endpoint of the authorization server (see /.well-known/openid-configuration)' }));
}
