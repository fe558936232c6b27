/**
 * The body limit over a real HTTP connection: there a body arrives either with a declared
 * Content-Length (decided from the header) or chunked (counted while read). `app.request` in
 * the other tests sends neither header, so only this file reaches the header path.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const PATH = '/admin/v1/text/message/verifyemail/en';
const LIMIT = 1024;

describeEachStore('request body limit over HTTP', (dialect) => {
  let t: TestInstance;
  let server: ServerType;
  let port: number;
  beforeAll(async () => {
    t = await createTestInstance(dialect, { maxBodyBytes: LIMIT });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** PUT with the body either declared (Content-Length) or streamed (chunked). */
  const put = (body: string, mode: 'declared' | 'chunked') =>
    new Promise<{ status: number; body: { code?: number; message?: string } }>((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' };
      if (mode === 'declared') headers['content-length'] = String(Buffer.byteLength(body));
      const req = request({ host: '127.0.0.1', port, path: PATH, method: 'PUT', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      if (mode === 'chunked') {
        // Two writes without a declared length: node sends Transfer-Encoding: chunked.
        req.write(body.slice(0, 10));
        req.write(body.slice(10));
      } else req.write(body);
      req.end();
    });

  const small = JSON.stringify({ title: 'within the limit' });
  const large = JSON.stringify({ footerText: 'x'.repeat(LIMIT * 2) });

  for (const mode of ['declared', 'chunked'] as const) {
    it(`${mode}: a body within the limit is stored`, async () => {
      const res = await put(small, mode);
      expect(res.status).toBe(200);
      const stored = await (await t.call('GET', PATH)).json();
      expect(stored.customText.title).toBe('within the limit');
    });

    it(`${mode}: a body over the limit → 413 in the error body, nothing stored`, async () => {
      const before = await (await t.call('GET', PATH)).json();
      const res = await put(large, mode);
      expect(res.status).toBe(413);
      expect(res.body.code).toBe(8);
      expect(res.body.message).toContain('too large');
      const after = await (await t.call('GET', PATH)).json();
      expect(after.customText.details).toEqual(before.customText.details);
    });
  }
});

describeEachStore('POST /admin/v1/import: the caller is checked before its body is read, and few bodies are read at once', (dialect) => {
  let t: TestInstance;
  let server: ServerType;
  let port: number;
  const MAX_IMPORTS = 2;
  beforeAll(async () => {
    t = await createTestInstance(dialect, { maxConcurrentImports: MAX_IMPORTS });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    (server as import('node:http').Server).closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /**
   * A chunked import body that is started but not finished: the answer must come without the
   * rest of the body. `finish` sends the rest (or `abort` drops the connection).
   */
  const startUpload = (token: string | null, headers: Record<string, string> = {}) => {
    let answered: (value: { status: number; body: { code?: number; message?: string } }) => void;
    const answer = new Promise<{ status: number; body: { code?: number; message?: string } }>((resolve) => (answered = resolve));
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/admin/v1/import',
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => answered({ status: res.statusCode!, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', () => undefined);
    req.write('{"dataOrgs":{"orgs":[');
    return {
      answer,
      finish: () => req.end(']}}'),
      abort: () => req.destroy(),
    };
  };
  const within = <T>(promise: Promise<T>, ms = 3000) => Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);

  it('no token → 401 while the body is still arriving; a declared size over the limit → 401, not 413', async () => {
    const upload = startUpload(null);
    const res = await within(upload.answer);
    upload.abort();
    expect(res.status).toBe(401);
    expect(res.body.code).toBe(16);
    const declared = startUpload(null, { 'content-length': String(1024 * 1024 * 1024) });
    const big = await within(declared.answer);
    declared.abort();
    expect(big.status).toBe(401);
  });

  it('a token without iam.write → 403 while the body is still arriving', async () => {
    const { token } = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    const upload = startUpload(token);
    const res = await within(upload.answer);
    upload.abort();
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(7);
  });

  it(`at most ${MAX_IMPORTS} import bodies are read at once: the next one → 429 in the error body, a later one succeeds`, async () => {
    const running = Array.from({ length: MAX_IMPORTS }, () => startUpload(t.adminToken));
    // Let the server take the running uploads in before the next one arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const extra = startUpload(t.adminToken);
    const refused = await within(extra.answer);
    extra.abort();
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe(8);
    expect(refused.body.message).toContain(`${MAX_IMPORTS}`);
    for (const upload of running) upload.finish();
    for (const upload of running) expect((await within(upload.answer)).status).toBe(200);
    const later = startUpload(t.adminToken);
    later.finish();
    expect((await within(later.answer)).status).toBe(200);
  });
});
