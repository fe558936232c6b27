/**
 * Unary gRPC over HTTP/2 (what ZITADEL's SDKs, nice-grpc and grpc-go send) served without
 * connect-node's per-call pipeline. Why: connect's gRPC handler runs every call, unary ones too,
 * through a chain of async iterables and aborts a per-call AbortController at its end (a
 * DOMException with two stack captures); with an empty handler it cost ~6× the REST PUT's CPU,
 * where node's own HTTP/2 server costs about as much as the REST PUT (BENCHMARKS.md round 21).
 *
 * What it does is connect's, piece by piece: the five-byte envelope read with connect's limit and
 * messages (readMaxBytes: RESOURCE_EXHAUSTED), the deadline parsed by connect's `parseTimeout`, the
 * status and ZITADEL's error details in trailers by connect's `setTrailerStatus`, the message
 * codec protobuf-es's. The RPC itself is the same call of its REST twin as connect-node's handler
 * makes (rpc-handler.ts, `invokeTwin`). Everything else stays with connect-node: compressed
 * messages, gRPC-web, the Connect protocol and the reflection stream.
 */
import { fromBinary, toBinary, type DescMessage, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { encodeEnvelope } from '@connectrpc/connect/protocol';
import { parseTimeout, setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import type { ConnectNodeAdapterOptions } from '@connectrpc/connect-node';
import type { Http2ServerResponse } from 'node:http2';

/** The request and response types connect-node's adapter takes, as rpc-handler.ts uses them. */
type NodeHandler = NonNullable<ConnectNodeAdapterOptions['fallback']>;
type NodeRequest = Parameters<NodeHandler>[0];
type NodeResponse = Parameters<NodeHandler>[1];

/** connect's own request content types for protobuf-encoded gRPC. */
const GRPC_PROTO_TYPES = new Set(['application/grpc', 'application/grpc+proto']);
/** What connect answers with (its `contentTypeProto`). */
const ANSWER_TYPE = 'application/grpc+proto';
/** connect's default largest deadline (`maxTimeoutMs`): none. */
const MAX_TIMEOUT_MS = Number.MAX_SAFE_INTEGER;
const COMPRESSED_FLAG = 0b1;

/** Unary gRPC with protobuf messages, uncompressed, over HTTP/2: the calls this module serves. */
export function isPlainUnaryGrpc(req: NodeRequest): boolean {
  if (req.httpVersionMajor !== 2 || req.method !== 'POST') return false;
  if (!GRPC_PROTO_TYPES.has(String(req.headers['content-type']))) return false;
  const encoding = req.headers['grpc-encoding'];
  return encoding === undefined || encoding === 'identity';
}

export interface UnaryGrpcCall {
  input: DescMessage;
  output: DescMessage;
  readMaxBytes: number;
  /** The RPC: its REST twin called with the message (rpc-handler.ts). Errors are ConnectErrors. */
  invoke(message: Message, signal: AbortSignal): Promise<Message>;
  /** The status code the call ended with, for its log line. */
  ended(code: number): void;
}

/** Reads, calls and answers one unary gRPC call; every failure is answered as a gRPC status. */
export async function serveUnaryGrpc(req: NodeRequest, res: NodeResponse, call: UnaryGrpcCall): Promise<void> {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableEnded) abort.abort(new ConnectError('the client went away', Code.Canceled));
  };
  res.once('close', onClose);
  let deadline: NodeJS.Timeout | undefined;
  let answer: Uint8Array | undefined;
  let trailers: Headers;
  try {
    const timeout = parseTimeout(header(req, 'grpc-timeout') ?? null, MAX_TIMEOUT_MS);
    if (timeout.error) throw timeout.error;
    const work = (async () => {
      const message = decode(call.input, await readUnaryMessage(req, call.readMaxBytes));
      return call.invoke(message, abort.signal);
    })();
    // The deadline covers the whole call from its arrival, its message's reading included, as connect's does.
    const output = timeout.timeoutMs === undefined ? await work : await Promise.race([work, new Promise<never>((_, reject) => {
      deadline = setTimeout(() => {
        const error = new ConnectError('the operation timed out', Code.DeadlineExceeded);
        abort.abort(error);
        reject(error);
      }, timeout.timeoutMs);
    })]);
    answer = encodeEnvelope(0, toBinary(call.output, output));
    trailers = new Headers({ 'grpc-status': '0' });
    call.ended(0);
  } catch (failure) {
    const error = failure instanceof ConnectError ? failure : new ConnectError('internal error', Code.Internal, undefined, undefined, failure);
    trailers = setTrailerStatus(new Headers(), error);
    call.ended(error.code);
  } finally {
    clearTimeout(deadline);
  }
  res.off('close', onClose);
  if (res.destroyed || res.writableEnded) return;
  try {
    res.writeHead(200, { 'content-type': ANSWER_TYPE });
    (res as unknown as Http2ServerResponse).addTrailers(Object.fromEntries(trailers));
    if (answer) res.end(answer);
    else res.end();
  } catch {
    // The stream closed between the check and the answer (the client reset it): nobody to answer.
    res.destroy();
  }
}

function decode(schema: DescMessage, bytes: Uint8Array): Message {
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    throw new ConnectError(`parse binary: ${(error as Error).message}`, Code.InvalidArgument);
  }
}

/**
 * The request's one message: its envelope's length checked against the limit as soon as the
 * five-byte prefix has arrived (the rest is then not read), a second message refused.
 */
function readUnaryMessage(req: NodeRequest, readMaxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let length: number | undefined;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const fail = (error: ConnectError) => {
      done();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (length === undefined && received >= 5) {
        const prefix = chunks.length === 1 ? chunk : Buffer.concat(chunks, received);
        if (prefix[0] & COMPRESSED_FLAG) return fail(new ConnectError('protocol error: received compressed envelope, but no grpc-encoding', Code.Internal));
        length = prefix.readUInt32BE(1);
        if (length > readMaxBytes) return fail(new ConnectError(`message size ${length} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted));
      }
      if (length !== undefined && received > 5 + length) fail(new ConnectError('protocol error: received extra input message for unary method', Code.Unimplemented));
    };
    const onEnd = () => {
      done();
      if (length === undefined || received < 5 + length) return reject(new ConnectError('protocol error: missing input message for unary method', Code.Unimplemented));
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      resolve(body.subarray(5, 5 + length));
    };
    const onError = () => fail(new ConnectError('the request failed while it was read', Code.Canceled));
    const onAborted = () => fail(new ConnectError('the client went away', Code.Canceled));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('aborted', onAborted);
  });
}

function header(req: NodeRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
