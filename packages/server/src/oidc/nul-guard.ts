/**
 * U+0000 in OAuth parameters. PostgreSQL cannot keep it in text or jsonb, so a NUL-bearing client
 * id, nonce or state once reached the store and answered 500 — unauthenticated. No legitimate
 * parameter holds one, so it is refused as `invalid_request` where it enters: in the query before
 * oidc-provider sees the request, and in the storage adapter for what arrives in form bodies (a
 * lookup by such a key finds nothing; a payload holding one is refused).
 */

import { errors } from 'oidc-provider';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { messagePage } from '../ui/pages.js';

export const NUL_MESSAGE = 'request parameters must not contain NUL characters';

const IGNORES_QUERY = /^\/\.well-known\/|^\/oauth\/v2\/keys$|^\/oidc\/v1\/end_session\/success$/;

/** Endpoints a browser is sent to: their errors are pages, as the spec documents. */
const BROWSER_ENDPOINTS = /^\/oauth\/v2\/authorize$|^\/oidc\/v1\/end_session/;

/**
 * Answers 400 for a query string holding an encoded NUL (`invalid_request` in OAuth's JSON body,
 * or a page for the browser endpoints); true when it did.
 */
export function refuseNulQuery(req: NodeRequest, res: NodeResponse, path: string): boolean {
  // Endpoints that read no parameters (discovery, keys, the signed-out page) ignore the query.
  if (IGNORES_QUERY.test(path)) return false;
  const url = req.url ?? '';
  const query = url.indexOf('?');
  if (query < 0 || !/%00/i.test(url.slice(query))) return false;
  if (BROWSER_ENDPOINTS.test(path)) {
    res.writeHead(400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(messagePage('This sign-in request is not valid', `invalid_request: ${NUL_MESSAGE}. Go back to the application and start signing in again.`));
    return true;
  }
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error: 'invalid_request', error_description: NUL_MESSAGE }));
  return true;
}

/** Thrown by the adapter inside oidc-provider's request chain, which answers it as OAuth's 400. */
export function nulPayloadError(): Error {
  return new errors.InvalidRequest(NUL_MESSAGE);
}
