/**
 * The token endpoint's dispatch on the grant type: the JWT-profile grant is answered by this
 * service (jwt-profile-grant.ts), every other grant by oidc-provider, unchanged. The grant type is
 * in the form body, so the body is read here first; oidc-provider then gets a request of its own
 * carrying the same bytes (`replayRequest`), which it reads as it reads any request (a body
 * already read would make it fall back to `req.body`, with a warning). Bodies this does not
 * read — another content type, or a declared length above oidc-provider's own limit — go to
 * oidc-provider as they came, for it to answer as before.
 */
import { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { NodeRequest, NodeResponse } from '../http-server.js';
import { logAs } from './request-log.js';

/** oidc-provider's limit on a form body (lib/shared/selective_body.js). */
export const TOKEN_BODY_LIMIT = 56 * 1024;

export type TokenForm = { body: Buffer; params: URLSearchParams } | 'too-large' | 'unread';

const isForm = (req: NodeRequest) => /^application\/x-www-form-urlencoded(?:\s*;|$)/i.test(req.headers['content-type'] ?? '');

/** The form body and its parameters; 'unread' when left for oidc-provider, 'too-large' past the limit. */
export async function readTokenForm(req: NodeRequest): Promise<TokenForm> {
  const declared = req.headers['content-length'];
  if (!isForm(req) || (declared !== undefined && !(Number(declared) <= TOKEN_BODY_LIMIT))) return 'unread';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > TOKEN_BODY_LIMIT) return 'too-large';
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks, size);
  return { body, params: new URLSearchParams(body.toString('utf8')) };
}

/**
 * A request like `req` (same socket, method, URL and headers) whose body is `body`, for oidc-provider,
 * which reads it as any request's. A declared length is the new body's (oidc-provider checks it).
 */
export function replayRequest(req: NodeRequest, body: Buffer): IncomingMessage {
  // Over HTTP/2 the socket is the session's (a proxy): the replay only reads its address.
  const replay = new IncomingMessage(req.socket as Socket);
  replay.method = req.method;
  replay.url = req.url;
  const declared = req.headers['content-length'];
  replay.headers = declared === undefined || Number(declared) === body.length ? req.headers : { ...req.headers, 'content-length': String(body.length) };
  replay.rawHeaders = req.rawHeaders;
  replay.httpVersion = req.httpVersion;
  replay.httpVersionMajor = req.httpVersionMajor;
  replay.httpVersionMinor = req.httpVersionMinor;
  // Complete: once read it is destroyed (autoDestroy), and an incomplete IncomingMessage destroys its socket.
  replay.complete = true;
  replay.push(body);
  replay.push(null);
  logAs(replay, req);
  return replay;
}

/** OAuth's answer to a body past the limit, as oidc-provider gives it. */
export function answerTooLarge(res: NodeResponse): void {
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error: 'invalid_request', error_description: 'failed to parse the request body' }));
}
