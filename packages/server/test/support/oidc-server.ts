/**
 * The whole service on a real loopback port (server.ts: API + login UI + oidc-provider), on a
 * fresh store of either dialect, for end-to-end tests with real HTTP clients.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { authenticate, personalAccessTokenVerifier } from '../../src/auth/authenticate.js';
import type { PasswordVerifier } from '../../src/auth/password-verifier.js';
import { addOidcApp } from '../../src/domain/apps/oidc-apps.js';
import type { OidcAppInput } from '../../src/domain/apps/oidc-config.js';
import type { Logger } from '../../src/http/log.js';
import { createRequestHandler, type ServiceHandler } from '../../src/server.js';
import type { Dialect } from '../../src/store/store.js';
import { createTestInstance, type TestInstance } from './instance.js';

export interface OidcTestServer {
  t: TestInstance;
  issuer: string;
  service: ServiceHandler;
  server: Server;
  /** fetch against the server with the admin PAT (or `token`), JSON in and out. */
  api: (method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
  close: () => Promise<void>;
}

export interface OidcTestServerOptions {
  maxPasswordAttempts?: number;
  /** The pool the login's password checks run in (default: the process's own). */
  passwordVerifier?: PasswordVerifier;
  logger?: Logger;
}

export async function startOidcServer(dialect: Dialect, options: OidcTestServerOptions = {}): Promise<OidcTestServer> {
  const t = await createTestInstance(dialect);
  // Listen first: the issuer must name the real port before the provider is built.
  const server = createHttpServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = await createRequestHandler({
    store: t.store,
    instanceId: t.instanceId,
    issuer,
    lockout: { maxPasswordAttempts: options.maxPasswordAttempts ?? 0 },
    passwordVerifier: options.passwordVerifier,
    logger: options.logger,
  });
  server.on('request', service.handler);
  const api: OidcTestServer['api'] = async (method, path, body, token = t.adminToken, headers = {}) => {
    const res = await fetch(issuer + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  };
  return {
    t,
    issuer,
    service,
    server,
    api,
    close: async () => {
      service.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/**
 * A browser stand-in: follows redirects by hand and keeps cookies by host and path, as the login
 * needs. Cookies are kept per host *and port*: tests run two services on one loopback address
 * (an identity provider's upstream and this service), which a real browser would see as two hosts.
 */
export class Browser {
  private cookies = new Map<string, { name: string; value: string; path: string; host: string }>();

  private cookieHeader(url: URL): string {
    return [...this.cookies.values()]
      .filter((c) => c.host === url.host)
      .filter((c) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private remember(res: Response, url: URL) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => /^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now());
      const key = `${url.host} ${name}`;
      if (expired || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path, host: url.host });
    }
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(target, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    this.remember(res, target);
    return res;
  }

  /**
   * Follows redirects from `url` until one leaves the server (the client's redirect URI) or a
   * page is shown. Returns the final response and, for a redirect out, its Location.
   */
  async follow(url: string, stopAt: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ res: Response; location?: URL }> {
    let res = await this.request(url, init);
    let current = new URL(url);
    for (let hops = 0; hops < 20; hops++) {
      const loc = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !loc) return { res };
      const next = new URL(loc, current);
      if (next.href.startsWith(stopAt)) return { res, location: next };
      current = next;
      res = await this.request(next.href);
    }
    throw new Error('too many redirects');
  }
}

/** Authorization request → login form → submit credentials → the redirect URI with code (or the page shown). */
export async function loginThroughForm(
  browser: Browser,
  authorizationUrl: string,
  redirectUri: string,
  loginName: string,
  password: string,
): Promise<{ callback?: URL; page?: { status: number; html: string; headers: Headers } }> {
  const first = await browser.follow(authorizationUrl, redirectUri);
  if (first.location) return { callback: first.location }; // already signed in
  const html = await first.res.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) return { page: { status: first.res.status, html, headers: first.res.headers } };
  const origin = new URL(authorizationUrl).origin;
  const submitted = await browser.follow(origin + action.replace(/&amp;/g, '&'), redirectUri, { form: { loginName, password } });
  if (submitted.location) return { callback: submitted.location };
  return { page: { status: submitted.res.status, html: await submitted.res.text(), headers: submitted.res.headers } };
}

/** An OIDC app through the domain function, as the admin (the HTTP API has its own tests). */
export async function createOidcApp(s: OidcTestServer, projectId: string, input: OidcAppInput & { name: string }) {
  const ctx = await authenticate(s.t.store, [personalAccessTokenVerifier(s.t.store)], s.t.instanceId, `Bearer ${s.t.adminToken}`, undefined);
  return addOidcApp(s.t.store, ctx, projectId, input);
}

export async function importHuman(s: OidcTestServer, userName: string, password: ({ password: string } | { hashedPassword: { value: string } }) & { otpCode?: string }) {
  const res = await s.api('POST', '/management/v1/users/human/_import', {
    userName,
    profile: { firstName: 'Test', lastName: userName },
    email: { email: `${userName}@example.com`, isEmailVerified: true },
    ...password,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.userId as string;
}

