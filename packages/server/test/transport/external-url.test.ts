/**
 * Every URL the service advertises or redirects to derives from EXTERNAL_URL (the issuer), never
 * from the request's Host, :authority, X-Forwarded-Host/Proto or an absolute-form target: a
 * forged one would poison caches (discovery is cacheable) and, behind a reverse proxy, name the
 * proxy's internal address. Over real HTTP/1.1 and h2c, on the service's own server.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRequestHandler, type ServiceHandler } from '../../src/server.js';
import type { Dialect } from '../../src/store/store.js';
import { createLimitedHttpServer, DEFAULT_CONNECTION_LIMITS } from '../../src/transport/http-server.js';
import { h2cRequest, h2cSession } from '../support/h2c.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { authorizeUrl, createOidcApp, importHuman, type OidcTestServer, publicClient, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';
const FORGED = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One HTTP/1.1 request to 127.0.0.1:`port` with exactly these headers (Host included) and target. */
function send(port: number, target: string, init: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<Answer> {
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  const headers = { ...init.headers, ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: target, method: init.method ?? (body ? 'POST' : 'GET'), headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every absolute http(s) URL in a text. */
const urlsIn = (text: string): string[] => text.match(/https?:\/\/[^\s"'<>\\]+/g) ?? [];

/** Every URL of a discovery document names `origin`; none names the forged host. */
function expectOnlyOrigin(text: string, origin: string): void {
  expect(text).not.toContain('evil.example');
  const urls = urlsIn(text);
  expect(urls.length).toBeGreaterThan(3);
  for (const url of urls) expect(new URL(url).origin, url).toBe(origin);
}

/** A browser's cookies, by name only (one server, one host). */
class Jar {
  readonly #cookies = new Map<string, string>();
  header(): Record<string, string> {
    return this.#cookies.size ? { cookie: [...this.#cookies].map(([n, v]) => `${n}=${v}`).join('; ') } : {};
  }
  keep(answer: Answer): Answer {
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return answer;
  }
}

/**
 * A person signs in with every request of the browser carrying `headers` (a forged Host, or a
 * proxy's X-Forwarded-*): each Location the service answers with is returned, until the client's
 * redirect URI.
 */
async function signInWith(port: number, issuer: string, clientId: string, loginName: string, headers: Record<string, string>): Promise<{ locations: string[]; jar: Jar }> {
  const jar = new Jar();
  const locations: string[] = [];
  const get = async (target: string) => jar.keep(await send(port, target, { headers: { ...headers, ...jar.header() } }));
  const follow = async (answer: Answer): Promise<Answer> => {
    for (let hops = 0; hops < 10; hops++) {
      const location = answer.headers.location;
      if (!location || location.startsWith(REDIRECT)) {
        if (location) locations.push(location);
        return answer;
      }
      locations.push(location);
      const next = new URL(location, issuer);
      answer = await get(next.pathname + next.search);
    }
    throw new Error('too many redirects');
  };
  const authorize = new URL(authorizeUrl(issuer, { client_id: clientId, redirect_uri: REDIRECT }));
  const form = await follow(await get(authorize.pathname + authorize.search));
  const action = /<form method="post" action="([^"]+)"/.exec(form.text)?.[1]?.replace(/&amp;/g, '&');
  expect(action, form.text).toBeTruthy();
  const submitted = jar.keep(await send(port, action!, { headers: { ...headers, ...jar.header() }, form: { loginName, password: PASSWORD } }));
  let end = await follow(submitted);
  // The instance's default policy offers an authenticator app at the first sign-in: skip it.
  const skip = /<form method="post" action="([^"]+\/otp\/setup\/skip)"/.exec(end.text)?.[1];
  if (skip) end = await follow(jar.keep(await send(port, skip, { method: 'POST', headers: { ...headers, ...jar.header() }, form: {} })));
  expect(locations.at(-1), end.text).toMatch(/^http:\/\/127\.0\.0\.1:1\/callback\?code=/);
  return { locations, jar };
}

describeEachStore('advertised URLs follow EXTERNAL_URL, not the request', (dialect) => {
  let s: OidcTestServer;
  let port: number;
  let clientId: string;

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    port = Number(new URL(s.issuer).port);
    const project = await s.api('POST', '/management/v1/projects', { name: 'external-url' });
    clientId = (await createOidcApp(s, project.body.id, publicClient('spa', REDIRECT))).clientId;
    await importHuman(s, 'hosted', { password: PASSWORD });
  }, 60_000);
  afterAll(() => s?.close());

  it('discovery with a forged Host, X-Forwarded-Host/Proto or absolute-form target names only the issuer', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      for (const [target, headers] of [
        [path, { host: 'evil.example' }],
        [path, { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }],
        [`http://evil.example${path}`, { host: 'evil.example' }],
      ] as const) {
        const res = await send(port, target, { headers });
        expect(res.status, `${target} ${JSON.stringify(headers)}`).toBe(200);
        expectOnlyOrigin(res.text, s.issuer);
        const doc = JSON.parse(res.text);
        expect(doc.issuer).toBe(s.issuer);
        expect(doc.authorization_endpoint).toBe(`${s.issuer}/oauth/v2/authorize`);
        expect(doc.jwks_uri).toBe(`${s.issuer}/oauth/v2/keys`);
      }
    }
  });

  it('discovery over HTTP/2 with a forged :authority names only the issuer', async () => {
    const { session } = await h2cSession(port);
    try {
      const answer = await h2cRequest(session, 'GET', '/.well-known/openid-configuration', { headers: { ':authority': 'evil.example', 'x-forwarded-host': 'evil.example' } }).answer;
      expect(answer.status).toBe(200);
      expectOnlyOrigin(answer.text, s.issuer);
    } finally {
      session.close();
    }
  });

  it('a sign-in whose every request forges the Host is redirected only within the issuer and to the client', async () => {
    const { locations } = await signInWith(port, s.issuer, clientId, 'hosted', FORGED);
    for (const location of locations) {
      expect(location).not.toContain('evil.example');
      const url = new URL(location, 'relative:/');
      if (url.protocol !== 'relative:') expect([s.issuer, 'http://127.0.0.1:1']).toContain(url.origin);
    }
    // The sign-in came back through the authorization server's resume step, on the issuer.
    expect(locations.some((l) => l.startsWith(`${s.issuer}/oauth/v2/authorize/`))).toBe(true);
  });

  it('the sign-out page and its form name the issuer, not the forged Host', async () => {
    // Without a session: the form that posts itself to the confirmation.
    const bare = await send(port, `/oidc/v1/end_session?client_id=${clientId}`, { headers: FORGED });
    expect(bare.status).toBe(200);
    expect(bare.text).not.toContain('evil.example');
    expect(bare.text).toContain(`action="${s.issuer}/oidc/v1/end_session/confirm"`);
    // Signed in: the page asking to confirm, which names the host signed out from.
    const { jar } = await signInWith(port, s.issuer, clientId, 'hosted', FORGED);
    const page = await send(port, `/oidc/v1/end_session?client_id=${clientId}`, { headers: { ...FORGED, ...jar.header() } });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('evil.example');
    expect(page.text).toContain(`action="${s.issuer}/oidc/v1/end_session/confirm"`);
    expect(page.text).toContain(`sign out from ${new URL(s.issuer).host}?`);
  });

  it('the API reference and the OpenAPI document do not name the forged Host', async () => {
    for (const path of ['/docs', '/openapi.json']) {
      const res = await send(port, path, { headers: FORGED });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('evil.example');
    }
  });
});

/** Behind a TLS-terminating proxy (an https EXTERNAL_URL, so X-Forwarded-* are trusted for the client's address). */
describeEachStore('advertised URLs behind a reverse proxy', (dialect: Dialect) => {
  const ISSUER = 'https://id.example.com';
  let t: TestInstance;
  let service: ServiceHandler;
  let server: ReturnType<typeof createLimitedHttpServer>;
  let port: number;
  let clientId: string;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    service = await createRequestHandler({ store: t.store, instanceId: t.instanceId, issuer: ISSUER, trustProxy: true, lockout: { maxPasswordAttempts: 0 } });
    server = createLimitedHttpServer(service.handler, DEFAULT_CONNECTION_LIMITS);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    const s = { t, issuer: ISSUER } as OidcTestServer;
    const project = await service.app.request('/management/v1/projects', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'proxied' }),
    });
    clientId = (await createOidcApp(s, ((await project.json()) as { id: string }).id, publicClient('spa', REDIRECT))).clientId;
    const user = await service.app.request('/management/v1/users/human/_import', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'proxied', profile: { firstName: 'P', lastName: 'X' }, email: { email: 'proxied@example.com', isEmailVerified: true }, password: PASSWORD }),
    });
    expect(user.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    service?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('the proxy\u2019s internal address and a forged X-Forwarded-Host/Proto appear nowhere in discovery', async () => {
    for (const headers of [
      { host: '127.0.0.1:8080' } as Record<string, string>,
      { host: '10.0.0.7:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
      { host: 'id.example.com', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'id.example.com:8443' },
    ]) {
      const res = await send(port, '/.well-known/openid-configuration', { headers });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('127.0.0.1');
      expect(res.text).not.toContain('10.0.0.7');
      expectOnlyOrigin(res.text, ISSUER);
    }
  });

  it('a sign-in through the proxy is redirected only within EXTERNAL_URL, its cookies Secure', async () => {
    const { locations } = await signInWith(port, ISSUER, clientId, 'proxied', { host: '10.0.0.7:8080', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' });
    for (const location of locations) {
      const url = new URL(location, 'relative:/');
      if (url.protocol !== 'relative:') expect([ISSUER, 'http://127.0.0.1:1']).toContain(url.origin);
    }
    expect(locations.some((l) => l.startsWith(`${ISSUER}/oauth/v2/authorize/`))).toBe(true);
    // The authorization server's cookies are Secure: the browser is on https, whatever the proxy says.
    const authorize = new URL(authorizeUrl(ISSUER, { client_id: clientId, redirect_uri: REDIRECT }));
    const first = await send(port, authorize.pathname + authorize.search, { headers: { host: '10.0.0.7:8080' } });
    const cookies = first.headers['set-cookie'] ?? [];
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie.toLowerCase()).toContain('; secure');
  });
});
