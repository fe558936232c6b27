/**
 * The RPC dispatcher: ZITADEL's v1 services over gRPC, gRPC-web and Connect as a reverse gateway of
 * the REST API (ARCHITECTURE.md, "RPC protocols"). One map from request path to RPC, made at
 * start-up; per call, one protocol module picked by the request's content type:
 * - gRPC unary over HTTP/2 (grpc-unary.ts) and Connect unary (connect-unary.ts): the lean path
 *   (unary-rpc.ts), for the offered RPCs' plain calls;
 * - gRPC-web's text mode (grpc-web-text.ts) around connect's handler;
 * - connect-node's handlers for the rest (connect-handlers.ts): compressed calls, gRPC-web,
 *   Connect's GET, RPCs without a twin, reflection.
 * Every path ends in the RPC's REST twin call (rest-twin-call.ts); ImportData starts it before
 * the protocol module runs (import-call.ts). An unknown path answers UNIMPLEMENTED. The dispatcher
 * also owns what every call has: its state (rpc-call.ts), the one hook before its answer, its log line.
 */
import { Code } from '@connectrpc/connect';
import type { UniversalHandler } from '@connectrpc/connect/protocol';
import { DomainError, GrpcCode } from '../domain/errors.js';
import { requestIdOf } from '../http/middleware/request-context.js';
import type { Logger } from '../log.js';
import type { NodeRequest, NodeResponse, RequestHandler } from '../transport/http-server.js';
import { connectHandlers, serveWithConnect } from './connect-handlers.js';
import { plainConnectUnary } from './connect-unary.js';
import { writeRpcError } from './error-answer.js';
import { GRPC_UNARY, isPlainGrpc } from './grpc-unary.js';
import { GRPC_WEB_TEXT, isGrpcWebText } from './grpc-web-text.js';
import { serveImport } from './import-call.js';
import { rpcTable } from './offered-rpcs.js';
import { codeOfHttpStatus, rpcErrorOfDomainError } from './rest-mapping.js';
import { header, hookAnswerHead, type RpcCall, type RpcHandlerOptions, type RpcRoute } from './rpc-call.js';
import { serveUnaryRpc, type UnaryProtocol } from './unary-rpc.js';

export type { RpcHandlerOptions };

/**
 * `/zitadel.admin.v1.AdminService/SetDefaultVerifyEmailMessageText` and
 * `/grpc.reflection.v1.ServerReflection/ServerReflectionInfo`: paths server.ts hands to the RPC handler.
 */
const RPC_PATH = /^\/(?:zitadel\.[a-z0-9_.]+\.v\d+\w*|grpc\.reflection\.v\d+\w*)\.[A-Za-z0-9_]+\/[A-Za-z0-9_]+$/;

export function isRpcPath(path: string): boolean {
  return RPC_PATH.test(path);
}

const IMPORT_RPC = 'zitadel.admin.v1.AdminService/ImportData';

/** What a request path leads to: connect's handler, and the RPC's route (none for reflection). */
interface Target {
  connect: UniversalHandler;
  route?: RpcRoute;
  /** An offered RPC: plain unary calls take the lean path. */
  lean: boolean;
  /** ImportData, offered: its REST call starts before its message is read. */
  isImport: boolean;
}

export function createRpcHandler(options: RpcHandlerOptions): RequestHandler {
  const routes: RpcRoute[] = rpcTable().map((entry) => ({
    entry,
    readMaxBytes: entry.name === IMPORT_RPC ? options.maxImportBodyBytes : options.maxBodyBytes,
    gateway: options,
  }));
  const routeOf = new Map(routes.map((route) => [`/${route.entry.name}`, route]));
  const targets = new Map<string, Target>();
  for (const [path, connect] of connectHandlers(routes, options.maxBodyBytes)) {
    const route = routeOf.get(path);
    const offered = Boolean(route?.entry.twin);
    targets.set(path, { connect, route, lean: offered, isImport: offered && route!.entry.name === IMPORT_RPC });
  }

  return (req, res) => {
    const started = performance.now();
    const path = (req.url ?? '').split('?', 1)[0];
    const call: RpcCall = { req, path, requestId: requestIdOf(header(req, 'x-request-id')), remoteAddress: req.socket?.remoteAddress, rest: {} };
    const target = targets.get(path);
    if (req.httpVersionMajor === 1 || target?.isImport) hookAnswerHead(res, call);
    res.once('close', () => {
      call.importCall?.abandon();
      logCall(options.logger, call, res, started);
    });
    if (!target) {
      writeRpcError(req, res, call, rpcErrorOfDomainError(new DomainError(GrpcCode.Unimplemented, 'RPC-N0tOf', `${path.slice(1)} is not offered by this service`)));
      return;
    }
    const contentType = header(req, 'content-type');
    const lean = target.lean ? leanProtocol(req, contentType) : undefined;
    if (target.isImport) void serveImport(req, res, target.route!, call, () => serve(req, res, target, call, contentType, lean));
    else serve(req, res, target, call, contentType, lean);
  };
}

/** The lean path's protocol module for a plain unary call: gRPC over HTTP/2, or a Connect POST. */
function leanProtocol(req: NodeRequest, contentType: string | undefined): UnaryProtocol | undefined {
  if (req.method !== 'POST') return undefined;
  if (isPlainGrpc(req, contentType)) return GRPC_UNARY;
  return plainConnectUnary(req, contentType);
}

function serve(req: NodeRequest, res: NodeResponse, target: Target, call: RpcCall, contentType: string | undefined, lean: UnaryProtocol | undefined): void {
  if (lean) void serveUnaryRpc(req, res, lean, target.route!, call);
  else serveWithConnect(req, res, target.connect, call, isGrpcWebText(contentType) ? GRPC_WEB_TEXT : undefined);
}

/** One line per RPC call, like the REST API's (request-context.ts): method, RPC, status code, duration, caller. */
function logCall(logger: Logger | undefined, call: RpcCall, res: NodeResponse, started: number): void {
  if (!logger || !(logger.isEnabled?.('info') ?? true)) return;
  const req = call.req;
  logger.info('rpc', {
    requestId: call.requestId,
    method: req.method,
    rpc: call.path.slice(1),
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
