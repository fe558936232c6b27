/**
 * What an RPC client reads of a refusal (issue 48): the status message exactly as the service
 * wrote it — `grpc-message` percent-encoded once, as the gRPC spec encodes it, so ZITADEL's Node
 * SDK (@zitadel/node: nice-grpc on grpc-js, which decodes with `decodeURI`) shows `/` and `:` and
 * not `%2F` and `%3A` — and RESOURCE_EXHAUSTED, naming the limit, for a 50 MB message on every
 * protocol path: the lean unary path (gRPC, Connect over HTTP/1.1 and HTTP/2) and connect-node's
 * (gRPC-web, compressed gRPC and Connect). Real clients over the service's port.
 *
 * One store: every answer here is given before the store is asked (the message's size, its
 * validation, an RPC the service does not offer).
 */
import { Agent, request as httpRequest } from 'node:http';
import http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { compressionGzip, createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { createAccessTokenInterceptor, createAdminClient } from '@zitadel/node/dist/api/index.js';
import { AdminService, GetMyInstanceRequestSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentEncodeGrpcMessage } from '../../src/rpc/grpc-status.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const UNOFFERED = 'zitadel.admin.v1.AdminService/GetMyInstance is not offered by this service (RPC-N0tOf)';
const INVALID_TITLE = 'invalid title: value length must be at most 200 characters (API-V4l1d)';
const LIMIT = 1_048_576; // the default MAX_BODY_BYTES
const FIFTY_MB = 50 * 1024 * 1024;

describe('the gRPC status message, percent-encoded as the spec says', () => {
  it('leaves printable ASCII but % as it is and encodes the rest of the UTF-8', () => {
    expect(percentEncodeGrpcMessage('a/b: c?d=e&f (g) #h+i,j@k$l;m')).toBe('a/b: c?d=e&f (g) #h+i,j@k$l;m');
    expect(percentEncodeGrpcMessage('100% of "Vérifier"\n\u0000\u{1F600}')).toBe('100%25 of "V%C3%A9rifier"%0A%00%F0%9F%98%80');
    // Every decoder a client uses reads it back: grpc-js's decodeURI, connect's decodeURIComponent.
    for (const text of ['a/b: c', '100% é\t\u{1F600}', UNOFFERED]) {
      expect(decodeURI(percentEncodeGrpcMessage(text))).toBe(text);
      expect(decodeURIComponent(percentEncodeGrpcMessage(text))).toBe(text);
    }
  });
});

describe('RPC refusals as clients read them', () => {
  let s: OidcTestServer;
  const token = () => ({ authorization: `Bearer ${s.t.adminToken}` });

  beforeAll(async () => {
    s = await startOidcServer('sqlite');
  }, 60_000);
  afterAll(() => s?.close());

  /** connect's transports, on each protocol path the service has (the lean one, and connect-node's). */
  const transports = (): [string, Transport][] => [
    ['gRPC', createGrpcTransport({ baseUrl: s.issuer })],
    ['gRPC, gzip (connect-node)', createGrpcTransport({ baseUrl: s.issuer, sendCompression: compressionGzip })],
    ['gRPC-web over HTTP/1.1 (connect-node)', createGrpcWebTransport({ baseUrl: s.issuer, httpVersion: '1.1' })],
    ['gRPC-web over HTTP/2 (connect-node)', createGrpcWebTransport({ baseUrl: s.issuer, httpVersion: '2' })],
    ['Connect over HTTP/1.1', createConnectTransport({ baseUrl: s.issuer, httpVersion: '1.1' })],
    ['Connect over HTTP/2', createConnectTransport({ baseUrl: s.issuer, httpVersion: '2', useBinaryFormat: true })],
    ['Connect, gzip (connect-node)', createConnectTransport({ baseUrl: s.issuer, httpVersion: '1.1', sendCompression: compressionGzip })],
  ];

  async function failure(call: Promise<unknown>): Promise<ConnectError> {
    return call.then(
      () => {
        throw new Error('the call succeeded');
      },
      (error: unknown) => ConnectError.from(error),
    );
  }

  it("@zitadel/node shows the message with its '/' and ':' as they are", async () => {
    const admin = createAdminClient(s.issuer, createAccessTokenInterceptor(s.t.adminToken));
    const unoffered = await admin.getMyInstance({}).then(
      () => undefined,
      (e: { code: number; details: string }) => e,
    );
    expect(unoffered).toMatchObject({ code: Code.Unimplemented, details: UNOFFERED });
    const invalid = await admin.setDefaultVerifyEmailMessageText({ language: 'de', title: 'x'.repeat(201) }).then(
      () => undefined,
      (e: { code: number; details: string }) => e,
    );
    expect(invalid).toMatchObject({ code: Code.InvalidArgument, details: INVALID_TITLE });
  });

  it('connect clients read the same message on every protocol path', async () => {
    for (const [name, transport] of transports()) {
      const admin = createClient(AdminService, transport);
      const unoffered = await failure(admin.getMyInstance({}, { headers: token() }));
      expect([unoffered.code, unoffered.rawMessage], name).toEqual([Code.Unimplemented, UNOFFERED]);
      const invalid = await failure(admin.setDefaultVerifyEmailMessageText({ language: 'de', title: 'x'.repeat(201) }, { headers: token() }));
      expect([invalid.code, invalid.rawMessage], name).toEqual([Code.InvalidArgument, INVALID_TITLE]);
    }
  });

  it('writes grpc-message on the wire with / and : unencoded (gRPC trailers, gRPC-web trailer frame)', async () => {
    const session = http2.connect(s.issuer);
    try {
      for (const encoding of [undefined, 'gzip']) {
        const message = toBinary(GetMyInstanceRequestSchema, create(GetMyInstanceRequestSchema, {}));
        const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), Buffer.from(message)]);
        const stream = session.request({
          ':method': 'POST',
          ':path': '/zitadel.admin.v1.AdminService/GetMyInstance',
          'content-type': 'application/grpc',
          te: 'trailers',
          ...(encoding ? { 'grpc-encoding': encoding } : {}),
          ...token(),
        });
        const fields: Record<string, unknown> = {};
        stream.on('response', (h) => Object.assign(fields, h));
        stream.on('trailers', (h) => Object.assign(fields, h));
        stream.on('data', () => undefined);
        stream.end(frame);
        await new Promise((resolve) => stream.once('close', resolve));
        expect([fields['grpc-status'], fields['grpc-message']], encoding ?? 'identity').toEqual(['12', UNOFFERED]);
      }
    } finally {
      session.close();
    }
    // gRPC-web's text mode (connect-node behind the base64 step): the trailer frame's line.
    const res = await fetch(`${s.issuer}/zitadel.admin.v1.AdminService/GetMyInstance`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web-text', 'x-grpc-web': '1', ...token() },
      body: Buffer.from([0, 0, 0, 0, 0]).toString('base64'),
    });
    const bytes = Buffer.concat(((await res.text()).match(/[A-Za-z0-9+/]+={0,2}/g) ?? []).map((chunk) => Buffer.from(chunk, 'base64')));
    expect(bytes[0]).toBe(0x80);
    expect(bytes.subarray(5).toString()).toContain(`grpc-message: ${UNOFFERED}\r\n`);
  });

  /** An HTTP/1.1 POST declaring `declared` bytes and sending `sent` (all of them, or only a beginning): the answer's status and `connection`. */
  function http1Answer(path: string, headers: Record<string, string>, declared: number, sent: string): Promise<{ status?: number; connection?: string }> {
    return new Promise((resolve, reject) => {
      const agent = new Agent({ keepAlive: true });
      const req = httpRequest(new URL(path, s.issuer), { method: 'POST', agent, headers: { ...headers, 'content-length': String(declared) } }, (res) => {
        res.resume();
        res.once('end', () => {
          resolve({ status: res.statusCode, connection: res.headers.connection });
          agent.destroy();
        });
      });
      req.once('error', reject);
      if (Buffer.byteLength(sent) === declared) req.end(sent);
      else req.write(sent);
    });
  }

  it('closes an HTTP/1.1 connection whose answer came before its message was read, and keeps one whose message was read', async () => {
    const connectJson = { 'content-type': 'application/json', 'connect-protocol-version': '1', ...token() };
    const setText = '/zitadel.admin.v1.AdminService/SetDefaultVerifyEmailMessageText';
    const whole = JSON.stringify({ language: 'de', title: 'x'.repeat(201) });
    // Read whole and refused (its validation): the connection stays.
    expect(await http1Answer(setText, connectJson, Buffer.byteLength(whole), whole)).toEqual({ status: 400, connection: 'keep-alive' });
    // Over the limit, on the lean path and on connect-node's (gzip): answered at once, and the connection closes.
    expect(await http1Answer(setText, connectJson, LIMIT + 1, '{"language":')).toEqual({ status: 429, connection: 'close' });
    expect(await http1Answer(setText, { ...connectJson, 'content-encoding': 'gzip' }, LIMIT + 1, '\x1f\x8b')).toMatchObject({ connection: 'close' });
    // ImportData refused before its message (no token): the same.
    const { authorization: _, ...anonymous } = connectJson;
    expect(await http1Answer('/zitadel.admin.v1.AdminService/ImportData', anonymous, 1000, '{"dataOrgs":')).toEqual({ status: 401, connection: 'close' });
  });

  it('answers a 50 MB message with RESOURCE_EXHAUSTED naming the limit, on every protocol path and to @zitadel/node', async () => {
    const footerText = 'x'.repeat(FIFTY_MB);
    for (const [name, transport] of transports()) {
      const admin = createClient(AdminService, transport);
      const refused = await failure(admin.setDefaultVerifyEmailMessageText({ language: 'de', footerText }, { headers: token() }));
      expect(refused.code, `${name}: ${refused.message}`).toBe(Code.ResourceExhausted);
      expect(refused.rawMessage, name).toContain(`readMaxBytes ${LIMIT}`);
    }
    const sdk = createAdminClient(s.issuer, createAccessTokenInterceptor(s.t.adminToken));
    const refused = await sdk.setDefaultVerifyEmailMessageText({ language: 'de', footerText }).then(
      () => undefined,
      (e: { code: number; details: string }) => e,
    );
    expect(refused?.code).toBe(Code.ResourceExhausted);
    expect(refused?.details).toContain(`readMaxBytes ${LIMIT}`);
    // The session still serves calls afterwards.
    const after = createClient(AdminService, createGrpcTransport({ baseUrl: s.issuer }));
    expect((await after.getCustomVerifyEmailMessageText({ language: 'de' }, { headers: token() })).customText).toBeDefined();
  }, 120_000);
});
