/**
 * gRPC's status fields (`grpc-status`, `grpc-message`, `grpc-status-details-bin`) as the gRPC spec
 * writes them, on every path an RPC is answered: the lean gRPC path (grpc-unary.ts), the errors
 * answered outside any protocol module (error-answer.ts), and connect-node's handlers (gRPC trailers and
 * gRPC-web's trailer frame, rewritten in `withSpecGrpcMessages`).
 *
 * Why: connect writes `grpc-message` with `encodeURIComponent`, which also encodes `/`, `:`, `,`,
 * `?`, `@`, `&`, `=`, `+`, `$`, `#` and space. The spec (PROTOCOL-HTTP2.md, "Status-Message") sends
 * every printable ASCII character but `%` as it is and percent-encodes only the other bytes of the
 * message's UTF-8. grpc-js — under nice-grpc and ZITADEL's Node SDK @zitadel/node — decodes with
 * `decodeURI`, which leaves `%2F` and `%3A` as they are, so its users read
 * `ManagementService%2FGetIAM` and `invalid userId%3A …`. Spec-encoded, the message reads the same
 * through `decodeURI` (grpc-js), `decodeURIComponent` (connect's clients) and grpc-go's decoder.
 */
import type { ConnectError } from '@connectrpc/connect';
import type { UniversalServerResponse } from '@connectrpc/connect/protocol';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';

import { COMPRESSED_FLAG, enveloped, TRAILER_FLAG } from './grpc-envelope.js';

const GRPC_MESSAGE = 'grpc-message';

/** The spec's percent-encoding of a status message: bytes 0x20–0x7E but `%` as they are, the others `%XX`. */
export function percentEncodeGrpcMessage(message: string): string {
  let plain = true;
  for (let i = 0; i < message.length && plain; i++) {
    const c = message.charCodeAt(i);
    plain = c >= 0x20 && c <= 0x7e && c !== 0x25;
  }
  if (plain) return message;
  let encoded = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    encoded += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** A `grpc-message` connect wrote (encodeURIComponent) as the spec writes it. */
function respecified(connectEncoded: string): string {
  let message: string;
  try {
    message = decodeURIComponent(connectEncoded);
  } catch {
    return connectEncoded; // not connect's: left as it came
  }
  return percentEncodeGrpcMessage(message);
}

/** The status fields of an error, for trailers (or the headers of a trailers-only answer). */
export function grpcStatusFields(error: ConnectError): Record<string, string> {
  const fields: Record<string, string> = {};
  setTrailerStatus(new Headers(), error).forEach((value, key) => (fields[key] = value));
  fields[GRPC_MESSAGE] = percentEncodeGrpcMessage(error.rawMessage);
  return fields;
}

/** Rewrites a Headers' `grpc-message` (connect's encoding) in place. */
function respecifyHeaders(headers: Headers | undefined): void {
  const message = headers?.get(GRPC_MESSAGE);
  if (message != null) headers!.set(GRPC_MESSAGE, respecified(message));
}

/**
 * connect-node's answer with its status messages as the spec encodes them: in the header (a
 * trailers-only answer), in the trailer (gRPC; connect sets it once the body has ended, so it is
 * rewritten then, before connect-node writes it), and in gRPC-web's trailer frame (the body's last
 * envelope, which connect yields whole: one chunk per envelope).
 */
export function withSpecGrpcMessages(response: UniversalServerResponse): UniversalServerResponse {
  respecifyHeaders(response.header);
  if (!response.body) {
    respecifyHeaders(response.trailer);
    return response;
  }
  return { ...response, body: respecifiedBody(response.body, response.trailer) };
}

async function* respecifiedBody(body: AsyncIterable<Uint8Array>, trailer: Headers | undefined): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of body) yield isWholeTrailerFrame(chunk) ? respecifiedTrailerFrame(chunk) : chunk;
  } finally {
    respecifyHeaders(trailer);
  }
}

function isWholeTrailerFrame(chunk: Uint8Array): boolean {
  if (chunk.length < 5 || (chunk[0] & TRAILER_FLAG) === 0 || (chunk[0] & COMPRESSED_FLAG) !== 0) return false;
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).readUInt32BE(1) === chunk.length - 5;
}

/** gRPC-web's trailer frame: `name: value\r\n` lines (connect's `trailerSerialize`). */
function respecifiedTrailerFrame(frame: Uint8Array): Uint8Array {
  const text = Buffer.from(frame.buffer, frame.byteOffset + 5, frame.byteLength - 5).toString('latin1');
  const rewritten = text.replace(/^(grpc-message:[ \t]*)([^\r\n]*)/im, (_, name: string, value: string) => name + respecified(value));
  if (rewritten === text) return frame;
  return enveloped(frame[0], Buffer.from(rewritten, 'latin1'));
}
