/**
 * HTTP/2 over plaintext (h2c, prior knowledge) for the connections the listener found to open
 * with the HTTP/2 preface (protocol-sniff.ts). The requests reach the same handler as HTTP/1.1
 * ones, through node's compatibility API (Http2ServerRequest/Response), under the same bounds:
 *
 * - a session that opens no stream within `headersTimeoutMs` of its connection, or stays without
 *   one for `keepAliveTimeoutMs`, is closed (GOAWAY). This counts streams, not frames: PINGs or
 *   SETTINGS do not keep a session open;
 * - a stream whose request (headers and body) has not arrived within `requestTimeoutMs` of its
 *   opening is answered 408 in the error body and reset (NO_ERROR, RFC 9113 §8.1), or only reset
 *   (CANCEL) when its response has begun;
 * - a header list over MAX_HEADER_BYTES → 431 in the error body (node itself resets the stream,
 *   ENHANCE_YOUR_CALM, only beyond its own 64 KiB, what keeps such a list out of memory);
 * - at most MAX_CONCURRENT_STREAMS streams at once per session (node's default is unlimited).
 *   Node's other defaults stay: 10 MB of memory per session, 10 unanswered PINGs, 32 settings
 *   per SETTINGS frame, 1000 invalid frames and 100 refused streams (rapid reset) per session;
 *   past them node ends the session.
 *
 * A session counts as one connection for the caps (the listener applies them to the socket).
 * What node refuses in a session (a protocol error, a flood) ends that session only, logged as
 * 'request refused before routing'.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  constants,
  createServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Socket } from 'node:net';
import { errorBody } from './http/errors.js';
import { MAX_HEADER_BYTES, refusal } from './http-refusals.js';
import type { Logger } from './log.js';

export type NodeRequest = IncomingMessage | Http2ServerRequest;
export type NodeResponse = ServerResponse | Http2ServerResponse;

/** Streams one session may have open at once; a client opens more on further sessions. */
export const MAX_CONCURRENT_STREAMS = 100;

export interface SessionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

interface OpenSession {
  socket: Socket;
  streams: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * How long a peer may keep a connection open after the server has ended its side (after a
 * GOAWAY, or a refusal's answer). Node ends an HTTP/2 session's socket and waits for the peer to
 * close its own; one that never does would hold its place under the caps for ever.
 */
export const LINGER_MS = 1_000;

/** Destroys `socket` once it has been ended (by whoever) and the peer has not closed within LINGER_MS. */
export function destroyWhenLingering(socket: Socket): void {
  socket.once('finish', () => {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

export class H2cSessions {
  readonly #server: Http2Server;
  readonly #sessions = new Map<ServerHttp2Session, OpenSession>();
  readonly #limits: SessionLimits;
  readonly #logger?: Logger;
  /** The connection being accepted and its headers deadline (the 'session' event is synchronous). */
  #accepting?: { socket: Socket; headersDeadline: number };

  constructor(handler: (req: Http2ServerRequest, res: Http2ServerResponse) => void, limits: SessionLimits, logger?: Logger) {
    this.#limits = limits;
    this.#logger = logger;
    this.#server = createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } }, (req, res) => {
      if (headerListSize(req.rawHeaders) > MAX_HEADER_BYTES) return this.#refuseHeaders(req, res);
      // HTTP/2 ends a body in its framing, so a request often declares no length; code written
      // for HTTP/1.1 (type-is, under oidc-provider's Koa) takes a request with neither
      // content-length nor transfer-encoding to have no body at all, and refused such a token
      // request as having no form body. Only this in-memory view is marked; Hono reads the raw
      // headers.
      if (!req.stream.endAfterHeaders && req.headers['content-length'] === undefined) req.headers['transfer-encoding'] = 'chunked';
      handler(req, res);
    });
    this.#server.on('session', (session: ServerHttp2Session) => this.#watch(session, this.#accepting!.socket, this.#accepting!.headersDeadline));
    this.#server.on('sessionError', (error: Error & { code?: string }, session: ServerHttp2Session) => {
      // Nothing of the request is logged: it may be an attack's garbage, or carry a token.
      this.#logger?.info('request refused before routing', { protocol: 'h2', reason: error.code ?? 'unknown', remoteAddress: session.socket?.remoteAddress });
    });
  }

  /**
   * Takes a connection that opened with the preface (already read back into it); it must open a
   * stream by `headersDeadline` (a Date.now() time).
   */
  accept(socket: Socket, headersDeadline: number): void {
    destroyWhenLingering(socket);
    this.#accepting = { socket, headersDeadline };
    this.#server.emit('connection', socket);
    this.#accepting = undefined;
  }

  /** GOAWAY to every session: streams open now finish, no new ones start; each then closes. */
  closeGracefully(): void {
    for (const session of this.#sessions.keys()) session.close();
  }

  /** GOAWAY to the sessions without an open stream (they close at once). */
  closeIdle(): void {
    for (const [session, open] of this.#sessions) if (open.streams === 0) session.close();
  }

  /** Ends every session now, streams and all, and its connection (even one closing gracefully). */
  destroyAll(): void {
    for (const [session, open] of this.#sessions) {
      session.destroy();
      open.socket.destroy();
    }
  }

  #watch(session: ServerHttp2Session, socket: Socket, headersDeadline: number): void {
    const open: OpenSession = { socket, streams: 0 };
    this.#sessions.set(session, open);
    const closeIdle = () => {
      if (!session.closed && !session.destroyed) session.close();
    };
    open.idleTimer = setTimeout(closeIdle, Math.max(0, headersDeadline - Date.now()));
    session.on('stream', (stream: ServerHttp2Stream) => {
      open.streams++;
      clearTimeout(open.idleTimer);
      const requestTimer = setTimeout(() => this.#refuseSlowRequest(stream, session), this.#limits.requestTimeoutMs);
      stream.once('close', () => {
        clearTimeout(requestTimer);
        if (--open.streams === 0 && !session.closed && !session.destroyed) open.idleTimer = setTimeout(closeIdle, this.#limits.keepAliveTimeoutMs);
      });
    });
    session.once('close', () => {
      clearTimeout(open.idleTimer);
      this.#sessions.delete(session);
    });
  }

  /** Its time is up: unless the request has arrived whole (the peer ended its side), 408 or reset. */
  #refuseSlowRequest(stream: ServerHttp2Stream, session: ServerHttp2Session): void {
    if (stream.destroyed) return;
    const state = stream.state.state;
    if (state === constants.NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE || state === constants.NGHTTP2_STREAM_STATE_CLOSED) return;
    const { status, failure } = refusal('timeout');
    this.#logger?.info('request refused before routing', { protocol: 'h2', status, reason: 'ERR_HTTP_REQUEST_TIMEOUT', remoteAddress: session.socket?.remoteAddress });
    if (stream.headersSent) return void stream.close(constants.NGHTTP2_CANCEL);
    const body = JSON.stringify(errorBody(failure));
    stream.respond({ ':status': status, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    stream.end(body);
    // After the answer is sent: the peer stops sending the rest (RFC 9113 §8.1), and the request's
    // reader sees it aborted, so the handler (still waiting for the body) answers nothing more.
    stream.close(constants.NGHTTP2_NO_ERROR);
  }

  #refuseHeaders(req: Http2ServerRequest, res: Http2ServerResponse): void {
    const { status, failure } = refusal('headers-too-large');
    this.#logger?.info('request refused before routing', { protocol: 'h2', status, reason: 'HEADER_LIST_TOO_LARGE', remoteAddress: req.socket?.remoteAddress });
    const body = JSON.stringify(errorBody(failure));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  }
}

/** A header list's size as HTTP/2 counts it (RFC 9113 §6.5.2): each field's name, value and 32. */
function headerListSize(rawHeaders: string[]): number {
  let size = 16 * rawHeaders.length;
  for (const field of rawHeaders) size += field.length;
  return size;
}
