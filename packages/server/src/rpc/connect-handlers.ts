/**
 * connect-node's handlers, for what the lean unary path (unary-rpc.ts) does not take: compressed
 * calls, gRPC-web (in its text mode through grpc-web-text.ts), Connect's GET, the RPCs without a
 * REST twin (UNIMPLEMENTED) and reflection's stream. Served by `serveWithConnect` in place of
 * connect-node's own adapter (`connectNodeAdapter`, whose request and response conversions it
 * uses): the dispatcher (rpc-handler.ts) has already found the handler, and the call is handed to
 * it directly as a context value; status messages are written as the gRPC spec encodes them
 * (`withSpecGrpcMessages`, grpc-status.ts); and a unary call answered before its request was read
 * to the end (a message over the limit) is answered once the client has sent it (`requestRead`:
 * over HTTP/2 the answer is lost otherwise).
 */
import type { DescMethodUnary, DescService, Message } from '@bufbuild/protobuf';
import { ConnectError, createConnectRouter, createContextKey, createContextValues, type HandlerContext } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { withSpecGrpcMessages } from './grpc-status.js';
import { REFLECTION_VERSIONS, ReflectionCatalog, reflectionImplementation } from './reflection.js';
import type { ReflectionRequest } from './reflection-descriptors.js';
import { callRestTwin } from './rest-twin-call.js';
import { type RpcCall, type RpcRoute, requestRead } from './rpc-call.js';

/** The call, for the handlers: set for every call `serveWithConnect` serves. */
const CALL = createContextKey<RpcCall | undefined>(undefined);

/**
 * gRPC's length prefix holds up to 4 GiB, and connect's default leaves it there: an export answer is
 * as large as the REST export makes it (the REST answer itself has no limit).
 */
const MAX_ANSWER_BYTES = 0xffffffff;

/** A change of framing around connect's handler: a protocol it does not take, made one it does (grpc-web-text.ts). */
export interface Framing {
  request(request: UniversalServerRequest): UniversalServerRequest;
  response(response: UniversalServerResponse): UniversalServerResponse;
}

/** connect's handler of each RPC and of reflection, by request path (`/zitadel.admin.v1.AdminService/GetMyInstance`). */
export function connectHandlers(routes: readonly RpcRoute[], readMaxBytes: number): Map<string, UniversalHandler> {
  // connect-node's adapter accepts these unless told otherwise.
  const router = createConnectRouter({ acceptCompression: [compressionGzip, compressionBrotli], readMaxBytes, writeMaxBytes: MAX_ANSWER_BYTES });
  for (const route of routes) {
    // ImportData's request message has the import's own, larger limit, as its REST body has.
    const implementation = (message: Message, context: HandlerContext) => callRestTwin(route, message, context.values.get(CALL)!, context.requestHeader, context.signal);
    router.rpc(route.entry.method as DescMethodUnary, implementation, { readMaxBytes: route.readMaxBytes });
  }
  // A bidi stream: gRPC over HTTP/2 only (connect answers the HTTP/1.1 protocols' attempts with an error).
  const reflection = reflectionOf(new ReflectionCatalog(offeredServices(routes)));
  for (const version of REFLECTION_VERSIONS) router.rpc(version.method, reflection);
  return new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
}

/** One call through connect's handler, its framing changed first when `framing` says so. */
export function serveWithConnect(req: NodeRequest, res: NodeResponse, handler: UniversalHandler, call: RpcCall, framing?: Framing): void {
  let request = universalRequestFromNodeRequest(req, res, undefined, createContextValues().set(CALL, call));
  if (framing) request = framing.request(request);
  const unary = handler.method.methodKind === 'unary';
  void handler(request)
    .then(async (answer) => {
      if (unary) await requestRead(req);
      const response = withSpecGrpcMessages(answer);
      return universalResponseToNodeResponse(framing ? framing.response(response) : response, res);
    })
    .catch(() => res.destroy());
}

/** The services reflection lists: those with at least one offered RPC, in RPC_SERVICES's order. */
function offeredServices(routes: readonly RpcRoute[]): DescService[] {
  return [...new Set(routes.filter((route) => route.entry.twin).map((route) => route.entry.service))];
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
