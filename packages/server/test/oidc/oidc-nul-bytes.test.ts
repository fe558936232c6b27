/**
 * NUL characters in OAuth parameters (issue 16.5): PostgreSQL cannot keep U+0000 in text or jsonb,
 * and such a value once reached the store as a client id or inside a stored interaction, answering
 * 500 to unauthenticated callers. Every endpoint must refuse it with an OAuth error instead.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { authorizeUrl, createOidcApp, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';

describeEachStore('NUL bytes in OAuth parameters', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = await s.api('POST', '/management/v1/projects', { name: 'nul' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'web',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    clientId = app.clientId;
  });
  afterAll(async () => {
    await s?.close();
  });

  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });

  for (const path of ['/oauth/v2/token', '/oauth/v2/introspect', '/oauth/v2/revoke', '/oauth/v2/par']) {
    it(`client_id with NUL at ${path} → an OAuth error, not a 500`, async () => {
      const res = await fetch(
        s.issuer + path,
        form({ client_id: 'a\u0000b', client_secret: 'x', grant_type: 'client_credentials', token: 'x', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }),
      );
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect(typeof body.error).toBe('string');
    });
  }

  it('client_id with NUL at authorize → an error page, not a 500', async () => {
    const res = await fetch(`${s.issuer}/oauth/v2/authorize?client_id=a%00b&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(REDIRECT)}`, { redirect: 'manual' });
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(500);
  });

  for (const param of ['nonce', 'state', 'login_hint']) {
    it(`${param} with NUL at authorize → refused, not a 500`, async () => {
      const url = new URL(authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT, [param]: 'a\u0000b' }));
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      // Refused: an error back to the client (or an error page), never the login page.
      const location = res.headers.get('location') ?? '';
      expect(location.includes('/ui/login')).toBe(false);
      if (res.status === 303 || res.status === 302) expect(location).toContain('error=invalid_request');
      else {
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(await res.text()).toContain('invalid_request');
      }
    });
  }

  /** Starts a sign-in and returns the login page's path (/ui/login/<uid>) with the cookies to post to it. */
  async function loginPage(): Promise<{ path: string; cookie: string }> {
    const url = new URL(authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT }));
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location') ?? '';
    expect(location).toContain('/ui/login/');
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return { path: new URL(location, s.issuer).pathname, cookie };
  }

  it('the login form posted as broken multipart/form-data → 400 page, not a 500', async () => {
    const { path, cookie } = await loginPage();
    const res = await fetch(s.issuer + path, { method: 'POST', headers: { cookie, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('a login name or password with NUL → 400 page, not a 500', async () => {
    for (const fields of [
      { loginName: 'a\u0000b', password: 'x' },
      { loginName: 'admin', password: 'a\u0000b' },
    ]) {
      const { path, cookie } = await loginPage();
      const res = await fetch(s.issuer + path, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('<form');
    }
  });
});
