/**
 * An RPC is its REST twin's call: the request message becomes the REST request its
 * `google.api.http` rule names (rest-mapping.ts), the current Hono app answers it in process
 * (in-process-request.ts), and the answer becomes the response message or the RPC's error. Every
 * protocol module calls this: the lean unary ones (unary-rpc.ts) and connect-node's handlers
 * (connect-handlers.ts). So an RPC has one implementation — authentication, organisation headers,
 * permissions, validation, events, errors — and no handler of its own.
 */
import type { DescMessage, Message } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { DomainError, GrpcCode } from '../domain/errors.js';
import type { NodeRequest } from '../transport/http-server.js';
import { answerText, InProcessHeaders, inProcessRequest } from './in-process-request.js';
import { messageOfRestAnswer, restRequestOf, rpcErrorOfDomainError, rpcErrorOfRestAnswer } from './rest-mapping.js';
import { header, type RpcCall, type RpcRoute } from './rpc-call.js';

/**
 * One RPC: its REST call, or UNIMPLEMENTED when it has no twin. The answer becomes the response
 * message, a refusal the ConnectError with ZITADEL's error details; the call's code is kept for its
 * log line. `metadata` is where the caller's headers are: the node request, or connect's Headers.
 */
export async function callRestTwin(route: RpcRoute, message: Message, call: RpcCall, metadata: Headers | NodeRequest, signal: AbortSignal): Promise<Message> {
  const { entry, gateway } = route;
  try {
    if (!entry.twin) throw new DomainError(GrpcCode.Unimplemented, 'RPC-N0tOf', `${entry.name} is not offered by this service`);
    const request = restRequestOf(entry.twin, entry.method.input as DescMessage, message);
    let response: Response;
    if (call.importCall) {
      // ImportData's REST call is already running, waiting for its body (import-call.ts).
      call.importCall.supply(request.body ?? '{}');
      response = await call.importCall.response;
    } else {
      response = await gateway.app().fetch(inProcessRequest(`http://rpc.internal${request.target}`, request.method, restHeaders(metadata, call, request.body !== undefined), request.body, signal), {
        incoming: call.req,
        rpcCall: call.rest,
      });
    }
    const text = await answerText(response);
    if (!response.ok) throw rpcErrorOfRestAnswer(response.status, text);
    const output = messageOfRestAnswer(entry.method.output as DescMessage, text ? JSON.parse(text) : {}, entry.name);
    call.code = 0;
    return output;
  } catch (error) {
    const failure = error instanceof DomainError ? rpcErrorOfDomainError(error) : ConnectError.from(error);
    call.code = failure.code;
    if (failure.code === Code.Internal)
      gateway.logger?.error('rpc failed', { requestId: call.requestId, rpc: entry.name, error: String((error as Error)?.stack ?? error), cause: String((error as Error)?.cause ?? '') });
    throw failure;
  }
}

/** The metadata a REST call reads: the token, the organisation context, the request id. */
const PASSED_HEADERS = ['authorization', 'x-zitadel-orgid', 'x-service-orgid'] as const;

export function restHeaders(metadata: Headers | NodeRequest, call: RpcCall, withBody: boolean): Headers {
  const headers = new InProcessHeaders() as unknown as Headers;
  for (const name of PASSED_HEADERS) {
    const value = metadata instanceof Headers ? metadata.get(name) : header(metadata, name);
    if (value) headers.set(name, value);
  }
  headers.set('x-request-id', call.requestId);
  if (withBody) headers.set('content-type', 'application/json');
  return headers;
}
