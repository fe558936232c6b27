/**
 * The authorization server in the log (issue 15.11): one line per request to /oauth/v2, /oidc/v1
 * and /.well-known, with the OAuth error when one occurred and never a secret; its unknown paths
 * answer OAuth's JSON error body.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Logger } from '../../src/log.js';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

function capturingLogger() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as Logger;
  return { logger, lines };
}

describeEachStore('authorization server requests in the log', (dialect) => {
  let s: OidcTestServer;
  const log = capturingLogger();
  beforeAll(async () => {
    s = await startOidcServer(dialect, { logger: log.logger });
  });
  afterAll(() => s?.close());

  it('logs a failed client authentication with its OAuth error, without the secret', async () => {
    const secret = 'very-secret-value-123';
    const res = await fetch(`${s.issuer}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`nobody:${secret}`).toString('base64')}` },
      body: 'grant_type=client_credentials&scope=openid',
    });
    expect(res.status).toBe(401);
    await res.text();
    await new Promise((r) => setTimeout(r, 20));
    const line = log.lines.find((l) => l.msg === 'oauth request' && l.fields?.path === '/oauth/v2/token');
    expect(line).toMatchObject({ level: 'warn', fields: { method: 'POST', status: 401, error: 'invalid_client' } });
    expect(JSON.stringify(log.lines)).not.toContain(secret);
  });

  it('logs a refused JWT-profile grant (answered before oidc-provider) with its OAuth error, without the assertion', async () => {
    const assertion = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJ4Iiwic3ViIjoieSJ9.c2lnbmF0dXJl';
    const res = await fetch(`${s.issuer}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, scope: 'openid' }),
    });
    expect(res.status).toBe(400);
    await res.text();
    await new Promise((r) => setTimeout(r, 20));
    const line = log.lines.filter((l) => l.msg === 'oauth request' && l.fields?.path === '/oauth/v2/token').at(-1);
    expect(line).toMatchObject({ level: 'warn', fields: { method: 'POST', status: 400, error: 'invalid_grant', errorDescription: expect.stringContaining('"iss"') } });
    expect(JSON.stringify(log.lines)).not.toContain(assertion);
  });

  it('logs a JWT introspected with success as a success (no refused-token error the library never answered)', async () => {
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const project = (await s.api('POST', '/management/v1/projects', { name: 'logged-introspection' })).body.id;
    const app = (await s.api('POST', `/management/v1/projects/${project}/apps/api`, { name: 'logged-api' })).body;
    const robot = (await s.api('POST', '/management/v1/users/machine', { userName: 'logged-robot', name: 'Robot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' })).body.userId;
    const secret = (await s.api('PUT', `/management/v1/users/${robot}/secret`)).body;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const token = (
      await (
        await fetch(`${s.issuer}/oauth/v2/token`, {
          method: 'POST',
          headers: { ...form, authorization: basic(secret.clientId, secret.clientSecret) },
          body: 'grant_type=client_credentials&scope=openid',
        })
      ).json()
    ).access_token as string;
    expect(token.split('.')).toHaveLength(3);
    const res = await fetch(`${s.issuer}/oauth/v2/introspect`, { method: 'POST', headers: { ...form, authorization: basic(app.clientId, app.clientSecret) }, body: new URLSearchParams({ token }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ active: true, sub: robot, token_type: 'Bearer' });
    await new Promise((r) => setTimeout(r, 20));
    const line = log.lines.filter((l) => l.msg === 'oauth request' && l.fields?.path === '/oauth/v2/introspect').at(-1);
    expect(line).toMatchObject({ level: 'info', fields: { method: 'POST', status: 200 } });
    expect(line?.fields?.error).toBeUndefined();
  });

  /** POST of a form body either declared (Content-Length) or streamed (chunked), over a connection of its own. */
  const postForm = (path: string, body: string, mode: 'declared' | 'chunked') =>
    new Promise<{ status: number; cacheControl?: string; body: unknown }>((resolve, reject) => {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (mode === 'declared') headers['content-length'] = String(Buffer.byteLength(body));
      const req = request(`${s.issuer}${path}`, { method: 'POST', headers, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, cacheControl: res.headers['cache-control'], body: JSON.parse(text) }));
      });
      req.on('error', reject);
      // Two writes without a declared length: node sends Transfer-Encoding: chunked.
      if (mode === 'chunked') req.write(body.slice(0, 10));
      req.end(mode === 'chunked' ? body.slice(10) : body);
    });

  for (const mode of ['declared', 'chunked'] as const) {
    it(`${mode}: a form past oidc-provider's 56 KiB at each form endpoint → its 400 invalid_request, logged with its error`, async () => {
      const large = `client_id=nobody&token=x&grant_type=client_credentials&scope=${'x'.repeat(60 * 1024)}`;
      for (const path of ['/oauth/v2/token', '/oauth/v2/introspect', '/oauth/v2/revoke', '/oauth/v2/par']) {
        const res = await postForm(path, large, mode);
        expect({ path, ...res }).toEqual({ path, status: 400, cacheControl: 'no-store', body: { error: 'invalid_request', error_description: 'failed to parse the request body' } });
        await new Promise((r) => setTimeout(r, 20));
        const line = log.lines.filter((l) => l.msg === 'oauth request' && l.fields?.path === path).at(-1);
        expect(line).toMatchObject({ level: 'warn', fields: { method: 'POST', status: 400, error: 'invalid_request', errorDescription: 'failed to parse the request body' } });
      }
    });
  }

  it('logs discovery, and answers an unknown endpoint with OAuth JSON', async () => {
    expect((await fetch(`${s.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    const res = await fetch(`${s.issuer}/oauth/v2/nope?code=abc`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect((await res.json()).error).toBe('invalid_request');
    await new Promise((r) => setTimeout(r, 20));
    const paths = log.lines.filter((l) => l.msg === 'oauth request').map((l) => l.fields?.path);
    expect(paths).toEqual(expect.arrayContaining(['/.well-known/openid-configuration', '/oauth/v2/nope']));
    expect(JSON.stringify(log.lines)).not.toContain('code=abc');
  });
});

describeEachStore('machine endpoints answer JSON', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  });
  afterAll(() => s?.close());

  for (const path of ['/oauth/v2/introspect', '/oauth/v2/par', '/oauth/v2/token', '/oauth/v2/revoke']) {
    it(`${path} answers an error in JSON even to a caller that accepts HTML`, async () => {
      const res = await fetch(`${s.issuer}${path}`, { method: 'POST', headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=nobody&token=x' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(typeof (await res.json()).error).toBe('string');
    });
  }
});
