/**
 * gRPC-web's text mode (base64 frames, what browsers without binary streams send), which connect's
 * handlers do not take: the body is decoded to the binary mode's frames before connect reads it,
 * and the answer's frames are encoded, each chunk on its own (the mode allows padded segments).
 * Framing only: the messages are still connect's (connect-handlers.ts).
 */
import type { UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import type { Framing } from './connect-handlers.js';

export const isGrpcWebText = (contentType: string | undefined) => contentType?.startsWith('application/grpc-web-text') ?? false;

export const GRPC_WEB_TEXT: Framing = { request: binaryModeRequest, response: textModeResponse };

function binaryModeRequest(request: UniversalServerRequest): UniversalServerRequest {
  const header = new Headers(request.header);
  header.set('content-type', (header.get('content-type') ?? '').replace('grpc-web-text', 'grpc-web'));
  return { ...request, header, body: decodeBase64(request.body as AsyncIterable<Uint8Array>) };
}

function textModeResponse(response: UniversalServerResponse): UniversalServerResponse {
  const header = new Headers(response.header);
  const type = header.get('content-type');
  if (type) header.set('content-type', type.replace('grpc-web', 'grpc-web-text'));
  return { ...response, header, body: response.body && encodeBase64(response.body) };
}

async function* decodeBase64(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let pending = '';
  for await (const chunk of body) {
    pending += Buffer.from(chunk).toString('latin1').replace(/\s+/g, '');
    const whole = pending.length - (pending.length % 4);
    yield* decodeGroups(pending.slice(0, whole));
    pending = pending.slice(whole);
  }
  yield* decodeGroups(pending);
}

/** Whole 4-character groups; a padded group ends a segment, and the next segment starts afresh. */
function* decodeGroups(text: string): Iterable<Uint8Array> {
  for (const segment of text.match(/[^=]+={0,2}|=+/g) ?? []) {
    const bytes = Buffer.from(segment, 'base64');
    if (bytes.length > 0) yield bytes;
  }
}

async function* encodeBase64(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const chunk of body) yield Buffer.from(Buffer.from(chunk).toString('base64'), 'latin1');
}
