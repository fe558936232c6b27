/**
 * ZITADEL's v1 services over gRPC, gRPC-web and Connect (@connectrpc/connect-node), as a reverse
 * gateway of the REST API: an RPC's request message becomes the REST request its
 * `google.api.http` rule names (rest-mapping.ts), the current Hono app answers it in-process, and
 * the answer becomes the response message or the error. So an RPC is its REST operation —
 * authentication, organisation headers, permissions, validation, events, errors — with no second
 * handler (ARCHITECTURE.md, "RPC protocols").
 *
 * ImportData authenticates before its body is read, as its REST route does: its REST call starts
 * first, with a body that is only produced once the route asks for it, that is once the caller is
 * known to be allowed and an import slot is taken; only then does connect read the RPC's body.
 */
import type { DescMessage, DescMethodUnary, DescService, Message } from '@bufbuild/protobuf';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Code,
  ConnectError,
  createConnectRouter,
  createContextKey,
  createContextValues,
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  type HandlerContext,
} from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import type { App } from '../app.js';
import { DomainError, GrpcCode } from '../domain/errors.js';
import { requestIdOf, type InProcessRpcCall } from '../http/middleware/request-context.js';
import type { Logger } from '../log.js';
import { answerText, inProcessRequest } from './in-process-request.js';
import { header, plainUnaryProtocol, requestRead, serveUnaryRpc, type NodeHandler, type NodeRequest, type NodeResponse, type UnaryRpc } from './unary-rpc.js';
import { grpcStatusFields, withSpecGrpcMessages } from './grpc-status.js';
import { rpcTable, type RestTwin, type RpcEntry } from './offered-rpcs.js';
import type { ReflectionRequest } from './reflection-descriptors.js';
import { REFLECTION_VERSIONS, ReflectionCatalog, reflectionImplementation } from './reflection.js';
import { codeOfHttpStatus, messageOfRestAnswer, restRequestOf, rpcErrorOfDomainError, rpcErrorOfRestAnswer } from './rest-mapping.js';


export interface RpcHandlerOptions {
  /** The app serving now (server.ts rebuilds it when the signing keys change). */
  app: () => App;
  logger?: Logger;
  /** The REST API's body limit, for every request message but ImportData's. */
  maxBodyBytes: number;
  /** The import's body limit (MAX_IMPORT_BODY_BYTES), for ImportData's request message. */
  maxImportBodyBytes: number;
}

/**
 * `/zitadel.admin.v1.AdminService/SetDefaultVerifyEmailMessageText` and
 * `/grpc.reflection.v1.ServerReflection/ServerReflectionInfo`: paths server.ts hands to the RPC handler.
 */
const RPC_PATH = /^\/(?:zitadel\.[a-z0-9_.]+\.v\d+\w*|grpc\.reflection\.v\d+\w*)\.[A-Za-z0-9_]+\/[A-Za-z0-9_]+$/;

export function isRpcPath(path: string): boolean {
  return RPC_PATH.test(path);
}

/** One RPC call, from its arrival to its log line. */
interface RpcCall {
  req: NodeRequest;
  requestId: string;
  /** Read at the call's arrival: an HTTP/2 stream's socket is no longer there when its log line is written. */
  remoteAddress: string | undefined;
  /** The status code once known (0: OK). */
  code?: number;
  /** The authenticated caller, handed back by the REST call (request-context.ts). */
  rest: InProcessRpcCall;
  /** ImportData: its REST call, already running and waiting for the body. */
  importCall?: PendingRestCall;
}

const CALL = createContextKey<RpcCall | undefined>(undefined);

/**
 * gRPC's length prefix holds up to 4 GiB, and connect's default leaves it there: an export answer is
 * as large as the REST export makes it (the REST answer itself has no limit).
 */
const MAX_ANSWER_BYTES = 0xffffffff;

const IMPORT_RPC = 'zitadel.admin.v1.AdminService/ImportData';

export function createRpcHandler(options: RpcHandlerOptions): NodeHandler {
  const table = rpcTable();
  const importEntry = table.find((entry) => entry.name === IMPORT_RPC);
  const calls = new WeakMap<NodeRequest, RpcCall>();
  const routerOptions = { readMaxBytes: options.maxBodyBytes, writeMaxBytes: MAX_ANSWER_BYTES };
  const reflection = reflectionOf(new ReflectionCatalog(offeredServices(table)));
  const routes = (router: ConnectRouter) => {
    for (const entry of table) {
      // The import's request message has the import's own, larger limit, as its REST body has.
      router.rpc(entry.method as DescMethodUnary, implementationOf(entry, options), entry === importEntry ? { readMaxBytes: options.maxImportBodyBytes } : {});
    }
    // A bidi stream: gRPC over HTTP/2 only (connect answers the HTTP/1.1 protocols' attempts with an error).
    for (const version of REFLECTION_VERSIONS) router.rpc(version.method, reflection);
  };
  const contextValues = (req: NodeRequest) => createContextValues().set(CALL, calls.get(req));
  const fallback: NodeHandler = (req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    const call = calls.get(req);
    const error = rpcErrorOfDomainError(new DomainError(GrpcCode.Unimplemented, 'RPC-N0tOf', `${path.slice(1)} is not offered by this service`));
    if (call) call.code = error.code;
    writeRpcError(req, res, error);
  };
  const served = connectAdapter({ ...routerOptions, routes, contextValues, fallback });

  /** Unary gRPC and Connect calls without connect's per-call machinery (unary-rpc.ts); the same invokeTwin. */
  const unaryRpc = (entry: RpcEntry): UnaryRpc<RpcCall> => ({
    input: entry.method.input as DescMessage,
    output: entry.method.output as DescMessage,
    readMaxBytes: entry === importEntry ? options.maxImportBodyBytes : options.maxBodyBytes,
    invoke: (message, signal, req, call) => invokeTwin(entry, options, message, call, req, signal),
    ended: (code, call) => (call.code = code),
  });
  const offered = new Map(table.filter((entry) => entry.twin).map((entry) => [`/${entry.name}`, unaryRpc(entry)]));

  return (req, res) => {
    const started = performance.now();
    const call: RpcCall = { req, requestId: requestIdOf(header(req, 'x-request-id')), remoteAddress: req.socket?.remoteAddress, rest: {} };
    closeWhenBodyLeftUnread(req, res);
    res.once('close', () => logCall(options.logger, call, res, started));
    const path = (req.url ?? '').split('?', 1)[0];
    const rpc = offered.get(path);
    const unary = rpc && plainUnaryProtocol(req);
    // connect-node's handlers find the call through their context values (contextValues above).
    if (!unary) calls.set(req, call);
    if (importEntry?.twin && path === `/${IMPORT_RPC}`) {
      void serveImport(req, res, call, importEntry.twin, options, unary ? (req, res) => void serveUnaryRpc(req, res, unary, rpc, call) : served);
    } else if (unary) void serveUnaryRpc(req, res, unary, rpc, call);
    else served(req, res);
  };
}

/**
 * An answer written before the request's body was read to its end (a message past the limit, an
 * import refused before its body) closes an HTTP/1.1 connection: node drops such a connection
 * after the answer, and a client that was not told would send its next call on it.
 */
function closeWhenBodyLeftUnread(req: NodeRequest, res: NodeResponse): void {
  if (req.httpVersionMajor !== 1) return;
  const response = res as unknown as ServerResponse;
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!(req as IncomingMessage).complete) this.shouldKeepAlive = false;
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

const isGrpcWebText = (contentType: string | undefined) => contentType?.startsWith('application/grpc-web-text') ?? false;

/**
 * connect-node's handlers for what the lean unary path (unary-rpc.ts) does not take: compressed
 * calls, gRPC-web, Connect's GET, reflection's stream. In place of connect-node's own adapter
 * (`connectNodeAdapter`, whose request and response conversions it uses) for three things:
 * - status messages as the gRPC spec encodes them (`withSpecGrpcMessages`, grpc-status.ts);
 * - a unary call answered before its request was read to the end (a message over the limit) is
 *   answered once the client has sent it (`requestRead`: over HTTP/2 the answer is lost otherwise);
 * - gRPC-web's text mode (base64 frames, what browsers without binary streams send), which
 *   connect's handlers do not take: the body is decoded to the binary mode's frames before connect
 *   reads it, and the answer's frames are encoded, each chunk on its own (the mode allows padded
 *   segments).
 */
function connectAdapter(options: ConnectRouterOptions & { routes: (router: ConnectRouter) => void; contextValues: (req: NodeRequest) => ContextValues; fallback: NodeHandler }): NodeHandler {
  // connect-node's adapter accepts these unless told otherwise.
  const router = createConnectRouter({ acceptCompression: [compressionGzip, compressionBrotli], ...options });
  options.routes(router);
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return (req, res) => {
    const handler = handlers.get((req.url ?? '').split('?', 1)[0]);
    if (!handler) return options.fallback(req, res);
    const request = universalRequestFromNodeRequest(req, res, undefined, options.contextValues(req));
    const text = isGrpcWebText(header(req, 'content-type'));
    const unary = handler.method.methodKind === 'unary';
    let asked = request;
    if (text) {
      const binaryHeader = new Headers(request.header);
      binaryHeader.set('content-type', (binaryHeader.get('content-type') ?? '').replace('grpc-web-text', 'grpc-web'));
      asked = { ...request, header: binaryHeader, body: decodeBase64(request.body as AsyncIterable<Uint8Array>) };
    }
    void handler(asked)
      .then(async (answer) => {
        if (unary) await requestRead(req);
        let response = withSpecGrpcMessages(answer);
        if (text) {
          const textHeader = new Headers(response.header);
          const type = textHeader.get('content-type');
          if (type) textHeader.set('content-type', type.replace('grpc-web', 'grpc-web-text'));
          response = { ...response, header: textHeader, body: response.body && encodeBase64(response.body) };
        }
        return universalResponseToNodeResponse(response, res);
      })
      .catch(() => res.destroy());
  };
}

async function* decodeBase64(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let pending = '';
  for await (const chunk of body) {
    pending += Buffer.from(chunk).toString('latin1').replace(/\s+/g, '');
    const whole = pending.length - (pending.length % 4);
    yield* decodeGroups(pending.slice(0, whole));
    pending = pending.slice(whole);
  }
  yield* decodeGroups(pending);
}

/** Whole 4-character groups; a padded group ends a segment, and the next segment starts afresh. */
function* decodeGroups(text: string): Iterable<Uint8Array> {
  for (const segment of text.match(/[^=]+={0,2}|=+/g) ?? []) {
    const bytes = Buffer.from(segment, 'base64');
    if (bytes.length > 0) yield bytes;
  }
}

async function* encodeBase64(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const chunk of body) yield Buffer.from(Buffer.from(chunk).toString('base64'), 'latin1');
}

/** The handler of one RPC for connect's router: its REST twin's call (invokeTwin). */
function implementationOf(entry: RpcEntry, options: RpcHandlerOptions) {
  return (message: Message, context: HandlerContext) => invokeTwin(entry, options, message, context.values.get(CALL), context.requestHeader, context.signal);
}

/**
 * One RPC: its REST call, or UNIMPLEMENTED when it has no twin. The answer becomes the response
 * message, a refusal the ConnectError with ZITADEL's error details. Called by connect's handlers
 * and by the unary path (unary-rpc.ts) alike.
 */
async function invokeTwin(entry: RpcEntry, options: RpcHandlerOptions, message: Message, call: RpcCall | undefined, metadata: Headers | NodeRequest, signal: AbortSignal): Promise<Message> {
  try {
    if (!entry.twin) throw new DomainError(GrpcCode.Unimplemented, 'RPC-N0tOf', `${entry.name} is not offered by this service`);
    const request = restRequestOf(entry.twin, entry.method.input as DescMessage, message);
    let response: Response;
    if (call?.importCall) {
      call.importCall.supply(request.body ?? '{}');
      response = await call.importCall.response;
    } else {
      response = await options.app().fetch(
        inProcessRequest(`http://rpc.internal${request.target}`, request.method, restHeaders(metadata, call, request.body !== undefined), request.body, signal),
        { incoming: call?.req, rpcCall: call?.rest },
      );
    }
    const text = await answerText(response);
    if (!response.ok) throw rpcErrorOfRestAnswer(response.status, text);
    const output = messageOfRestAnswer(entry.method.output as DescMessage, text ? JSON.parse(text) : {}, entry.name);
    if (call) call.code = 0;
    return output;
  } catch (error) {
    const failure = error instanceof DomainError ? rpcErrorOfDomainError(error) : ConnectError.from(error);
    if (call) call.code = failure.code;
    if (failure.code === Code.Internal) options.logger?.error('rpc failed', { requestId: call?.requestId, rpc: entry.name, error: String((error as Error)?.stack ?? error), cause: String((error as Error)?.cause ?? '') });
    throw failure;
  }
}

/** The services reflection lists: those with at least one offered RPC, in RPC_SERVICES's order. */
function offeredServices(table: readonly RpcEntry[]): DescService[] {
  return [...new Set(table.filter((entry) => entry.twin).map((entry) => entry.service))];
}

/** Reflection's stream, with its status kept for the call's log line (its status goes out in trailers, which the log cannot read). */
function reflectionOf(catalog: ReflectionCatalog) {
  const answer = reflectionImplementation(catalog);
  return async function* (requests: AsyncIterable<Message>, context: HandlerContext) {
    const call = context.values.get(CALL);
    try {
      yield* answer(requests as AsyncIterable<ReflectionRequest>, context);
      if (call) call.code = 0;
    } catch (error) {
      if (call) call.code = ConnectError.from(error).code;
      throw error;
    }
  };
}

/** The metadata a REST call reads: the token, the organisation context, the request id. */
const PASSED_HEADERS = ['authorization', 'x-zitadel-orgid', 'x-service-orgid'] as const;

function restHeaders(metadata: Headers | NodeRequest, call: RpcCall | undefined, withBody: boolean): Headers {
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = metadata instanceof Headers ? metadata.get(name) : header(metadata, name);
    if (value) headers.set(name, value);
  }
  if (call) headers.set('x-request-id', call.requestId);
  if (withBody) headers.set('content-type', 'application/json');
  return headers;
}


/**
 * A REST call whose body is made later: it is produced when the route first reads it (after its
 * authentication, permission check and import slot), from the RPC's decoded message.
 */
class PendingRestCall {
  readonly bodyWanted: Promise<void>;
  readonly response: Promise<Response>;
  private supplyBody!: (json: string) => void;
  private abandonBody!: (reason: Error) => void;

  constructor(app: App, target: string, headers: Headers, env: object) {
    let wanted!: () => void;
    this.bodyWanted = new Promise((resolve) => (wanted = resolve));
    const body = new Promise<string>((resolve, reject) => {
      this.supplyBody = resolve;
      this.abandonBody = reject;
    });
    body.catch(() => undefined);
    const encoder = new TextEncoder();
    // highWaterMark 0: nothing is pulled before the route reads.
    const stream = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          wanted();
          controller.enqueue(encoder.encode(await body));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    this.response = Promise.resolve(app.fetch(new Request(`http://rpc.internal${target}`, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit), env));
  }

  supply(json: string): void {
    this.supplyBody(json);
  }

  /** The RPC ended without a message (its body too large, undecodable, or the client gone): the REST call fails and frees its slot. */
  abandon(): void {
    this.abandonBody(new Error('the RPC ended before its message was read'));
  }
}

async function serveImport(
  req: NodeRequest,
  res: NodeResponse,
  call: RpcCall,
  twin: RestTwin,
  options: RpcHandlerOptions,
  serve: NodeHandler,
) {
  const pending = new PendingRestCall(options.app(), twin.template, restHeaders(req, call, true), { incoming: req, rpcCall: call.rest });
  // Answered (or gone) without a message (too large, undecodable, the client gone): the REST call
  // fails and frees its import slot. The answer's headers are the sign: over HTTP/2 the stream, and
  // so 'finish' and 'close', may stay open after the answer while the client is still sending.
  onAnswerOrClose(res, () => pending.abandon());
  const bodyWanted = await Promise.race([pending.bodyWanted.then(() => true), pending.response.then(() => false, () => false)]);
  if (bodyWanted) {
    call.importCall = pending;
    serve(req, res);
    return;
  }
  // Refused before the body (no token, no permission, no import slot): answered without reading it.
  let error: ConnectError;
  try {
    const response = await pending.response;
    error = rpcErrorOfRestAnswer(response.status, await response.text());
  } catch (failure) {
    error = ConnectError.from(failure);
  }
  call.code = error.code;
  writeRpcError(req, res, error);
}

function onAnswerOrClose(res: NodeResponse, then: () => void): void {
  const response = res as unknown as ServerResponse;
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    then();
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
  res.once('close', then);
}

/**
 * An error answered outside connect's handlers (an unknown RPC, an import refused before its body),
 * in the protocol the client speaks, with connect's own protocol helpers: gRPC and gRPC-web as a
 * trailers-only response (the status fields as grpc-status.ts writes them), Connect as its JSON
 * error body.
 */
function writeRpcError(req: NodeRequest, res: NodeResponse, error: ConnectError): void {
  // Its message may be unread: answered once the client has sent it (requestRead, unary-rpc.ts).
  void requestRead(req).then(() => {
    if (res.destroyed || res.writableEnded) return;
    const contentType = header(req, 'content-type') ?? '';
    if (contentType.startsWith('application/grpc')) {
      res.writeHead(200, { 'content-type': contentType, ...grpcStatusFields(error) });
      res.end();
      return;
    }
    const body = errorToJsonBytes(error, {});
    res.writeHead(codeToHttpStatus(error.code), { 'content-type': 'application/json', 'content-length': String(body.byteLength) });
    res.end(body);
  });
}

/** One line per RPC call, like the REST API's (request-context.ts): method, RPC, status code, duration, caller. */
function logCall(logger: Logger | undefined, call: RpcCall, res: NodeResponse, started: number): void {
  if (!logger || !(logger.isEnabled?.('info') ?? true)) return;
  const req = call.req;
  logger.info('rpc', {
    requestId: call.requestId,
    method: req.method,
    rpc: (req.url ?? '').split('?', 1)[0].slice(1),
    protocol: protocolOf(header(req, 'content-type') ?? ''),
    code: call.code ?? codeOfWrittenResponse(res),
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    ...(call.rest.userId ? { userId: call.rest.userId } : {}),
    remoteAddress: call.remoteAddress,
  });
}

function protocolOf(contentType: string): string {
  if (contentType.startsWith('application/grpc-web')) return 'grpc-web';
  if (contentType.startsWith('application/grpc')) return 'grpc';
  return 'connect';
}

/** The code of an answer connect wrote before any handler ran (an undecodable or too large message). */
function codeOfWrittenResponse(res: NodeResponse): number {
  const status = res.getHeader('grpc-status');
  if (status !== undefined) return Number(status);
  return res.statusCode === 200 ? Code.Unknown : codeOfHttpStatus(res.statusCode);
}
