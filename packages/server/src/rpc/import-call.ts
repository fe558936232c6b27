/**
 * ImportData authenticates before its message is read, as its REST route does: its REST call
 * starts first, with a body that is only produced once the route asks for it — once the caller is
 * known to be allowed and an import slot of the shared gate is taken. Only then is the call served
 * by its protocol module, whose REST twin call (rest-twin-call.ts) supplies the decoded message as
 * that body. A refusal before the body is answered without reading the message.
 */
import { ConnectError } from '@connectrpc/connect';
import type { App } from '../app.js';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { writeRpcError } from './error-answer.js';
import { rpcErrorOfRestAnswer } from './rest-mapping.js';
import { restHeaders } from './rest-twin-call.js';
import type { DeferredRestCall, RpcCall, RpcRoute } from './rpc-call.js';

/**
 * A REST call whose body is made later: it is produced when the route first reads it (after its
 * authentication, permission check and import slot), from the RPC's decoded message.
 */
class PendingRestCall implements DeferredRestCall {
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

/**
 * Starts ImportData's REST call, then `serve`s the call once the route wants its body. The call
 * keeps the REST call (`call.importCall`): the RPC's REST twin call supplies the body to it, and an
 * answer or a close without a message abandons it (the dispatcher's response hook and close
 * listener, rpc-call.ts).
 */
export async function serveImport(req: NodeRequest, res: NodeResponse, route: RpcRoute, call: RpcCall, serve: () => void): Promise<void> {
  const pending = new PendingRestCall(route.gateway.app(), route.entry.twin!.template, restHeaders(req, call, true), { incoming: req, rpcCall: call.rest });
  call.importCall = pending;
  const bodyWanted = await Promise.race([
    pending.bodyWanted.then(() => true),
    pending.response.then(
      () => false,
      () => false,
    ),
  ]);
  if (bodyWanted) return serve();
  // Refused before the body (no token, no permission, no import slot): answered without reading it.
  let error: ConnectError;
  try {
    const response = await pending.response;
    error = rpcErrorOfRestAnswer(response.status, await response.text());
  } catch (failure) {
    error = ConnectError.from(failure);
  }
  writeRpcError(req, res, call, error);
}
