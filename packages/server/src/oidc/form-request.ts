/**
 * Reading an OAuth form once and handing oidc-provider the same request again (front-door.ts
 * decides what is read and what is rewritten; this module only reads and replays).
 *
 * oidc-provider reads a form body itself, from the request's stream, and there is no way to give it
 * parameters instead: a stream already consumed makes it fall back to `req.body` with a warning in
 * the service's log ("already parsed request body detected"). So a request whose form was read here
 * reaches it as a `FormReplay`: the same socket, method, URL and headers, and a body of the bytes
 * decided on — read from its stream like any request's. Its limit is the library's own, so a body
 * it would refuse is refused here with its answer.
 */
import { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';

/** oidc-provider's limit on a form body (lib/shared/selective_body.js). */
export const FORM_BODY_LIMIT = 56 * 1024;

/** The answer oidc-provider gives to a form it cannot read, and its OAuth error for the log. */
export const UNREADABLE_FORM = { error: 'invalid_request', error_description: 'failed to parse the request body' } as const;

export type Form = { body: Buffer; params: URLSearchParams };

export function isForm(req: NodeRequest): boolean {
  return /^application\/x-www-form-urlencoded(?:\s*;|$)/i.test(req.headers['content-type'] ?? '');
}

/** Whether the declared length (if any) is within the limit: past it the body is not read at all. */
export function declaredWithinLimit(req: NodeRequest): boolean {
  const declared = req.headers['content-length'];
  return declared === undefined || Number(declared) <= FORM_BODY_LIMIT;
}

/**
 * The form body and its parameters; 'too-large' as soon as more than the limit has arrived. Read
 * with listeners rather than an async iterator, which costs a promise and a tick per chunk on
 * every token and introspection request; the listeners are inline and stay (once settled they
 * ignore what follows): a named closure per request costs its naming where tsx runs the sources.
 * A request left at the limit is paused, not destroyed: an unfinished request's destruction takes
 * its socket, and with it the 400 that answers it (node drains the rest once it is answered).
 */
export function readForm(req: NodeRequest): Promise<Form | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= FORM_BODY_LIMIT) return void chunks.push(chunk);
      settled = true;
      req.pause();
      resolve('too-large');
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      resolve({ body, params: new URLSearchParams(body.toString('utf8')) });
    });
    // Closed before its end: the client is gone (node also says so with an 'error').
    req.on('error', (error: Error) => {
      if (!settled) reject(error);
      settled = true;
    });
    req.on('close', () => {
      if (!settled) reject(new Error('the request closed before its body was read'));
      settled = true;
    });
  });
}

/** OAuth's answer to a body past the limit, as oidc-provider gives it (400, no-store). */
export function answerUnreadableForm(res: NodeResponse): void {
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(UNREADABLE_FORM));
}

/**
 * A request like `req` whose body is `body`, for oidc-provider, which reads it as any request's.
 * A declared length is the new body's (oidc-provider checks it). `setAsideToken`: a token the form
 * carried that oidc-provider is not to see (introspection.ts), for the middleware that answers it.
 */
export class FormReplay extends IncomingMessage {
  constructor(
    req: NodeRequest,
    body: Buffer,
    readonly setAsideToken?: string,
  ) {
    // Over HTTP/2 the socket is the session's (a proxy): the replay only reads its address.
    super(req.socket as Socket);
    this.method = req.method;
    this.url = req.url;
    const declared = req.headers['content-length'];
    this.headers = declared === undefined || Number(declared) === body.length ? req.headers : { ...req.headers, 'content-length': String(body.length) };
    this.rawHeaders = req.rawHeaders;
    this.httpVersion = req.httpVersion;
    this.httpVersionMajor = req.httpVersionMajor;
    this.httpVersionMinor = req.httpVersionMinor;
    // Complete: once read it is destroyed (autoDestroy), and an incomplete IncomingMessage destroys its socket.
    this.complete = true;
    this.push(body);
    this.push(null);
  }
}

/** The token set aside for the request oidc-provider is handling, if any. */
export function setAsideTokenOf(req: unknown): string | undefined {
  return req instanceof FormReplay ? req.setAsideToken : undefined;
}
