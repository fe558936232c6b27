/**
 * A browser stand-in for the login pages over real HTTP, and the sign-in through the login form.
 * No test framework here: the bench (bench/targets/oauth.ts and sign-in.ts) signs a person in
 * the same way the tests do.
 */
import { request as httpRequest } from 'node:http';

/**
 * A browser stand-in: follows redirects by hand and keeps cookies by host and path, as the login
 * needs. Cookies are kept per host *and port*: tests run two services on one loopback address
 * (an identity provider's upstream and this service), which a real browser would see as two hosts.
 */
export class Browser {
  private cookies = new Map<string, { name: string; value: string; path: string; host: string }>();

  /**
   * `localAddress`: the loopback address requests come from (e.g. 127.0.0.2), so tests and the
   * bench can be several clients to the server's per-address fairness. fetch cannot choose it
   * (without undici's Agent), so such a browser speaks node:http.
   */
  constructor(private readonly options: { localAddress?: string } = {}) {}

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
    const method = init.method ?? (body ? 'POST' : 'GET');
    const res = this.options.localAddress ? await requestFrom(this.options.localAddress, target, method, headers, body) : await fetch(target, { method, headers, body, redirect: 'manual' });
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
  const page = { status: submitted.res.status, html: await submitted.res.text(), headers: submitted.res.headers };
  return skipSecondFactorOffer(browser, origin, redirectUri, page);
}

/**
 * Presses "Skip" where the login offers to set up an authenticator app (the login policy's
 * `mfaInitSkipLifetime`: the instance's default offers it at a user's first sign-in), as the
 * person would; any other page is handed back as it is.
 */
export async function skipSecondFactorOffer(
  browser: Browser,
  origin: string,
  redirectUri: string,
  page: { status: number; html: string; headers: Headers },
): Promise<{ callback?: URL; page?: { status: number; html: string; headers: Headers } }> {
  const skip = /<form method="post" action="([^"]+\/otp\/setup\/skip)"/.exec(page.html)?.[1];
  if (!skip) return { page };
  const skipped = await browser.follow(origin + skip, redirectUri, { method: 'POST', form: {} });
  if (skipped.location) return { callback: skipped.location };
  return { page: { status: skipped.res.status, html: await skipped.res.text(), headers: skipped.res.headers } };
}

/** One node:http request from `localAddress`, answered as a fetch Response (cookies kept apart, as fetch does). */
function requestFrom(localAddress: string, url: URL, method: string, headers: Record<string, string>, body?: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) answer.append(name, v);
        }
        const status = res.statusCode ?? 500;
        // A Response cannot carry a body with these statuses.
        const nullBody = [101, 103, 204, 205, 304].includes(status);
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: answer }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
