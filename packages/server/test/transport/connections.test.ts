/**
 * What a client can hold on the real server (server.ts → http-server.ts), with short limits:
 * an idle or slow connection is answered and closed once its time is up, a kept-alive one is
 * closed after its idle time, connections beyond the cap are closed at once, and what node
 * refuses before the app (a 20 kB URL) is answered in the API's error body.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createServer } from '../../src/server.js';
import type { Dialect } from '../../src/store/store.js';
import { clientAddressKey, DEFAULT_CONNECTION_LIMITS, KEEP_ALIVE_GRACE_MS } from '../../src/transport/http-server.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

// One address may hold the whole cap here, so the cap itself is what the tests below meet.
const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300, maxConnections: 3, maxConnectionsPerAddress: 3 };

/**
 * The service on a store of `dialect` with these connection limits, listening on `host` for the
 * describe block it is called in; `open` holds the tests' raw sockets, destroyed before it closes.
 */
function serveWithLimits(dialect: Dialect, connections: typeof LIMITS, host: string, open: Socket[]) {
  let t: TestInstance;
  let service: Awaited<ReturnType<typeof createServer>>;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    service = await createServer({ store: t.store, instanceId: t.instanceId, issuer: 'http://127.0.0.1', lockout: { maxPasswordAttempts: 0 }, connections });
    await new Promise<void>((resolve) => service.server.listen(0, host, resolve));
  });
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    service.server.closeAllConnections();
    await new Promise((resolve) => service.server.close(resolve));
    await t.close();
  });
  return { port: () => (service.server.address() as AddressInfo).port, instance: () => t };
}

describeEachStore('connections: timeouts and a cap', (dialect) => {
  const open: Socket[] = [];
  const served = serveWithLimits(dialect, LIMITS, '127.0.0.1', open);
  let port: number;
  let t: TestInstance;
  beforeAll(() => {
    port = served.port();
    t = served.instance();
  });

  /** A raw connection: what it received, and after how long the server closed it. */
  const connection = async () => {
    const socket = connect(port, '127.0.0.1');
    open.push(socket);
    const started = Date.now();
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<{ afterMs: number; received: string }>((resolve) => socket.on('close', () => resolve({ afterMs: Date.now() - started, received })));
    await new Promise((resolve) => socket.once('connect', resolve));
    return { socket, closed, received: () => received };
  };
  const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

  it('an idle connection (nothing sent) is closed after the headers timeout, with a 408 in the error body', async () => {
    const { closed } = await connection();
    const { afterMs, received } = await closed;
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1500);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(received)).toMatchObject({ code: 4, details: [{ id: 'API-T1me0' }] });
  });

  // Chromium opens connections ahead of need and drops them unused; once one got its 408 its reset
  // reached a socket that no longer had an error listener, and the process threw (CI failed on it).
  it('a client resetting its connection after the 408 (a browser dropping an unused preconnect) ends it quietly: no uncaught error, the server answers on', async () => {
    const uncaught: Error[] = [];
    const onUncaught = (error: Error) => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      for (let i = 0; i < 3; i++) {
        const { socket, received } = await connection();
        await new Promise<void>((resolve) => socket.once('data', () => resolve()));
        expect(received()).toMatch(/^HTTP\/1\.1 408 /);
        socket.resetAndDestroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answer = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer).toBe(200);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught.map((error) => error.message)).toEqual([]);
  });

  it('slow headers (one line every 100 ms) are cut at the headers timeout', async () => {
    const { socket, closed } = await connection();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    const { afterMs, received } = await closed;
    clearInterval(drip);
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1500);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a slow body is cut at the request timeout', async () => {
    const { socket, closed } = await connection();
    socket.write(`PUT /admin/v1/text/message/verifyemail/en HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"`);
    const drip = setInterval(() => socket.writable && socket.write('x'), 100);
    const { afterMs } = await closed;
    clearInterval(drip);
    expect(afterMs).toBeLessThan(LIMITS.requestTimeoutMs + 1500);
  });

  // Node keeps it KEEP_ALIVE_GRACE_MS past the timeout, so the close came exactly at this test's old
  // bound (timeout + 1 s), which passed only while a poll noticed the answer late; it failed CI once
  // at 1,380 ms. The bounds now say both: not before the timeout, and not long after the grace.
  it('a kept-alive connection is closed after the keep-alive timeout (and node’s grace) once answered, not before', async () => {
    const { socket, closed } = await connection();
    const answered = new Promise<number>((resolve) => socket.once('data', () => resolve(Date.now())));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const answeredAt = await answered;
    const { received } = await closed;
    expect(received).toContain('"status":"ok"');
    const idleMs = Date.now() - answeredAt;
    expect(idleMs).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs);
    expect(idleMs).toBeLessThan(LIMITS.keepAliveTimeoutMs + KEEP_ALIVE_GRACE_MS + 1000);
  });

  it(`beyond ${LIMITS.maxConnections} open connections a new one is closed at once`, async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.maxConnections }, () => connection()));
    const extra = await connection();
    const { afterMs } = await extra.closed;
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs);
    for (const c of held) c.socket.destroy();
    // The next test needs a free slot: wait until the server has seen these close.
    await Promise.all(held.map((c) => c.closed));
    await new Promise((resolve) => setTimeout(resolve, 100));
  });

  it('a URL over 16 kB → 431 in the error body (not an empty answer)', async () => {
    const { socket, closed } = await connection();
    socket.write(`GET /admin/v1/orgs/${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const { received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 431 /);
    expect(received).toMatch(/content-type: application\/json/i);
    expect(bodyOf(received)).toMatchObject({ code: 3, details: [{ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: 'API-H3ad5' }] });
  });

  it('an id of "." or ".." (sent without normalising the path) → 400 in the error body, not a 404 of another path', async () => {
    for (const path of ['/management/v1/users/..', '/management/v1/users/.', '/admin/v1/orgs/%2E%2e', '/ui/login/..', '/ui/login/.?x=1']) {
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${t.adminToken}` } }, (r) => {
          let body = '';
          r.setEncoding('utf8');
          r.on('data', (chunk) => (body += chunk));
          r.on('end', () => resolve({ status: r.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body), path).toMatchObject({ code: 3, details: [{ id: 'API-D0t5g' }] });
    }
  });

  it("every answer over HTTP carries a request id: the caller's when sane, else a new one, and an error body names the same", async () => {
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; id: string | undefined; ids: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${t.adminToken}`, connection: 'close', ...headers } }, (r) => {
          let body = '';
          r.setEncoding('utf8');
          r.on('data', (chunk) => (body += chunk));
          const ids = r.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'x-request-id').length;
          r.on('end', () => resolve({ status: r.statusCode!, id: r.headers['x-request-id'] as string | undefined, ids, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const ok = await get('/admin/v1/languages', { 'x-request-id': 'trace-42' });
    expect([ok.status, ok.id, ok.ids]).toEqual([200, 'trace-42', 1]);
    const fresh = await get('/admin/v1/languages', { 'x-request-id': 'not sane!' });
    expect(fresh.id).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await get('/admin/v1/orgs/nowhere-1');
    expect(failed.status).toBe(404);
    expect(failed.ids).toBe(1);
    expect(JSON.parse(failed.body).details[0].requestId).toBe(failed.id);
  });
});

// All of 127.0.0.0/8 is loopback on Linux: connecting from 127.0.0.2 is being another client.
const PER_ADDRESS = { headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 5_000, maxConnections: 10, maxConnectionsPerAddress: 4 };

describeEachStore('connections: a limit per client address', (dialect) => {
  const open: Socket[] = [];
  // Dual-stack, as HOST=:: would be: IPv4 clients then arrive as ::ffff:a.b.c.d.
  const served = serveWithLimits(dialect, PER_ADDRESS, '::', open);
  let port: number;
  beforeAll(() => {
    port = served.port();
  });

  /** A raw connection to `host` from `from`, once connected, with a promise of its close. */
  const connection = async (host: string, from: string) => {
    const socket = connect({ port, host, localAddress: from });
    open.push(socket);
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise((resolve) => socket.once('connect', resolve));
    return { socket, closed };
  };
  /** GET /healthz from `from` on a new connection: its status, or the error that ended it. */
  const health = (from: string, host = '127.0.0.1') =>
    new Promise<number | string>((resolve) => {
      const req = request({ host, port, path: '/healthz', localAddress: from, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
      req.end();
    });

  it('an address over its limit is closed on arrival while another address is still served; both IPv4 forms count as one address', async () => {
    // The limit, taken in both forms of 127.0.0.1 (plain IPv4, and IPv4-mapped IPv6).
    const held = [
      await connection('127.0.0.1', '127.0.0.1'),
      await connection('::ffff:127.0.0.1', '::ffff:127.0.0.1'),
      await connection('127.0.0.1', '127.0.0.1'),
      await connection('::ffff:127.0.0.1', '::ffff:127.0.0.1'),
    ];
    // Twice the global cap more from the same address: each one closed at once, in either form.
    const extra = await Promise.all(
      Array.from({ length: 2 * PER_ADDRESS.maxConnections }, (_, i) => (i % 2 ? connection('::ffff:127.0.0.1', '::ffff:127.0.0.1') : connection('127.0.0.1', '127.0.0.1'))),
    );

    // Another address is served, and so is a second one beside it.
    expect(await health('127.0.0.2')).toBe(200);
    expect(await health('127.0.0.3')).toBe(200);

    // The extra ones were closed on arrival (not left to the 10 s headers timeout); the held ones stay.
    const allClosed = Promise.all(extra.map((c) => c.closed)).then(() => true);
    expect(await Promise.race([allClosed, new Promise((resolve) => setTimeout(() => resolve(false), 3_000))])).toBe(true);
    expect(held.every((c) => !c.socket.destroyed)).toBe(true);
    // The first address is not: its limit is taken.
    expect(await health('127.0.0.1')).not.toBe(200);

    // A held connection that closes frees its place for that address.
    held[0].socket.destroy();
    await held[0].closed;
    await expect.poll(() => health('127.0.0.1'), { timeout: 2_000 }).toBe(200);
    for (const c of held) c.socket.destroy();
  });

  it('the address key: an IPv4-mapped IPv6 address is its IPv4 address; IPv6 is compared in one case', () => {
    expect(clientAddressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddressKey('::FFFF:10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddressKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddressKey('2001:DB8::1')).toBe('2001:db8::1');
    expect(clientAddressKey('::1')).toBe('::1');
  });
});

describe('connection and import settings (config.ts)', () => {
  it('defaults, overrides, and a headers timeout longer than the request timeout refused', () => {
    const defaults = loadConfig({});
    expect(defaults.connections).toEqual(DEFAULT_CONNECTION_LIMITS);
    expect(defaults.maxConcurrentImports).toBe(2);
    const set = loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '3000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', HTTP_MAX_CONNECTIONS: '50', MAX_CONCURRENT_IMPORTS: '4' });
    // The per-address default (100) never exceeds a lower cap.
    expect(set.connections).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 3000, keepAliveTimeoutMs: 1000, maxConnections: 50, maxConnectionsPerAddress: 50 });
    expect(set.maxConcurrentImports).toBe(4);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ HTTP_MAX_CONNECTIONS: '0' })).toThrow(ConfigError);
  });

  it('HTTP_MAX_CONNECTIONS_PER_ADDRESS: 100 by default, set, and refused when not a positive integer or above HTTP_MAX_CONNECTIONS', () => {
    expect(loadConfig({}).connections.maxConnectionsPerAddress).toBe(100);
    expect(loadConfig({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '20' }).connections.maxConnectionsPerAddress).toBe(20);
    expect(loadConfig({ HTTP_MAX_CONNECTIONS: '500', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '500' }).connections).toMatchObject({ maxConnections: 500, maxConnectionsPerAddress: 500 });
    for (const value of ['0', '-1', '1.5', 'many']) {
      expect(() => loadConfig({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: value }), value).toThrow(/HTTP_MAX_CONNECTIONS_PER_ADDRESS/);
    }
    expect(() => loadConfig({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1001' })).toThrow(/HTTP_MAX_CONNECTIONS_PER_ADDRESS: must not exceed HTTP_MAX_CONNECTIONS/);
  });
});
