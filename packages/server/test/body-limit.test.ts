/**
 * The body limit over a real HTTP connection: there a body arrives either with a declared
 * Content-Length (decided from the header) or chunked (counted while read). `app.request` in
 * the other tests sends neither header, so only this file reaches the header path.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from './support/instance.js';

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
