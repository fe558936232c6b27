/**
 * The lean unary path: what a unary call over gRPC (grpc-unary.ts) or Connect (connect-unary.ts)
 * does whatever its protocol — its deadline, its message read and decoded, its REST twin called
 * (rest-twin-call.ts), the outcome answered — without connect-node's per-call machinery. Why:
 * connect's gRPC handler runs unary calls through the same chain of async iterables as streams,
 * and every handler builds a context of three Headers, a linked AbortController and a deadline
 * signal, and aborts it at the end without a reason (a DOMException: two stack captures). With an
 * empty handler connect-node cost ~5× (gRPC) and ~2.5× (Connect JSON) the REST PUT's CPU, where
 * node's own servers cost ~1× and ~0.35× (BENCHMARKS.md round 21).
 *
 * What the protocols say is connect's, piece by piece, in the protocol modules; the codecs are
 * protobuf-es's. connect-node keeps what this does not take: compressed messages, gRPC-web,
 * Connect's GET and streams, and the reflection stream (connect-handlers.ts). Serving a call makes
 * no functions of its own but its listeners, which are passed inline: tsx, which runs the sources
 * (dev, tests, bench), gives every named function a `name` property as it is created (ARCHITECTURE.md).
 */
import { type DescMessage, fromBinary, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { callRestTwin } from './rest-twin-call.js';
import { type RpcCall, type RpcRoute, requestRead } from './rpc-call.js';

/** The call's outcome, as a protocol module answers it. */
export type UnaryOutcome = { output: Message } | { error: ConnectError };

/** One protocol of the lean path: what differs between gRPC and Connect (JSON or protobuf). */
export interface UnaryProtocol {
  /** The call's deadline from its header, by connect's `parseTimeout` for the protocol. */
  timeout(req: NodeRequest): { timeoutMs?: number; error?: ConnectError };
  /** The request message's bytes, or the first refusal (its size, its framing) while they arrive. */
  read(req: NodeRequest, readMaxBytes: number): Promise<Buffer>;
  decode(schema: DescMessage, bytes: Buffer): Message;
  answer(res: NodeResponse, schema: DescMessage, outcome: UnaryOutcome): void;
}

/** connect's default largest deadline (`maxTimeoutMs`): none. */
export const MAX_TIMEOUT_MS = Number.MAX_SAFE_INTEGER;

/** Reads, calls and answers one unary call; every failure is answered in the call's protocol. */
export async function serveUnaryRpc(req: NodeRequest, res: NodeResponse, protocol: UnaryProtocol, route: RpcRoute, call: RpcCall): Promise<void> {
  const abort = new AbortController();
  // Left attached: once the answer is written there is nothing to abort.
  res.on('close', () => {
    if (!res.writableEnded) abort.abort(new ConnectError('the client went away', Code.Canceled));
  });
  let deadline: NodeJS.Timeout | undefined;
  let outcome: UnaryOutcome;
  try {
    const timeout = protocol.timeout(req);
    if (timeout.error) throw timeout.error;
    const work = protocol.read(req, route.readMaxBytes).then((bytes) => callRestTwin(route, protocol.decode(route.entry.method.input as DescMessage, bytes), call, req, abort.signal));
    // The deadline covers the whole call from its arrival, its message's reading included, as connect's does.
    const output =
      timeout.timeoutMs === undefined
        ? await work
        : await Promise.race([
            work,
            new Promise<never>((_, reject) => {
              deadline = setTimeout(() => {
                const error = new ConnectError('the operation timed out', Code.DeadlineExceeded);
                abort.abort(error);
                reject(error);
              }, timeout.timeoutMs);
            }),
          ]);
    outcome = { output };
    call.code = 0;
  } catch (failure) {
    const error = failure instanceof ConnectError ? failure : new ConnectError('internal error', Code.Internal, undefined, undefined, failure);
    outcome = { error };
    call.code = error.code;
  } finally {
    clearTimeout(deadline);
  }
  // A refusal of the message (its size) before it was read waits for the client to have sent it
  // (requestRead); a deadline or a cancellation does not: the client is no longer waiting for it.
  if ('error' in outcome && outcome.error.code !== Code.DeadlineExceeded && outcome.error.code !== Code.Canceled) await requestRead(req);
  if (res.destroyed || res.writableEnded) return;
  try {
    protocol.answer(res, route.entry.method.output as DescMessage, outcome);
  } catch {
    // The stream closed between the check and the answer (the client reset it): nobody to answer.
    res.destroy();
  }
}

/** A protobuf message; bytes a caller sent that are no message are its mistake (3), as a bad JSON body is (connect says INTERNAL). */
export function decodeBinary(schema: DescMessage, bytes: Buffer): Message {
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    throw new ConnectError(`parse binary: ${(error as Error).message}`, Code.InvalidArgument);
  }
}

/**
 * The request body, or the first refusal `check` returns while it arrives (what follows is not kept).
 * The listeners are left on the request, which is answered and dropped; `on` rather than `once`
 * (each event comes at most once; `once` wraps every listener in one more closure, and a second
 * 'error' finds a listener still there). They are passed inline
 * rather than named because tsx, which runs the sources (dev, tests, bench), gives every named
 * function a `name` property as it is created: six per call here cost ~4 % of a Connect call's CPU.
 */
export function readBody(req: NodeRequest, check: (chunks: Buffer[], received: number) => ConnectError | undefined): Promise<{ body: Buffer; received: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let reading = true;
    req.on('data', (chunk: Buffer) => {
      if (!reading) return;
      chunks.push(chunk);
      received += chunk.length;
      const refusal = check(chunks, received);
      if (refusal) {
        reading = false;
        chunks.length = 0;
        reject(refusal);
      }
    });
    req.on('end', () => {
      if (!reading) return;
      reading = false;
      resolve({ body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received), received });
    });
    req.on('error', () => {
      reading = false;
      reject(new ConnectError('the request failed while it was read', Code.Canceled));
    });
    req.on('aborted', () => {
      reading = false;
      reject(new ConnectError('the client went away', Code.Canceled));
    });
  });
}
