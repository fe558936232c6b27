/**
 * Unary calls over gRPC (HTTP/2) and the Connect protocol, served without connect-node's per-call
 * machinery. Why: connect's gRPC handler runs unary calls through the same chain of async iterables
 * as streams, and every handler builds a context of three Headers, a linked AbortController and a
 * deadline signal, and aborts it at the end without a reason (a DOMException: two stack captures).
 * With an empty handler connect-node cost ~5× (gRPC) and ~2.5× (Connect JSON) the REST PUT's CPU,
 * where node's own servers cost ~1× and ~0.35× (BENCHMARKS.md round 21).
 *
 * What the protocols say is connect's, piece by piece: the deadline headers by connect's
 * `parseTimeout`s, gRPC's envelope (`encodeEnvelope`) and its status with ZITADEL's error details in
 * trailers (`grpcStatusFields`, connect's `setTrailerStatus` with the spec's message encoding), Connect's status mapping and JSON error body (`codeToHttpStatus`,
 * `errorToJsonBytes`), connect's limit messages (RESOURCE_EXHAUSTED past `readMaxBytes`), JSON read
 * as connect reads it (unknown fields ignored); the codecs are protobuf-es's. The RPC itself is the
 * same call of its REST twin as connect-node's handlers make (rpc-handler.ts, `invokeTwin`).
 * connect-node keeps what this does not take: compressed messages, gRPC-web, Connect's GET and
 * streams, and the reflection stream.
 */
import { fromBinary, fromJsonString, toBinary, toJsonString, type DescMessage, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { encodeEnvelope } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorToJsonBytes, parseContentType as parseConnectContentType, parseTimeout as parseConnectTimeout } from '@connectrpc/connect/protocol-connect';
import { parseTimeout as parseGrpcTimeout } from '@connectrpc/connect/protocol-grpc';
import type { ConnectNodeAdapterOptions } from '@connectrpc/connect-node';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { grpcStatusFields } from './grpc-status.js';

/** The handler, request and response types of connect-node's adapter, which every RPC path takes. */
export type NodeHandler = NonNullable<ConnectNodeAdapterOptions['fallback']>;
export type NodeRequest = Parameters<NodeHandler>[0];
export type NodeResponse = Parameters<NodeHandler>[1];

/** gRPC over HTTP/2 with protobuf messages, or a Connect unary POST in JSON or protobuf. */
export type UnaryProtocol = { name: 'grpc' } | { name: 'connect'; binary: boolean };

/** connect's own request content types for protobuf-encoded gRPC. */
const GRPC_PROTO_TYPES = new Set(['application/grpc', 'application/grpc+proto']);
/** What connect answers gRPC with (its `contentTypeProto`). */
const GRPC_ANSWER_TYPE = 'application/grpc+proto';
/** connect's default largest deadline (`maxTimeoutMs`): none. */
const MAX_TIMEOUT_MS = Number.MAX_SAFE_INTEGER;
const COMPRESSED_FLAG = 0b1;
/** connect's JSON reading: a field this service's descriptors do not know is ignored. */
const JSON_READ = { ignoreUnknownFields: true } as const;
const encoder = new TextEncoder();

/** The protocol of a call this module serves, or undefined for one connect-node serves. */
export function plainUnaryProtocol(req: NodeRequest): UnaryProtocol | undefined {
  if (req.method !== 'POST') return undefined;
  const contentType = header(req, 'content-type');
  if (GRPC_PROTO_TYPES.has(contentType ?? '')) {
    const encoding = header(req, 'grpc-encoding');
    return req.httpVersionMajor === 2 && (encoding === undefined || encoding === 'identity') ? { name: 'grpc' } : undefined;
  }
  const connect = parseConnectContentType(contentType ?? null);
  if (!connect || connect.stream) return undefined;
  const encoding = header(req, 'content-encoding');
  return encoding === undefined || encoding === 'identity' ? { name: 'connect', binary: connect.binary } : undefined;
}

/**
 * One RPC as this module serves it, made once per RPC: `context` is what the caller keeps of each
 * call (handed to `invoke` and `ended`), so that serving a call creates no functions of its own.
 */
export interface UnaryRpc<C> {
  input: DescMessage;
  output: DescMessage;
  readMaxBytes: number;
  /** The RPC: its REST twin called with the message (rpc-handler.ts). Errors are ConnectErrors. */
  invoke(message: Message, signal: AbortSignal, req: NodeRequest, context: C): Promise<Message>;
  /** The status code the call ended with, for its log line. */
  ended(code: number, context: C): void;
}

/** Reads, calls and answers one unary call; every failure is answered in the call's protocol. */
export async function serveUnaryRpc<C>(req: NodeRequest, res: NodeResponse, protocol: UnaryProtocol, rpc: UnaryRpc<C>, context: C): Promise<void> {
  const abort = new AbortController();
  // Left attached: once the answer is written there is nothing to abort.
  res.once('close', () => {
    if (!res.writableEnded) abort.abort(new ConnectError('the client went away', Code.Canceled));
  });
  let deadline: NodeJS.Timeout | undefined;
  let outcome: { output: Message } | { error: ConnectError };
  try {
    const timeout =
      protocol.name === 'grpc'
        ? parseGrpcTimeout(header(req, 'grpc-timeout') ?? null, MAX_TIMEOUT_MS)
        : parseConnectTimeout(header(req, 'connect-timeout-ms') ?? null, MAX_TIMEOUT_MS);
    if (timeout.error) throw timeout.error;
    const work = readRequest(req, protocol, rpc.readMaxBytes).then((bytes) => rpc.invoke(decode(protocol, rpc.input, bytes), abort.signal, req, context));
    // The deadline covers the whole call from its arrival, its message's reading included, as connect's does.
    const output = timeout.timeoutMs === undefined ? await work : await Promise.race([work, new Promise<never>((_, reject) => {
      deadline = setTimeout(() => {
        const error = new ConnectError('the operation timed out', Code.DeadlineExceeded);
        abort.abort(error);
        reject(error);
      }, timeout.timeoutMs);
    })]);
    outcome = { output };
    rpc.ended(0, context);
  } catch (failure) {
    const error = failure instanceof ConnectError ? failure : new ConnectError('internal error', Code.Internal, undefined, undefined, failure);
    outcome = { error };
    rpc.ended(error.code, context);
  } finally {
    clearTimeout(deadline);
  }
  // A refusal of the message (its size) before it was read waits for the client to have sent it
  // (requestRead); a deadline or a cancellation does not: the client is no longer waiting for it.
  if ('error' in outcome && outcome.error.code !== Code.DeadlineExceeded && outcome.error.code !== Code.Canceled) await requestRead(req);
  if (res.destroyed || res.writableEnded) return;
  try {
    if (protocol.name === 'grpc') answerGrpc(res, rpc.output, outcome);
    else answerConnect(res, rpc.output, protocol.binary, outcome);
  } catch {
    // The stream closed between the check and the answer (the client reset it): nobody to answer.
    res.destroy();
  }
}

/** gRPC: the message in its envelope and status 0, or a trailers-carried status with ZITADEL's details. */
function answerGrpc(res: NodeResponse, schema: DescMessage, outcome: { output: Message } | { error: ConnectError }): void {
  res.writeHead(200, { 'content-type': GRPC_ANSWER_TYPE });
  if ('error' in outcome) {
    (res as unknown as Http2ServerResponse).addTrailers(grpcStatusFields(outcome.error));
    res.end();
    return;
  }
  (res as unknown as Http2ServerResponse).addTrailers({ 'grpc-status': '0' });
  res.end(encodeEnvelope(0, toBinary(schema, outcome.output)));
}

/** Connect: the message as the body, or the error's HTTP status and Connect's JSON error body. */
function answerConnect(res: NodeResponse, schema: DescMessage, binary: boolean, outcome: { output: Message } | { error: ConnectError }): void {
  if ('error' in outcome) {
    const body = errorToJsonBytes(outcome.error, {});
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.byteLength) };
    outcome.error.metadata.forEach((value, key) => (headers[key] = value));
    res.writeHead(codeToHttpStatus(outcome.error.code), headers);
    res.end(body);
    return;
  }
  const body = binary ? toBinary(schema, outcome.output) : encoder.encode(toJsonString(schema, outcome.output));
  res.writeHead(200, { 'content-type': binary ? 'application/proto' : 'application/json', 'content-length': String(body.byteLength) });
  res.end(body);
}

function decode(protocol: UnaryProtocol, schema: DescMessage, bytes: Buffer): Message {
  if (protocol.name === 'connect' && !protocol.binary) {
    try {
      return fromJsonString(schema, utf8Text(bytes), JSON_READ);
    } catch (error) {
      throw ConnectError.from(error, Code.InvalidArgument);
    }
  }
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    // connect says INTERNAL here; bytes a caller sent that are no message are its mistake (3), as a bad JSON body is.
    throw new ConnectError(`parse binary: ${(error as Error).message}`, Code.InvalidArgument);
  }
}

/**
 * The bytes as text, as connect's TextDecoder reads them (malformed bytes replaced, a leading BOM
 * dropped), with Buffer's own reading: the TextDecoder took ~2 % of a Connect JSON call's CPU.
 */
function utf8Text(bytes: Buffer): string {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}

function readRequest(req: NodeRequest, protocol: UnaryProtocol, readMaxBytes: number): Promise<Buffer> {
  if (protocol.name === 'grpc') return readEnvelopedMessage(req, readMaxBytes);
  const declared = header(req, 'content-length');
  if (declared !== undefined && Number(declared) > readMaxBytes) {
    return Promise.reject(new ConnectError(`message size ${Number(declared)} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted));
  }
  return readBody(req, (chunks, received) => {
    if (received > readMaxBytes) return new ConnectError(`message size is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
    return undefined;
  }).then(({ body }) => body);
}

/**
 * gRPC's one message: its envelope's length checked against the limit as soon as the five-byte
 * prefix has arrived (the rest is then not read); no message, or a second one, refused as connect does.
 */
async function readEnvelopedMessage(req: NodeRequest, readMaxBytes: number): Promise<Buffer> {
  let length: number | undefined;
  const { body, received } = await readBody(req, (chunks, received) => {
    if (length === undefined && received >= 5) {
      const prefix = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      if (prefix[0] & COMPRESSED_FLAG) return new ConnectError('protocol error: received compressed envelope, but no grpc-encoding', Code.Internal);
      length = prefix.readUInt32BE(1);
      if (length > readMaxBytes) return new ConnectError(`message size ${length} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
    }
    if (length !== undefined && received > 5 + length) return new ConnectError('protocol error: received extra input message for unary method', Code.Unimplemented);
    return undefined;
  });
  if (length === undefined || received < 5 + length) throw new ConnectError('protocol error: missing input message for unary method', Code.Unimplemented);
  return body.subarray(5, 5 + length);
}

/**
 * The request body, or the first refusal `check` returns while it arrives (what follows is not kept).
 * The listeners are left on the request, which is answered and dropped; they are passed inline
 * rather than named because tsx, which runs the sources (dev, tests, bench), gives every named
 * function a `name` property as it is created: six per call here cost ~4 % of a Connect call's CPU.
 */
function readBody(req: NodeRequest, check: (chunks: Buffer[], received: number) => ConnectError | undefined): Promise<{ body: Buffer; received: number }> {
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
    req.once('end', () => {
      if (!reading) return;
      reading = false;
      resolve({ body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received), received });
    });
    req.once('error', () => {
      reading = false;
      reject(new ConnectError('the request failed while it was read', Code.Canceled));
    });
    req.once('aborted', () => {
      reading = false;
      reject(new ConnectError('the client went away', Code.Canceled));
    });
  });
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
 * (rpc-handler.ts, closeWhenBodyLeftUnread).
 */
export function requestRead(req: NodeRequest): Promise<void> {
  if (req.httpVersionMajor !== 2) return Promise.resolve();
  const stream = (req as unknown as Http2ServerRequest).stream;
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

/** A request header's (first) value. */
export function header(req: NodeRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
