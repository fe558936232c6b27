/**
 * The node HTTP server under the service: one listener for HTTP/1.1 and HTTP/2 (h2c, prior
 * knowledge). Each connection's first bytes decide which (protocol-sniff.ts): those that open
 * with the HTTP/2 preface go to an HTTP/2 server that never listens itself (http2-sessions.ts),
 * the others to this HTTP/1.1 server, as before. Both call the same request handler.
 *
 * Bounds on what a client can hold, over either version: a connection that has not sent its
 * request's headers within `headersTimeoutMs` (an idle one included), or its whole request within
 * `requestTimeoutMs`, is answered 408 and closed; one left idle after a response is closed after
 * `keepAliveTimeoutMs` (HTTP/1.1: plus KEEP_ALIVE_GRACE_MS); beyond `maxConnections` open connections a new one is closed at once,
 * and so is one from an address that already holds `maxConnectionsPerAddress` (so one client
 * cannot take the whole cap); an HTTP/2 session is one connection. What node refuses before a
 * request reaches the app (headers over 16 KiB → 431, a timeout → 408, unparsable HTTP → 400) is
 * answered with the API's error body.
 */
import { Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, GrpcCode } from '../domain/errors.js';
import { errorBody } from '../http/errors.js';
import type { Logger } from '../log.js';
import { MAX_HEADER_BYTES, type Refusal, refusal } from './http-refusals.js';
import { destroyWhenLingering, H2cSessions, type NodeRequest, type NodeResponse } from './http2-sessions.js';
import { sniffProtocol } from './protocol-sniff.js';

export type { NodeRequest, NodeResponse };
export { MAX_HEADER_BYTES };

/** What serves a request, whichever HTTP version it came over. */
export type RequestHandler = (req: NodeRequest, res: NodeResponse) => void;

export interface ConnectionLimits {
  /** Time to receive a request's headers, counted from the connection (or the previous response). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (not the time to answer it). */
  requestTimeoutMs: number;
  /** How long a connection may stay idle between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are closed as they arrive. */
  maxConnections: number;
  /** Open connections from one client address at most; its further ones are closed as they arrive. */
  maxConnectionsPerAddress: number;
}

/**
 * How long node keeps an idle HTTP/1.1 connection open past `keepAliveTimeout`: the Keep-Alive
 * header advertises the timeout, and a client that reuses the connection right at it must not meet
 * the close (a reset request). Node 20 adds a fixed 1 s; Node 24 (24.18 here) reads `keepAliveTimeoutBuffer`
 * (default 1 s), given here so both runtimes agree. HTTP/2 sessions get no grace: GOAWAY tells the
 * client before the close.
 */
export const KEEP_ALIVE_GRACE_MS = 1_000;

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  // A tenth of the cap: ten busy clients still fit, one cannot hold out the rest. Well above what
  // one program needs (a browser opens 6 per host, the benchmarks 50 from one address); behind a
  // proxy every connection comes from the proxy's address, so raise it to HTTP_MAX_CONNECTIONS there.
  maxConnectionsPerAddress: 100,
};

/**
 * node's HTTP/1.1 server, listening for both versions. Closing it (`close`, `closeIdleConnections`,
 * `closeAllConnections`) treats HTTP/2 sessions as it treats HTTP/1.1 connections: `close` sends
 * each session GOAWAY, so its streams in flight finish and it then closes, as a busy HTTP/1.1
 * connection finishes its request.
 */
export class ServiceServer extends Server {
  readonly #http2: H2cSessions;
  /** Connections whose first bytes have not arrived yet: idle, as far as closing is concerned. */
  readonly #undecided = new Set<Socket>();

  constructor(handler: RequestHandler, limits: ConnectionLimits, logger?: Logger) {
    super(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        // Not in @types/node 20's ServerOptions; node 20 ignores it and adds the same 1 s itself.
        ...{ keepAliveTimeoutBuffer: KEEP_ALIVE_GRACE_MS },
        maxHeaderSize: MAX_HEADER_BYTES,
        // Node checks the two timeouts every 30 s by default, which would let a connection live up
        // to 30 s past them; a check is a walk over open connections, cheap at this cap.
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs || Infinity) / 4))),
      },
      handler,
    );
    this.#http2 = new H2cSessions(handler, limits, logger);
    this.maxConnections = limits.maxConnections;
    // node's HTTP/1.1 server takes a connection in its 'connection' listener (the documented way to
    // hand it a socket is to emit 'connection'); it is called here only for HTTP/1.1 ones.
    const serveHttp1 = this.listeners('connection')[0] as (socket: Socket) => void;
    this.removeAllListeners('connection');
    limitConnectionsPerAddress(this, limits.maxConnectionsPerAddress);
    this.on('connection', (socket: Socket) => {
      if (socket.destroyed) return; // refused by the per-address limit
      const headersDeadline = Date.now() + limits.headersTimeoutMs;
      this.#undecided.add(socket);
      sniffProtocol(socket, limits.headersTimeoutMs, (outcome) => {
        this.#undecided.delete(socket);
        if (outcome === 'http/1.1') serveHttp1.call(this, socket);
        else if (outcome === 'h2') this.#http2.accept(socket, headersDeadline, clientAddressKey(socket.remoteAddress ?? ''));
        // Nothing (or a beginning of the preface) in time: as node answers an HTTP/1.1 connection
        // that sent nothing.
        else if (outcome === 'timeout') answerRefusal('timeout', 'ERR_HTTP_REQUEST_TIMEOUT', socket, logger);
        else socket.destroy();
      });
    });
    this.on('clientError', (error: Error & { code?: string }, socket: Socket) => answerClientError(error, socket, logger));
  }

  override close(callback?: (error?: Error) => void): this {
    this.#http2.closeGracefully();
    return super.close(callback); // closes idle connections too (closeIdleConnections below)
  }

  override closeIdleConnections(): void {
    super.closeIdleConnections();
    this.#http2.closeIdle();
    for (const socket of this.#undecided) socket.destroy();
  }

  override closeAllConnections(): void {
    super.closeAllConnections();
    this.#http2.destroyAll();
    for (const socket of this.#undecided) socket.destroy();
  }
}

export function createLimitedHttpServer(handler: RequestHandler, limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS, logger?: Logger): ServiceServer {
  return new ServiceServer(handler, limits, logger);
}

/**
 * Closes a new connection at once when its address already holds `limit` open ones. Connections
 * node drops at the global cap never get here ('connection' is not emitted for them), so they are
 * not counted.
 */
function limitConnectionsPerAddress(server: Server, limit: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return void socket.destroy(); // already gone
    const key = clientAddressKey(address);
    const held = open.get(key) ?? 0;
    if (held >= limit) return void socket.destroy();
    open.set(key, held + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/**
 * One key per client: on a dual-stack listener an IPv4 client appears as `::ffff:a.b.c.d`, which is
 * the same client as `a.b.c.d`.
 */
export function clientAddressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address.toLowerCase();
}

/** Failures node's HTTP/1.1 parser detects before the app sees a request: the error body, then close. */
function answerClientError(error: Error & { code?: string }, socket: Socket, logger?: Logger): void {
  const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  answerRefusal(clientRefusal(error.code), error.code ?? 'unknown', socket, logger);
}

function answerRefusal(kind: Refusal, reason: string, socket: Socket, logger?: Logger): void {
  const { status, reason: phrase, failure } = refusal(kind);
  // Nothing of the request is logged: it may be an attack's garbage, or carry a token.
  logger?.info('request refused before routing', { status, reason, remoteAddress: socket.remoteAddress });
  const body = JSON.stringify(errorBody(failure));
  // The connection is being closed: its peer resetting it meanwhile (a browser dropping a connection
  // it opened ahead of need) is no error of ours. A socket refused before any server took it (the
  // protocol was never known) has no other error listener, and node would throw the reset.
  socket.on('error', () => socket.destroy());
  destroyWhenLingering(socket);
  socket.end(`HTTP/1.1 ${status} ${phrase}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function clientRefusal(code: string | undefined): Refusal {
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers-too-large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'timeout';
  return 'malformed';
}

/**
 * A raw request path that URL parsing leaves as it is: one `/` (`//x/…` would name a host x), then
 * only characters the URL standard keeps in a path (no percent, backslash, space or non-ASCII), and
 * no `.`/`..` segment.
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT_PLAIN = /\/\.{1,2}(?=\/|$)/;

/**
 * The path of a request's target (`req.url`), as `new URL(target, base).pathname` gives it. Most
 * targets are plain paths, returned without parsing: a URL parse per request was 2 % of an API
 * call's CPU (BENCHMARKS.md round 10). Anything else is parsed.
 */
export function requestPath(target = '/'): string {
  const query = target.indexOf('?');
  const raw = query === -1 ? target : target.slice(0, query);
  if (PLAIN_PATH.test(raw) && !DOT_SEGMENT_PLAIN.test(raw)) return raw;
  return new URL(target, 'http://localhost').pathname;
}

/** `.`/`..` segments, also percent-encoded (`%2e`), which URL parsing would resolve away. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/**
 * A raw path with a `.` or `..` segment → 400 in the error body; true when answered. Parsing the
 * URL resolves such segments (`/users/..` becomes `/`), so the request would reach another path
 * and answer its 404; no id is ever `.` or `..`, and clients normalise paths before sending.
 */
export function refuseDotSegments(req: NodeRequest, res: NodeResponse): boolean {
  const raw = req.url ?? '/';
  const path = raw.slice(0, raw.search(/[?#]|$/));
  if (!DOT_SEGMENT.test(path)) return false;
  const body = JSON.stringify(errorBody(new DomainError(GrpcCode.InvalidArgument, 'API-D0t5g', 'a path segment must not be "." or ".."')));
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  return true;
}
