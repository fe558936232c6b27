/**
 * HTTP/2 over plaintext (h2c, prior knowledge) for the connections the listener found to open
 * with the HTTP/2 preface (protocol-sniff.ts). The requests reach the same handler as HTTP/1.1
 * ones, through node's compatibility API (Http2ServerRequest/Response), under the same bounds:
 *
 * - a session that opens no stream within `headersTimeoutMs` of its connection, or stays without
 *   one for `keepAliveTimeoutMs`, is closed (GOAWAY), and destroyed LINGER_MS later if it is still
 *   open. This counts streams, not frames: PINGs, SETTINGS or a frame whose bytes drip in do not
 *   keep a session open;
 * - a rapid reset (streams cancelled by the client before their answer, beyond RAPID_RESETS in
 *   RAPID_RESET_WINDOW_MS) ends the session with GOAWAY(ENHANCE_YOUR_CALM) and its connection at
 *   once, logged once, and the address's new HTTP/2 connections are refused for
 *   RAPID_RESET_COOL_DOWN_MS; a request whose stream is gone before it is handed on never reaches
 *   the handler;
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
import { constants, createServer, type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { SlidingWindowLimit } from '../domain/rate-limit.js';
import { errorBody } from '../http/errors.js';
import type { Logger } from '../log.js';
import { MAX_HEADER_BYTES, refusal } from './http-refusals.js';

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
  /** Streams the client cancelled before their answer was complete, in a sliding window. */
  cancelled: SlidingWindowLimit;
  /** Ended by the server (closing, or a rapid reset already acted on): its streams' ends are not the client's doing. */
  ended: boolean;
}

/**
 * Rapid reset (CVE-2023-44487): a client opens streams and cancels them at once (HEADERS then
 * RST_STREAM). A cancelled stream no longer counts against MAX_CONCURRENT_STREAMS, but its request
 * was still handed to the handler, so one connection could start work without bound: 400,000 on
 * 40 connections in 15 s, and a normal client's p99 went from 33 to 737 ms. Beyond this many streams
 * cancelled by the client before their answer was complete within RAPID_RESET_WINDOW_MS, the
 * session gets GOAWAY(ENHANCE_YOUR_CALM) and its connection is closed. (nghttp2 itself ends a
 * session that resets about 1,000 streams in a burst, with GOAWAY(INTERNAL_ERROR): its streams are
 * counted all the same, so it is logged and cooled down as the same attack.) A client that cancels as
 * part of its work (a gRPC deadline, a user's abort) stays far below: 100 in 10 s is ten a second,
 * sustained, on one connection.
 */
export const RAPID_RESETS = 100;
export const RAPID_RESET_WINDOW_MS = 10_000;

/**
 * How long an address whose session was closed for a rapid reset has its new HTTP/2 connections
 * refused (HTTP/1.1 ones are not). Node parses all a read brought (up to 64 KiB: about 1,000
 * HEADERS+RST_STREAM pairs) before the count can act, and a stream costs it some tens of µs
 * whether or not it is answered: an attacker reconnecting at once got that much again per
 * connection, enough to keep the event loop busy. A refused connection costs a few bytes.
 */
export const RAPID_RESET_COOL_DOWN_MS = 10_000;
/** Addresses kept in cool-down at most (the oldest go first): a bounded map whatever clients do. */
const MAX_COOLING_ADDRESSES = 10_000;

/** The server's SETTINGS (none) and GOAWAY(last stream 0, ENHANCE_YOUR_CALM): all a refused connection gets. */
const CALM_DOWN = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, constants.NGHTTP2_ENHANCE_YOUR_CALM]);

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

/** Destroys a session (and its socket) that has not closed LINGER_MS after its GOAWAY. */
function destroyAfterLinger(session: ServerHttp2Session, socket: Socket): void {
  const timer = setTimeout(() => {
    session.destroy();
    socket.destroy();
  }, LINGER_MS);
  timer.unref();
  session.once('close', () => clearTimeout(timer));
}

export class H2cSessions {
  readonly #server: Http2Server;
  readonly #sessions = new Map<ServerHttp2Session, OpenSession>();
  readonly #limits: SessionLimits;
  readonly #logger?: Logger;
  /** The connection being accepted and its headers deadline (the 'session' event is synchronous). */
  #accepting?: { socket: Socket; headersDeadline: number; address: string };
  /** Client addresses (clientAddressKey) in cool-down after a rapid reset, and until when (Date.now()). */
  readonly #coolingDown = new Map<string, number>();
  /** Sessions closed for a rapid reset (logged once, by #calm). */
  readonly #calmed = new WeakSet<ServerHttp2Session>();

  constructor(handler: (req: Http2ServerRequest, res: Http2ServerResponse) => void, limits: SessionLimits, logger?: Logger) {
    this.#limits = limits;
    this.#logger = logger;
    this.#server = createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } }, (req, res) => {
      // Node announces a request only once it has parsed all it read with it, so the stream of a
      // rapid reset's HEADERS+RST_STREAM pair is already gone: nobody to start the handler's work for.
      if (req.stream.destroyed) return;
      if (headerListSize(req.rawHeaders) > MAX_HEADER_BYTES) return this.#refuseHeaders(req, res);
      // HTTP/2 ends a body in its framing, so a request often declares no length; code written
      // for HTTP/1.1 (type-is, under oidc-provider's Koa) takes a request with neither
      // content-length nor transfer-encoding to have no body at all, and refused such a token
      // request as having no form body. Only this in-memory view is marked; Hono reads the raw
      // headers.
      if (!req.stream.endAfterHeaders && req.headers['content-length'] === undefined) req.headers['transfer-encoding'] = 'chunked';
      handler(req, res);
    });
    this.#server.on('session', (session: ServerHttp2Session) => this.#watch(session, this.#accepting!));
    this.#server.on('sessionError', (error: Error & { code?: string }, session: ServerHttp2Session) => {
      // A rapid reset nghttp2 ended itself (GOAWAY(INTERNAL_ERROR)) has had its line (#calm).
      if (this.#calmed.has(session)) return;
      // Nothing of the request is logged: it may be an attack's garbage, or carry a token.
      this.#logger?.info('request refused before routing', { protocol: 'h2', reason: error.code ?? 'unknown', remoteAddress: session.socket?.remoteAddress });
    });
  }

  /**
   * Takes a connection that opened with the preface (already read back into it); it must open a
   * stream by `headersDeadline` (a Date.now() time). `address` is the client's (clientAddressKey):
   * one in cool-down after a rapid reset is refused with GOAWAY(ENHANCE_YOUR_CALM) at once.
   */
  accept(socket: Socket, headersDeadline: number, address: string): void {
    destroyWhenLingering(socket);
    const coolingUntil = this.#coolingDown.get(address);
    if (coolingUntil !== undefined && coolingUntil > Date.now()) {
      socket.on('error', () => socket.destroy());
      socket.end(CALM_DOWN);
      return;
    }
    if (coolingUntil !== undefined) this.#coolingDown.delete(address);
    this.#accepting = { socket, headersDeadline, address };
    this.#server.emit('connection', socket);
    this.#accepting = undefined;
  }

  /** GOAWAY to every session: streams open now finish, no new ones start; each then closes. */
  closeGracefully(): void {
    for (const session of this.#sessions.keys()) session.close();
  }

  /** GOAWAY to the sessions without an open stream (they close at once). */
  closeIdle(): void {
    for (const [session, open] of this.#sessions) {
      if (open.streams > 0) continue;
      session.close();
      destroyAfterLinger(session, open.socket);
    }
  }

  /** Ends every session now, streams and all, and its connection (even one closing gracefully). */
  destroyAll(): void {
    for (const [session, open] of this.#sessions) {
      open.ended = true;
      session.destroy();
      open.socket.destroy();
    }
  }

  #watch(session: ServerHttp2Session, { socket, headersDeadline, address }: { socket: Socket; headersDeadline: number; address: string }): void {
    const open: OpenSession = { socket, streams: 0, cancelled: new SlidingWindowLimit(RAPID_RESETS, RAPID_RESET_WINDOW_MS, 1), ended: false };
    this.#sessions.set(session, open);
    const closeIdle = () => {
      if (session.closed || session.destroyed) return;
      session.close();
      // No stream is open, so nothing may keep the connection past its GOAWAY: a frame left
      // unfinished (a HEADERS frame whose bytes drip in) kept node's session, and its socket, open
      // for as long as the bytes came.
      destroyAfterLinger(session, socket);
    };
    open.idleTimer = setTimeout(closeIdle, Math.max(0, headersDeadline - Date.now()));
    session.on('stream', (stream: ServerHttp2Stream) => {
      open.streams++;
      clearTimeout(open.idleTimer);
      const requestTimer = setTimeout(() => this.#refuseSlowRequest(stream, session), this.#limits.requestTimeoutMs);
      // Closed while its answer was still open: the client reset it. Node announces a stream only
      // once it has parsed all it read (a read holds ~1,000 such pairs), so a rapid reset's stream
      // is aborted when it arrives; a later reset is its 'aborted' event. Counted also when node
      // itself ended the session meanwhile: nghttp2 ends one that resets ~1,000 streams at once
      // (GOAWAY(INTERNAL_ERROR)), which is the same attack.
      const cancelled = () => {
        if (!open.ended && open.cancelled.take('') !== undefined) this.#calm(session, open, address);
      };
      if (stream.aborted || stream.destroyed) cancelled();
      else stream.once('aborted', cancelled);
      stream.once('close', () => {
        clearTimeout(requestTimer);
        setImmediate(releaseClosedStream, stream);
        if (--open.streams === 0 && !session.closed && !session.destroyed) open.idleTimer = setTimeout(closeIdle, this.#limits.keepAliveTimeoutMs);
      });
    });
    session.once('close', () => {
      clearTimeout(open.idleTimer);
      this.#sessions.delete(session);
    });
  }

  /**
   * A rapid reset (RAPID_RESETS): GOAWAY(ENHANCE_YOUR_CALM), the session and its connection ended at
   * once, the address in cool-down (RAPID_RESET_COOL_DOWN_MS), one log line.
   */
  #calm(session: ServerHttp2Session, open: OpenSession, address: string): void {
    const { socket } = open;
    open.ended = true;
    this.#calmed.add(session);
    this.#logger?.warn('HTTP/2 session closed: rapid reset', {
      protocol: 'h2',
      reason: `more than ${RAPID_RESETS} streams cancelled by the client within ${RAPID_RESET_WINDOW_MS / 1000} s; new HTTP/2 connections from its address refused for ${RAPID_RESET_COOL_DOWN_MS / 1000} s`,
      remoteAddress: socket.remoteAddress,
    });
    this.#coolingDown.delete(address); // re-inserted: the map's order is the order of cool-downs
    this.#coolingDown.set(address, Date.now() + RAPID_RESET_COOL_DOWN_MS);
    if (this.#coolingDown.size > MAX_COOLING_ADDRESSES) this.#coolingDown.delete(this.#coolingDown.keys().next().value!);
    if (!session.destroyed) {
      session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM);
      session.destroy();
    }
    socket.destroy();
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

/**
 * Drops a closed stream's listeners, a turn after its 'close' (every 'close' listener has run, and
 * what they queued). Why: node keeps a closed stream's object alive through young-generation
 * collections, and with it everything its listeners hold: node's compatibility request and
 * response, the handler's closures and what they reach. Under gRPC load on one session that
 * promoted 5.4 KB a call to the old generation, and GC paused 9.8 µs a call (a REST call: 2.7);
 * dropped, 3.3 KB and 5.0 µs (BENCHMARKS.md round 29). Nothing is emitted on a stream after
 * 'close'; a no-op error listener stays so that a late error from node could not become an
 * uncaught one.
 */
function releaseClosedStream(stream: ServerHttp2Stream): void {
  stream.removeAllListeners();
  stream.on('error', ignoreLateError);
}

function ignoreLateError(): void {}

/** A header list's size as HTTP/2 counts it (RFC 9113 §6.5.2): each field's name, value and 32. */
function headerListSize(rawHeaders: string[]): number {
  let size = 16 * rawHeaders.length;
  for (const field of rawHeaders) size += field.length;
  return size;
}
