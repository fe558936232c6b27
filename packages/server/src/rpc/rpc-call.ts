/**
 * What every path of an RPC call shares (ARCHITECTURE.md, "RPC protocols"): the gateway's options,
 * an RPC's route, one call's state from its arrival to its log line, the request's headers, the
 * rest of a request read before an answer, and the one hook that runs before the answer's head.
 * The request and response are the server's own (http-server.ts): HTTP/1.1 and HTTP/2 alike.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { App } from '../app.js';
import type { InProcessRpcCall } from '../http/middleware/request-context.js';
import type { Logger } from '../log.js';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import type { RpcEntry } from './offered-rpcs.js';

export interface RpcHandlerOptions {
  /** The app serving now (server.ts rebuilds it when the signing keys change). */
  app: () => App;
  logger?: Logger;
  /** The REST API's body limit, for every request message but ImportData's. */
  maxBodyBytes: number;
  /** The import's body limit (MAX_IMPORT_BODY_BYTES), for ImportData's request message. */
  maxImportBodyBytes: number;
}

/** One of ZITADEL's v1 RPCs as the gateway serves it, made once at start-up. */
export interface RpcRoute {
  entry: RpcEntry;
  /** Its request message's limit: the REST body limit, or the import's for ImportData. */
  readMaxBytes: number;
  gateway: RpcHandlerOptions;
}

/** ImportData's REST call, started before its message is read (import-call.ts). */
export interface DeferredRestCall {
  readonly response: Promise<Response>;
  /** The REST call's body, once the message is decoded. */
  supply(json: string): void;
  /** The call ended without a message: the REST call fails and frees its import slot. */
  abandon(): void;
}

/** One RPC call, from its arrival to its log line. */
export interface RpcCall {
  req: NodeRequest;
  /** The URL's path: `/zitadel.admin.v1.AdminService/ImportData`. */
  path: string;
  requestId: string;
  /** Read at the call's arrival: an HTTP/2 stream's socket is no longer there when its log line is written. */
  remoteAddress: string | undefined;
  /** The status code once known (0: OK). */
  code?: number;
  /** The authenticated caller, handed back by the REST call (request-context.ts). */
  rest: InProcessRpcCall;
  /** ImportData: its REST call, running and waiting for the body. */
  importCall?: DeferredRestCall;
}

/** A request header's (first) value. */
export function header(req: NodeRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The one hook before a call's answer: it runs as the answer's head is written, whoever writes it
 * (a protocol module, connect-node, an error answered by the dispatcher, the server's 408). Wanted
 * where `beforeAnswer` has something to do: over HTTP/1.1, and for ImportData.
 */
export function hookAnswerHead(res: NodeResponse, call: RpcCall): void {
  const response = res as unknown as ServerResponse;
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    beforeAnswer(this, call);
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

/**
 * - An answer written before the request's body was read to its end (a message past the limit, an
 *   import refused before its body) closes an HTTP/1.1 connection: node drops such a connection
 *   after the answer, and a client that was not told would send its next call on it.
 * - ImportData answered without a message (too large, undecodable, refused): its REST call fails
 *   and frees its import slot. The answer's head is the sign: over HTTP/2 the stream, and so
 *   'finish' and 'close', may stay open after the answer while the client is still sending.
 */
function beforeAnswer(res: ServerResponse, call: RpcCall): void {
  if (call.req.httpVersionMajor === 1 && !(call.req as IncomingMessage).complete) res.shouldKeepAlive = false;
  call.importCall?.abandon();
}

/**
 * Resolves once the request has been read to its end, what is left of it read and dropped, or once
 * it is gone. Why: over HTTP/2 an answer that arrives while the client still has its message
 * queued is lost. Node's client (connect-node's transports) counts the queued message against its
 * session memory (10 MB by default), finds no room for the answer's headers and resets the stream
 * itself (ENHANCE_YOUR_CALM): a 50 MB message got a reset where RESOURCE_EXHAUSTED was answered. So
 * a unary call refused before its message was read (too large, an import refused before its body,
 * an unknown RPC) is answered once the client has sent it all. The server read and dropped the
 * rest before too (or, on connect-node's path, held the stream paused); the time it may take is
 * bounded by the request timeout (http2-sessions.ts). The stream is drained, not the request: a
 * request connect-node abandoned was destroyed, and node's compatibility layer then pauses the
 * stream at each chunk. Over HTTP/1.1 the answer is written at once and closes the connection
 * (`beforeAnswer`).
 */
export function requestRead(req: NodeRequest): Promise<void> {
  if (req.httpVersionMajor !== 2) return Promise.resolve();
  const stream = (req as Http2ServerRequest).stream;
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('data', () => {
      if (stream.isPaused()) stream.resume();
    });
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.resume();
  });
}
