/**
 * HTTP/2 with prior knowledge (h2c) on the service's one port, beside HTTP/1.1 (http-server.ts,
 * protocol-sniff.ts, http2-sessions.ts): the same handler answers both — the API, oidc-provider,
 * export and import — and the server's bounds hold for HTTP/2 sessions and streams, with short
 * limits here. Real server on 127.0.0.1, node's http2 client.
 */
import { request as http1Request } from 'node:http';
import { constants, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createAccessTokenInterceptor, createAdminClient } from '@zitadel/node/dist/api/index.js';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/http/client-address.js';
import { createLogger } from '../../src/log.js';
import { createServer } from '../../src/server.js';
import type { Dialect } from '../../src/store/store.js';
import { type ConnectionLimits, createLimitedHttpServer } from '../../src/transport/http-server.js';
import { LINGER_MS, MAX_CONCURRENT_STREAMS, RAPID_RESETS } from '../../src/transport/http2-sessions.js';
import { HTTP2_PREFACE } from '../../src/transport/protocol-sniff.js';
import { FRAME, getHeaderBlock, goawayCodes, h2cJson, h2cRequest, h2cSession, h2Frame } from '../support/h2c.js';
import { createTestInstance, describeEachStore, freshPostgresDatabase, type TestInstance } from '../support/instance.js';
import { startServerProcess, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';
import { richDocument } from '../support/transfer-documents.js';

const LIMITS: ConnectionLimits = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300, maxConnections: 3, maxConnectionsPerAddress: 3 };
const TEXT = '/admin/v1/text/message/verifyemail/en';
const MAX_BODY = 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The whole service (server.ts) on `dialect` with these limits, its log lines kept. */
function serve(dialect: Dialect, connections: ConnectionLimits, host = '127.0.0.1') {
  const lines: Record<string, unknown>[] = [];
  const state = {} as { t: TestInstance; service: Awaited<ReturnType<typeof createServer>>; port: number; lines: typeof lines };
  beforeAll(async () => {
    state.t = await createTestInstance(dialect);
    state.service = await createServer({
      store: state.t.store,
      instanceId: state.t.instanceId,
      issuer: 'http://127.0.0.1',
      lockout: { maxPasswordAttempts: 0 },
      connections,
      maxBodyBytes: MAX_BODY,
      logger: createLogger('info', (line) => lines.push(JSON.parse(line))),
    });
    await new Promise<void>((resolve) => state.service.server.listen(0, host, resolve));
    state.port = (state.service.server.address() as AddressInfo).port;
    state.lines = lines;
  });
  // Each test starts with no connection left over from the one before (the cap is small).
  beforeEach(async () => {
    const open = () => new Promise<number>((resolve) => state.service.server.getConnections((_, n) => resolve(n)));
    await expect.poll(open, { timeout: 3_000 }).toBe(0);
  });
  afterAll(async () => {
    state.service.server.closeAllConnections();
    await new Promise((resolve) => state.service.server.close(resolve));
    await state.t.close();
  });
  return state;
}

/** A raw TCP connection (from `localAddress`): what it received so far and in all, and after how long it was closed. */
async function rawConnection(port: number, localAddress?: string) {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  const started = Date.now();
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  socket.on('error', () => undefined);
  const closed = new Promise<{ afterMs: number; received: Buffer }>((resolve) => socket.on('close', () => resolve({ afterMs: Date.now() - started, received })));
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, closed, received: () => received };
}

function http1Get(port: number, path: string, token: string) {
  return new Promise<{ status: number; body: string; version: string }>((resolve, reject) => {
    const req = http1Request({ host: '127.0.0.1', port, path, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, version: res.httpVersion }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Empty SETTINGS frame: what a client sends right after the preface. */
const EMPTY_SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

describeEachStore('h2c on the service port', (dialect) => {
  const s = serve(dialect, LIMITS);

  it('/healthz and the 4.1 text (PUT, then GET) over HTTP/2, one log line per request; HTTP/1.1 on the same server at the same time', async () => {
    const { session } = await h2cSession(s.port);
    const call = h2cJson(session, s.t.adminToken);
    const health = await call('GET', '/healthz');
    expect([health.status, health.json().status]).toEqual([200, 'ok']);

    // No content-length: common over HTTP/2, the body is read from the stream.
    const put = await call('PUT', TEXT, { title: 'over h2', preHeader: 'p' });
    expect(put.status, put.text).toBe(200);
    expect(typeof put.json().details.sequence).toBe('string');
    const requestId = put.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const got = await call('GET', TEXT);
    expect(got.json().customText).toMatchObject({ title: 'over h2', preHeader: 'p' });

    const overHttp1 = await http1Get(s.port, TEXT, s.t.adminToken);
    expect([overHttp1.status, overHttp1.version, JSON.parse(overHttp1.body).customText.title]).toEqual([200, '1.1', 'over h2']);
    session.close();

    const logged = s.lines.filter((l) => l.msg === 'request' && l.requestId === requestId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ method: 'PUT', path: TEXT, status: 200 });
    expect(typeof logged[0].userId).toBe('string');
  });

  it('errors keep the API\'s error body; a path with ".." → 400 as over HTTP/1.1; /openapi.json is served', async () => {
    const { session } = await h2cSession(s.port);
    const call = h2cJson(session, s.t.adminToken);
    const invalid = await call('PUT', TEXT, { titel: 'typo' });
    expect(invalid.status).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 3 });
    expect((await call('GET', TEXT, undefined, { authorization: 'Bearer nope' })).status).toBe(401);
    const dots = await call('GET', '/management/v1/users/..');
    expect([dots.status, dots.json().details[0].id]).toEqual([400, 'API-D0t5g']);
    const spec = await call('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.json().openapi).toMatch(/^3\./);
    session.close();
  });

  it('oidc-provider (Koa) over HTTP/2: discovery, a client_credentials token, and that token on the API', async () => {
    const { session } = await h2cSession(s.port);
    const call = h2cJson(session, s.t.adminToken);
    const discovery = await call('GET', '/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    // The issuer's (EXTERNAL_URL), not :authority's, as over HTTP/1.1 not Host's (test/transport/external-url.test.ts).
    expect(discovery.json().token_endpoint).toBe('http://127.0.0.1/oauth/v2/token');

    const machine = await call('POST', '/management/v1/users/machine', { userName: `robot-h2-${dialect}`, name: 'Robot' });
    expect(machine.status, machine.text).toBe(200);
    const userId = machine.json().userId as string;
    expect((await call('POST', '/admin/v1/members', { userId, roles: ['IAM_OWNER_VIEWER'] })).status).toBe(200);
    const secret = (await call('PUT', `/management/v1/users/${userId}/secret`)).json();

    const token = await h2cRequest(session, 'POST', '/oauth/v2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${secret.clientId}:${secret.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'urn:service:iam:org:project:id:service:aud' }).toString(),
    }).answer;
    expect(token.status, token.text).toBe(200);
    const accessToken = token.json().access_token as string;
    expect((await h2cJson(session, accessToken)('GET', TEXT)).status).toBe(200);
    expect(s.lines.find((l) => l.msg === 'oauth request' && l.path === '/oauth/v2/token')).toMatchObject({ method: 'POST', status: 200 });
    session.close();
  });

  it('import and export over HTTP/2: a document imported, then exported with the response streamed', async () => {
    const { session } = await h2cSession(s.port);
    const call = h2cJson(session, s.t.adminToken);
    const imported = await call('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: richDocument('7') });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json().success.orgs.map((o: { orgId: string }) => o.orgId)).toEqual(['7100', '7200']);
    const exported = await call('POST', '/admin/v1/export', { org_ids: ['7100', '7200'], response_output: true });
    expect(exported.status).toBe(200);
    expect(exported.json().orgs.map((o: { orgId: string }) => o.orgId)).toEqual(['7100', '7200']);
    session.close();
  });

  it(`a body over the limit → 413 in the error body, declared or not, nothing stored`, async () => {
    const { session } = await h2cSession(s.port);
    const large = JSON.stringify({ title: 'x'.repeat(MAX_BODY * 2) });
    for (const headers of [{}, { 'content-length': String(Buffer.byteLength(large)) }]) {
      const res = await h2cRequest(session, 'PUT', TEXT, { headers: { authorization: `Bearer ${s.t.adminToken}`, 'content-type': 'application/json', ...headers }, body: large }).answer;
      expect(res.status).toBe(413);
      expect(res.json().code).toBe(8);
    }
    expect((await h2cJson(session, s.t.adminToken)('GET', TEXT)).json().customText.title).not.toContain('xxx');
    session.close();
  });

  it('headers over 16 KiB → 431 in the error body, and the session goes on', async () => {
    const { session } = await h2cSession(s.port);
    const res = await h2cRequest(session, 'GET', `/admin/v1/orgs/${'x'.repeat(20_000)}`).answer;
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toMatchObject({ code: 3, details: [{ id: 'API-H3ad5' }] });
    expect((await h2cRequest(session, 'GET', '/healthz').answer).status).toBe(200);
    expect(s.lines.some((l) => l.msg === 'request refused before routing' && l.status === 431 && l.protocol === 'h2')).toBe(true);
    session.close();
  });

  it('a session that opens no stream is closed after the headers timeout', async () => {
    const { closed } = await h2cSession(s.port);
    expect(await closed).toBeLessThan(LIMITS.headersTimeoutMs + 1000);
  });

  it('a session left idle after its requests is closed after the keep-alive timeout', async () => {
    const { session, closed } = await h2cSession(s.port);
    // Past the headers timeout, kept busy: what counts now is the idle time after the last stream.
    for (let i = 0; i < 4; i++) {
      expect((await h2cRequest(session, 'GET', '/healthz').answer).status).toBe(200);
      await sleep(LIMITS.keepAliveTimeoutMs / 2);
    }
    const answeredAt = Date.now();
    await closed;
    expect(Date.now() - answeredAt).toBeLessThan(LIMITS.keepAliveTimeoutMs + 1000);
  });

  it('PINGs do not keep an idle session open', async () => {
    const { session, closed } = await h2cSession(s.port);
    const pinging = setInterval(() => !session.closed && !session.destroyed && session.ping(() => undefined), 50);
    expect(await closed).toBeLessThan(LIMITS.headersTimeoutMs + 1000);
    clearInterval(pinging);
  });

  it('a request whose body does not arrive within the request timeout → 408 in the error body, the stream reset', async () => {
    const { session } = await h2cSession(s.port);
    const started = Date.now();
    const { stream, answer } = h2cRequest(session, 'PUT', TEXT, {
      headers: { authorization: `Bearer ${s.t.adminToken}`, 'content-type': 'application/json' },
      body: '{"title":"',
      end: false,
    });
    const drip = setInterval(() => stream.writable && stream.write('x'), 100);
    const res = await answer.catch((error: Error) => ({ status: 0, text: error.message, json: () => ({}) }));
    clearInterval(drip);
    expect(Date.now() - started).toBeLessThan(LIMITS.requestTimeoutMs + 1000);
    expect(res.status).toBe(408);
    expect(res.json()).toMatchObject({ code: 4, details: [{ id: 'API-T1me0' }] });
    // The session is still good.
    expect((await h2cRequest(session, 'GET', '/healthz').answer).status).toBe(200);
    session.close();
  });

  it(`beyond ${LIMITS.maxConnections} connections a new HTTP/2 session is closed at once; HTTP/1.1 and HTTP/2 count together`, async () => {
    const held = [await h2cSession(s.port), await h2cSession(s.port)];
    const http1 = await rawConnection(s.port);
    http1.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'); // decided HTTP/1.1: it holds a place
    await sleep(50);
    const extra = await h2cSession(s.port);
    expect(await extra.closed).toBeLessThan(LIMITS.headersTimeoutMs);
    expect(held.every((h) => !h.session.closed && !h.session.destroyed)).toBe(true);
    for (const h of held) h.session.destroy();
    http1.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await sleep(100);
    const after = await h2cSession(s.port);
    expect((await h2cRequest(after.session, 'GET', '/healthz').answer).status).toBe(200);
    after.session.close();
  });

  it('the preface split byte by byte (through a relay writing one byte at a time) is still HTTP/2', async () => {
    const relay = createTcpServer((client) => {
      client.pause();
      const upstream = connect(s.port, '127.0.0.1', async () => {
        upstream.setNoDelay(true);
        let first = true;
        client.on('data', async (chunk: Buffer) => {
          if (!first) return void upstream.write(chunk);
          first = false;
          client.pause();
          for (const byte of chunk) {
            upstream.write(Buffer.from([byte]));
            await sleep(2);
          }
          client.resume();
        });
        upstream.pipe(client);
        client.resume();
      });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const { session } = await h2cSession((relay.address() as AddressInfo).port);
      const res = await h2cRequest(session, 'GET', '/healthz').answer;
      expect(res.status).toBe(200);
      session.close();
    } finally {
      relay.close();
    }
  });

  it('a beginning of the preface, then nothing: closed after the headers timeout (408)', async () => {
    const { socket, closed } = await rawConnection(s.port);
    socket.write(HTTP2_PREFACE.subarray(0, 10));
    const { afterMs, received } = await closed;
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1000);
    expect(received.toString()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('garbage that starts like the preface → 400 (logged); bad frames after a true one → GOAWAY and closed; the server goes on', async () => {
    const fake = await rawConnection(s.port);
    fake.socket.write('PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n');
    const refused = await fake.closed;
    expect(refused.received.toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect(s.lines.some((l) => l.msg === 'request refused before routing' && l.status === 400)).toBe(true);

    const bad = await rawConnection(s.port);
    // A SETTINGS frame must be a multiple of 6 bytes long: 5 is a connection error.
    bad.socket.write(Buffer.concat([HTTP2_PREFACE, Buffer.from([0, 0, 5, 4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5])]));
    const ended = await bad.closed;
    expect(ended.afterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1000);
    // The server's own SETTINGS, then GOAWAY (type 7) with FRAME_SIZE_ERROR (6).
    const goaway = ended.received.indexOf(Buffer.from([7, 0, 0, 0, 0, 0]));
    expect(goaway).toBeGreaterThan(0);
    expect(ended.received.readUInt32BE(goaway + 10)).toBe(6);

    const { session } = await h2cSession(s.port);
    expect((await h2cRequest(session, 'GET', '/healthz').answer).status).toBe(200);
    session.close();
  });

  it('a peer that keeps its side open after the server ended the connection is cut off LINGER_MS later (HTTP/2 and HTTP/1.1)', async () => {
    const openConnections = () => new Promise<number>((resolve) => s.service.server.getConnections((_, n) => resolve(n)));
    // A session that opens no stream: GOAWAY and end at the headers timeout; an HTTP/1.1
    // connection that sends nothing: 408 and end at the headers timeout.
    for (const first of [Buffer.concat([HTTP2_PREFACE, EMPTY_SETTINGS]), Buffer.alloc(0)]) {
      const socket = connect({ port: s.port, host: '127.0.0.1', allowHalfOpen: true });
      socket.on('error', () => undefined);
      socket.resume();
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(first);
      await new Promise((resolve) => socket.once('end', resolve));
      const endedAt = Date.now();
      expect(await openConnections()).toBe(1);
      await expect.poll(openConnections, { timeout: LINGER_MS + 1000, interval: 20 }).toBe(0);
      expect(Date.now() - endedAt).toBeGreaterThanOrEqual(LINGER_MS - 50);
      socket.destroy();
    }
  });

  it(`at most ${MAX_CONCURRENT_STREAMS} streams at once per session (the server's SETTINGS say so)`, async () => {
    const { session } = await h2cSession(s.port);
    expect(session.remoteSettings.maxConcurrentStreams).toBe(MAX_CONCURRENT_STREAMS);
    session.close();
  });
});

// All of 127.0.0.0/8 is loopback on Linux: connecting from 127.0.0.2 is being another client.
const PER_ADDRESS: ConnectionLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 5_000, maxConnections: 10, maxConnectionsPerAddress: 2 };

describeEachStore('h2c: the limit per client address', (dialect) => {
  const s = serve(dialect, PER_ADDRESS, '::');

  it('HTTP/2 sessions count for their address: over its limit closed at once, another address served', async () => {
    const held = [await h2cSession(s.port, { localAddress: '127.0.0.1' }), await h2cSession(s.port, { host: '::ffff:127.0.0.1', localAddress: '::ffff:127.0.0.1' })];
    const extra = await h2cSession(s.port, { localAddress: '127.0.0.1' });
    expect(await extra.closed).toBeLessThan(2_000);
    const other = await h2cSession(s.port, { localAddress: '127.0.0.2' });
    expect((await h2cRequest(other.session, 'GET', '/healthz').answer).status).toBe(200);
    held[0].session.destroy();
    await held[0].closed;
    await sleep(100);
    const again = await h2cSession(s.port, { localAddress: '127.0.0.1' });
    expect((await h2cRequest(again.session, 'GET', '/healthz').answer).status).toBe(200);
    for (const h of [...held, other, again]) h.session.destroy();
  });
});

describeEachStore('h2c: graceful shutdown', (dialect) => {
  it('server.close(): GOAWAY to the session, its request in flight finishes and is stored, then the server closes', async () => {
    const t = await createTestInstance(dialect);
    const { server } = await createServer({ store: t.store, instanceId: t.instanceId, issuer: 'http://127.0.0.1', lockout: { maxPasswordAttempts: 0 } });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const { session, closed } = await h2cSession(port);
      const goaway = new Promise((resolve) => session.once('goaway', resolve));
      const { stream, answer } = h2cRequest(session, 'PUT', TEXT, {
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
        body: '{"title":"in ',
        end: false,
      });
      await sleep(100);
      let serverClosed = false;
      const closing = new Promise<void>((resolve) => server.close(() => resolve(void (serverClosed = true))));
      await goaway;
      expect(serverClosed).toBe(false);
      stream.end('flight"}');
      const res = await answer;
      expect(res.status, res.text).toBe(200);
      await closed;
      await closing;
      expect((await t.call('GET', TEXT).then((r) => r.json())).customText.title).toBe('in flight');
    } finally {
      server.closeAllConnections();
      await t.close();
    }
  });

  it('SIGTERM to the process: an HTTP/2 request in flight finishes, then the process exits 0', async () => {
    const dir = tempDir('identity-h2-');
    const databaseUrl = dialect === 'postgres' ? await freshPostgresDatabase() : `file:${dir}/identity.db`;
    const proc = await startServerProcess({ DATABASE_URL: databaseUrl, ADMIN_PAT_FILE: `${dir}/admin.pat` });
    try {
      const token = /Personal access token[^\n]*\n\n\s+(\S+)/.exec(proc.output())![1];
      const { session } = await h2cSession(proc.port);
      const { stream, answer } = h2cRequest(session, 'PUT', TEXT, {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"title":"late',
        end: false,
      });
      await sleep(100);
      proc.child.kill('SIGTERM');
      await sleep(200);
      stream.end('"}');
      expect((await answer).status).toBe(200);
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toContain('"msg":"stopped"');
    } finally {
      if (proc.child.exitCode === null) await stopServerProcess(proc);
    }
  });
});

describe('the listener alone (no store)', () => {
  it("a gRPC client (@zitadel/node, nice-grpc over h2c) reaches the handler: it failed with 'Protocol error' on HTTP/1.1 only", async () => {
    const seen: { version: string; method: string; url: string; contentType: string | undefined }[] = [];
    const server = createLimitedHttpServer(
      (req, res) => {
        seen.push({ version: req.httpVersion, method: req.method!, url: req.url!, contentType: req.headers['content-type'] });
        // The request message read, then the gRPC status in trailers, as an RPC router answers.
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/grpc' });
          (res as Http2ServerResponse).addTrailers({ 'grpc-status': '12', 'grpc-message': 'probe' });
          res.end();
        });
      },
      { ...LIMITS, maxConnections: 10, maxConnectionsPerAddress: 10 },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = createAdminClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, createAccessTokenInterceptor('a-token'));
      await expect(client.healthz({})).rejects.toThrow(/UNIMPLEMENTED: probe$/);
      expect(seen).toEqual([{ version: '2.0', method: 'POST', url: '/zitadel.admin.v1.AdminService/Healthz', contentType: 'application/grpc' }]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a closed stream keeps no listener a turn after its close: what they hold is not kept with it', async () => {
    const streams: ServerHttp2Stream[] = [];
    const server = createLimitedHttpServer(
      (req, res) => {
        streams.push((req as Http2ServerRequest).stream);
        req.resume();
        req.on('end', () => res.end('ok'));
      },
      { ...LIMITS, maxConnections: 10, maxConnectionsPerAddress: 10 },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { session } = await h2cSession((server.address() as AddressInfo).port);
      expect((await h2cRequest(session, 'POST', '/any', { body: 'a body' }).answer).text).toBe('ok');
      const [stream] = streams;
      // Node's compatibility request and response, and the listener's own watch, listen to it while it is open.
      await expect.poll(() => stream.closed).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(stream.eventNames().filter((name) => name !== 'error')).toEqual([]);
      expect(stream.listenerCount('error')).toBe(1);
      session.close();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("is the socket's peer, as over HTTP/1.1 (http/client-address.ts)", async () => {
    const app = new Hono().get('/who', (c) => c.text(clientAddress(c, false)));
    const server = createLimitedHttpServer(getRequestListener(app.fetch), { ...LIMITS, maxConnections: 10, maxConnectionsPerAddress: 10 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const { session } = await h2cSession(port, { localAddress: '127.0.0.3' });
      expect((await h2cRequest(session, 'GET', '/who').answer).text).toBe('127.0.0.3');
      session.close();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

const END_STREAM_AND_HEADERS = 0x05;
const CANCEL = Buffer.from([0, 0, 0, 8]);

describe('h2c: rapid reset and frames that stall (the listener alone)', () => {
  const lines: Record<string, unknown>[] = [];
  const handled: string[] = [];
  let server: ReturnType<typeof createLimitedHttpServer>;
  let port: number;

  beforeAll(async () => {
    server = createLimitedHttpServer(
      (req, res) => {
        handled.push(req.url!);
        // An answer takes a moment, as the service's do (a store read): a cancellation before it counts.
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), 20);
      },
      { ...LIMITS, maxConnections: 20, maxConnectionsPerAddress: 20 },
      createLogger('info', (line) => lines.push(JSON.parse(line))),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A raw connection from `localAddress` that has sent the preface and its SETTINGS. */
  async function rawH2(localAddress: string) {
    const connection = await rawConnection(port, localAddress);
    connection.socket.write(Buffer.concat([HTTP2_PREFACE, EMPTY_SETTINGS]));
    return connection;
  }

  it(`HEADERS+RST_STREAM pairs beyond ${RAPID_RESETS} → GOAWAY(ENHANCE_YOUR_CALM), the connection closed, one log line, no handler run; the address cooled down for HTTP/2 only`, async () => {
    const attacker = '127.0.0.4';
    const { socket, closed } = await rawH2(attacker);
    // In one write (fewer than nghttp2's own burst of ~1,000), then the connection left open: the server closes it.
    const pairs: Buffer[] = [];
    for (let id = 1; id <= 2 * (RAPID_RESETS + 50); id += 2)
      pairs.push(h2Frame(FRAME.HEADERS, END_STREAM_AND_HEADERS, id, getHeaderBlock('/reset-me', 'localhost')), h2Frame(FRAME.RST_STREAM, 0, id, CANCEL));
    socket.write(Buffer.concat(pairs));
    const { afterMs, received } = await closed;
    expect(afterMs).toBeLessThan(2_000);
    expect(goawayCodes(received)[0]).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    expect(handled.filter((url) => url === '/reset-me')).toEqual([]);
    const logged = lines.filter((l) => l.msg === 'HTTP/2 session closed: rapid reset');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'warn', remoteAddress: attacker });

    // The address is cooled down: its next HTTP/2 connection gets GOAWAY(ENHANCE_YOUR_CALM) at once…
    const again = await rawH2(attacker);
    const refused = await again.closed;
    expect(goawayCodes(refused.received)).toEqual([constants.NGHTTP2_ENHANCE_YOUR_CALM]);
    // …while HTTP/1.1 from it, and HTTP/2 from another address, are served.
    const http1 = await new Promise<number>((resolve, reject) => {
      http1Request({ host: '127.0.0.1', port, path: '/plain', localAddress: attacker, agent: false }, (res) => resolve(res.statusCode!))
        .on('error', reject)
        .end();
    });
    expect(http1).toBe(200);
    const { session } = await h2cSession(port, { localAddress: '127.0.0.5' });
    expect((await h2cRequest(session, 'GET', '/other').answer).status).toBe(200);
    session.close();
    expect(lines.filter((l) => l.msg === 'HTTP/2 session closed: rapid reset')).toHaveLength(1);
  });

  it("node's own client cancelling each request right after sending it (stream.close) is cut off the same way", async () => {
    const { session, closed } = await h2cSession(port, { localAddress: '127.0.0.6' });
    const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
    for (let i = 0; i < RAPID_RESETS + 50 && !session.closed && !session.destroyed; i++) {
      const stream = session.request({ ':method': 'GET', ':path': '/cancelled' });
      stream.on('error', () => undefined);
      stream.close(constants.NGHTTP2_CANCEL);
      if (i % 20 === 19) await sleep(5); // a few reads' worth at a time
    }
    expect(await goaway).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    await closed;
  });

  it(`a client cancelling fewer than ${RAPID_RESETS} requests in the window keeps its session`, async () => {
    const { session } = await h2cSession(port, { localAddress: '127.0.0.7' });
    for (let i = 0; i < RAPID_RESETS / 2; i++) {
      const stream = session.request({ ':method': 'GET', ':path': '/cancelled' });
      stream.on('error', () => undefined);
      stream.close(constants.NGHTTP2_CANCEL);
    }
    await sleep(100);
    expect((await h2cRequest(session, 'GET', '/still-here').answer).status).toBe(200);
    expect(session.closed).toBe(false);
    session.close();
  });

  it('a HEADERS frame whose bytes drip in does not keep its connection past the headers timeout: GOAWAY, then closed LINGER_MS later', async () => {
    const { socket, closed, received } = await rawH2('127.0.0.8');
    const block = getHeaderBlock('/slowly', 'localhost');
    socket.write(h2Frame(FRAME.HEADERS, END_STREAM_AND_HEADERS, 1, block).subarray(0, 9)); // the frame's header, then its payload one byte at a time
    let sent = 0;
    const drip = setInterval(() => sent < block.length && socket.writable && socket.write(block.subarray(sent, ++sent)), LIMITS.headersTimeoutMs / 4);
    const { afterMs } = await closed;
    clearInterval(drip);
    expect(goawayCodes(received())).toContain(constants.NGHTTP2_NO_ERROR);
    expect(sent).toBeLessThan(block.length); // the frame was still unfinished when the connection went
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + LINGER_MS + 500);
    expect(handled).not.toContain('/slowly');
  });
});
