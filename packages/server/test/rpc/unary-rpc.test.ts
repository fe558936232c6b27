/**
 * Unary gRPC and Connect calls without connect-node's per-call machinery (src/rpc/unary-rpc.ts, grpc-unary.ts, connect-unary.ts):
 * what a client library never sends but a caller can (a bad deadline, a body that never comes, two
 * messages, bytes that are no message, a compressed message without its encoding, broken JSON), over
 * node's own HTTP/2 client and fetch on the service's port; and compressed calls, which connect-node
 * still serves, through connect-node's transports with gzip. The ordinary calls are grpc.test.ts's.
 */
import { request as httpRequest } from 'node:http';
import http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { compressionGzip, createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { AdminService, GetCustomVerifyEmailMessageTextRequestSchema, GetCustomVerifyEmailMessageTextResponseSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const GET_TEXT = '/zitadel.admin.v1.AdminService/GetCustomVerifyEmailMessageText';

const frame = (message: Uint8Array, flags = 0) => {
  const bytes = Buffer.alloc(5 + message.length);
  bytes[0] = flags;
  bytes.writeUInt32BE(message.length, 1);
  bytes.set(message, 5);
  return bytes;
};
const getText = (language: string) => toBinary(GetCustomVerifyEmailMessageTextRequestSchema, create(GetCustomVerifyEmailMessageTextRequestSchema, { language }));

interface Answer {
  status: string | undefined;
  message: string | undefined;
  body: Buffer;
  /** Milliseconds from the request to its status (the stream itself stays open until the client ends its side). */
  statusAfterMs: number;
}

describeEachStore('unary gRPC and Connect calls, served without connect-node', (dialect) => {
  let s: OidcTestServer;
  let session: http2.ClientHttp2Session;

  beforeAll(async () => {
    s = await startOidcServer(dialect, {});
    session = http2.connect(s.issuer);
    const set = await s.api('PUT', '/admin/v1/text/message/verifyemail/de', { title: 'Bitte bestätigen' });
    expect(set.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    session?.close();
    await s?.close();
  });

  /** One call; `body` is written after `delayMs` (the whole body, then the end of the stream). */
  function call(body: Buffer | undefined, headers: Record<string, string> = {}, delayMs = 0): Promise<Answer> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': GET_TEXT,
        'content-type': 'application/grpc',
        te: 'trailers',
        authorization: `Bearer ${s.t.adminToken}`,
        ...headers,
      });
      let status: string | undefined;
      let message: string | undefined;
      let statusAfterMs = Number.NaN;
      const chunks: Buffer[] = [];
      const read = (h: http2.IncomingHttpHeaders) => {
        if (h['grpc-status'] !== undefined) {
          status = String(h['grpc-status']);
          statusAfterMs = performance.now() - started;
        }
        if (h['grpc-message'] !== undefined) message = decodeURIComponent(String(h['grpc-message']));
      };
      stream.on('response', read);
      stream.on('trailers', read);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('close', () => resolve({ status, message, body: Buffer.concat(chunks), statusAfterMs }));
      const send = () => (body ? stream.end(body) : stream.end());
      if (delayMs > 0) {
        const timer = setTimeout(send, delayMs);
        stream.once('close', () => clearTimeout(timer));
      } else send();
    });
  }

  it('answers a plain call with the message and status 0', async () => {
    const answer = await call(frame(getText('de')));
    expect(answer.status).toBe('0');
    const message = fromBinary(GetCustomVerifyEmailMessageTextResponseSchema, answer.body.subarray(5));
    expect(message.customText?.title).toBe('Bitte bestätigen');
  });

  it('refuses a malformed deadline (3), and answers DEADLINE_EXCEEDED (4) when the message comes too late', async () => {
    const malformed = await call(frame(getText('de')), { 'grpc-timeout': 'soon' });
    expect(malformed.status).toBe('3');
    expect(malformed.message).toMatch(/invalid grpc timeout value/);
    const late = await call(frame(getText('de')), { 'grpc-timeout': '100m' }, 1_000);
    expect(late.status).toBe('4');
    expect(late.statusAfterMs).toBeLessThan(900);
    // Within its deadline the same call succeeds.
    expect((await call(frame(getText('de')), { 'grpc-timeout': '10S' })).status).toBe('0');
  });

  it('refuses two messages and none (12), bytes that are no message (3), and a compressed message without its encoding', async () => {
    const two = await call(Buffer.concat([frame(getText('de')), frame(getText('en'))]));
    expect([two.status, two.message]).toEqual(['12', 'protocol error: received extra input message for unary method']);
    const none = await call(undefined);
    expect([none.status, none.message]).toEqual(['12', 'protocol error: missing input message for unary method']);
    const garbage = await call(frame(Buffer.from([0xff, 0xff, 0xff])));
    expect(garbage.status).toBe('3');
    expect(garbage.message).toMatch(/^parse binary: /);
    const compressed = await call(frame(getText('de'), 1));
    expect(compressed.status).toBe('13');
    // A message cut short: the prefix promises more than the stream brings.
    const short = await call(frame(getText('de')).subarray(0, 8));
    expect(short.status).toBe('12');
  });

  /** A Connect unary call over HTTP/1.1; `body` written after `delayMs` (the headers at once). */
  function connectCall(body: string, headers: Record<string, string> = {}, delayMs = 0) {
    const started = performance.now();
    return new Promise<{ status: number; contentType: string | undefined; body: Record<string, unknown>; afterMs: number }>((resolve, reject) => {
      const req = httpRequest(
        `${s.issuer}${GET_TEXT}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${s.t.adminToken}`, ...headers },
        },
        (res) => {
          const afterMs = performance.now() - started;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString()), afterMs }));
        },
      );
      req.on('error', () => undefined); // a late body may meet a closed connection
      req.on('close', () => reject(new Error('no answer'))); // after an answer: no effect
      req.flushHeaders();
      setTimeout(() => req.end(body), delayMs);
    });
  }

  it('Connect JSON: answers the message; ignores fields it does not know, as connect does; refuses broken JSON (400 invalid_argument)', async () => {
    const answer = await connectCall(JSON.stringify({ language: 'de', notAField: 1 }));
    expect([answer.status, answer.contentType]).toEqual([200, 'application/json']);
    expect((answer.body.customText as { title: string }).title).toBe('Bitte bestätigen');
    // A leading byte-order mark is dropped, as connect's TextDecoder drops it.
    const withBom = await connectCall(`\uFEFF${JSON.stringify({ language: 'de' })}`);
    expect([withBom.status, (withBom.body.customText as { title: string }).title]).toEqual([200, 'Bitte bestätigen']);
    const broken = await connectCall('{"language": ');
    expect([broken.status, broken.body.code]).toEqual([400, 'invalid_argument']);
    const wrongType = await connectCall(JSON.stringify({ language: 7 }));
    expect([wrongType.status, wrongType.body.code]).toEqual([400, 'invalid_argument']);
  });

  it('Connect: refuses a malformed deadline (400), and answers deadline_exceeded (504) when the body comes too late', async () => {
    const malformed = await connectCall(JSON.stringify({ language: 'de' }), { 'connect-timeout-ms': 'soon' });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'invalid_argument']);
    expect(malformed.body.message).toMatch(/invalid connect timeout value/);
    const late = await connectCall(JSON.stringify({ language: 'de' }), { 'connect-timeout-ms': '100' }, 1_000);
    expect([late.status, late.body.code]).toEqual([504, 'deadline_exceeded']);
    expect(late.afterMs).toBeLessThan(900);
    expect((await connectCall(JSON.stringify({ language: 'de' }), { 'connect-timeout-ms': '10000' })).status).toBe(200);
  });

  it('leaves compressed calls to connect-node, which decompresses them (gRPC and Connect)', async () => {
    for (const transport of [
      createGrpcTransport({ baseUrl: s.issuer, sendCompression: compressionGzip, compressMinBytes: 0 }),
      createConnectTransport({ baseUrl: s.issuer, httpVersion: '1.1', sendCompression: compressionGzip, compressMinBytes: 0 }),
    ]) {
      const admin = createClient(AdminService, transport);
      const answer = await admin.getCustomVerifyEmailMessageText({ language: 'de' }, { headers: { authorization: `Bearer ${s.t.adminToken}` } });
      expect(answer.customText?.title).toBe('Bitte bestätigen');
    }
  });
});
