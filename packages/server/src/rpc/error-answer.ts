/**
 * An error answered outside any protocol module (an unknown RPC, an import refused before its
 * body), in the protocol the client speaks, with connect's own protocol helpers: gRPC and gRPC-web
 * as a trailers-only response (the status fields as grpc-status.ts writes them), Connect as its
 * JSON error body.
 */
import type { ConnectError } from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { grpcStatusFields } from './grpc-status.js';
import { header, type RpcCall, requestRead } from './rpc-call.js';

export function writeRpcError(req: NodeRequest, res: NodeResponse, call: RpcCall, error: ConnectError): void {
  call.code = error.code;
  // Its message may be unread: answered once the client has sent it (requestRead, rpc-call.ts).
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
