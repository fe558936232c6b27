/**
 * gRPC unary calls on the lean path (unary-rpc.ts): over HTTP/2, protobuf messages, no compression
 * — what ZITADEL's SDKs, nice-grpc and grpc-go send. connect's pieces for what the protocol says:
 * the deadline (`grpc-timeout`, connect's `parseTimeout`), the envelope (as `encodeEnvelope` frames it), the
 * status with ZITADEL's error details in trailers (`grpcStatusFields`: connect's `setTrailerStatus`
 * with the spec's message encoding), connect's limit and framing messages.
 */

import type { Http2ServerResponse } from 'node:http2';
import type { DescMessage } from '@bufbuild/protobuf';
import { toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { parseTimeout } from '@connectrpc/connect/protocol-grpc';
import type { NodeRequest, NodeResponse } from '../transport/http-server.js';
import { COMPRESSED_FLAG, enveloped } from './grpc-envelope.js';
import { grpcStatusFields } from './grpc-status.js';
import { header } from './rpc-call.js';
import { decodeBinary, MAX_TIMEOUT_MS, readBody, type UnaryOutcome, type UnaryProtocol } from './unary-rpc.js';

/** connect's own request content types for protobuf-encoded gRPC. */
const GRPC_PROTO_TYPES = new Set(['application/grpc', 'application/grpc+proto']);
/** What connect answers gRPC with (its `contentTypeProto`). */
const ANSWER_TYPE = 'application/grpc+proto';

/** Whether the lean path takes this gRPC call: protobuf, over HTTP/2, not compressed. */
export function isPlainGrpc(req: NodeRequest, contentType: string | undefined): boolean {
  if (!GRPC_PROTO_TYPES.has(contentType ?? '') || req.httpVersionMajor !== 2) return false;
  const encoding = header(req, 'grpc-encoding');
  return encoding === undefined || encoding === 'identity';
}

export const GRPC_UNARY: UnaryProtocol = {
  timeout: (req) => parseTimeout(header(req, 'grpc-timeout') ?? null, MAX_TIMEOUT_MS),
  read: readEnvelopedMessage,
  decode: decodeBinary,
  answer: answerGrpc,
};

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

/** The message in its envelope and status 0, or a trailers-carried status with ZITADEL's details. */
function answerGrpc(res: NodeResponse, schema: DescMessage, outcome: UnaryOutcome): void {
  res.writeHead(200, { 'content-type': ANSWER_TYPE });
  if ('error' in outcome) {
    (res as Http2ServerResponse).addTrailers(grpcStatusFields(outcome.error));
    res.end();
    return;
  }
  (res as Http2ServerResponse).addTrailers({ 'grpc-status': '0' });
  res.end(enveloped(0, toBinary(schema, outcome.output)));
}
