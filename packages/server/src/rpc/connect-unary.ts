/**
 * Connect unary calls on the lean path (unary-rpc.ts): POSTs in JSON or protobuf without
 * compression (curl, Connect clients), over either HTTP version. connect's pieces for what the
 * protocol says: the deadline (`connect-timeout-ms`, connect's `parseTimeout`), its status mapping
 * and JSON error body (`codeToHttpStatus`, `errorToJsonBytes`), its limit messages, JSON read as
 * connect reads it (unknown fields ignored).
 */
import { type DescMessage, fromJsonString, type Message, toBinary, toJsonString } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes, parseContentType, parseTimeout } from '@connectrpc/connect/protocol-connect';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { header } from './rpc-call.js';
import { decodeBinary, MAX_TIMEOUT_MS, readBody, type UnaryOutcome, type UnaryProtocol } from './unary-rpc.js';

/** connect's JSON reading: a field this service's descriptors do not know is ignored. */
const JSON_READ = { ignoreUnknownFields: true } as const;

/** The protocol of a Connect call the lean path takes (a unary POST, not compressed), or undefined. */
export function plainConnectUnary(req: NodeRequest, contentType: string | undefined): UnaryProtocol | undefined {
  const connect = parseContentType(contentType ?? null);
  if (!connect || connect.stream) return undefined;
  const encoding = header(req, 'content-encoding');
  if (encoding !== undefined && encoding !== 'identity') return undefined;
  return connect.binary ? CONNECT_PROTO : CONNECT_JSON;
}

const timeout = (req: NodeRequest) => parseTimeout(header(req, 'connect-timeout-ms') ?? null, MAX_TIMEOUT_MS);

const CONNECT_JSON: UnaryProtocol = {
  timeout,
  read: readMessage,
  decode: decodeJson,
  answer: (res, schema, outcome) => answerConnect(res, schema, outcome, 'application/json', toJsonString),
};

const CONNECT_PROTO: UnaryProtocol = {
  timeout,
  read: readMessage,
  decode: decodeBinary,
  answer: (res, schema, outcome) => answerConnect(res, schema, outcome, 'application/proto', toBinary),
};

/** The body, refused past the limit as soon as its declared length or its bytes say so. */
function readMessage(req: NodeRequest, readMaxBytes: number): Promise<Buffer> {
  const declared = header(req, 'content-length');
  if (declared !== undefined && Number(declared) > readMaxBytes) {
    return Promise.reject(new ConnectError(`message size ${Number(declared)} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted));
  }
  return readBody(req, (chunks, received) => {
    if (received > readMaxBytes) return new ConnectError(`message size is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
    return undefined;
  }).then(({ body }) => body);
}

function decodeJson(schema: DescMessage, bytes: Buffer): Message {
  try {
    return fromJsonString(schema, utf8Text(bytes), JSON_READ);
  } catch (error) {
    throw ConnectError.from(error, Code.InvalidArgument);
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

/**
 * The message as the body, or the error's HTTP status and Connect's JSON error body. JSON is
 * written as the string it is: node's HTTP/1.1 response sends a string body in one write with its
 * head, where bytes take a second buffer and a gathered write (~2 µs of a Connect JSON call, BENCHMARKS.md round 30).
 */
function answerConnect(res: NodeResponse, schema: DescMessage, outcome: UnaryOutcome, contentType: string, encode: (schema: DescMessage, message: Message) => Uint8Array | string): void {
  if ('error' in outcome) {
    const body = errorToJsonBytes(outcome.error, {});
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.byteLength) };
    outcome.error.metadata.forEach((value, key) => (headers[key] = value));
    res.writeHead(codeToHttpStatus(outcome.error.code), headers);
    res.end(body);
    return;
  }
  const body = encode(schema, outcome.output);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  res.writeHead(200, { 'content-type': contentType, 'content-length': String(length) });
  res.end(body);
}
