/**
 * What a person sees at the authorization server (issue 15.13): errors in the login's style with
 * what to do next (not the library's raw `<dl>`), and a login page that names the application.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, type OidcTestServer, publicClient, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';

describeEachStore('authorization server pages', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = await s.api('POST', '/management/v1/projects', { name: 'pages' });
    const app = await createOidcApp(s, project.body.id, {
      ...publicClient('Acme Shop', REDIRECT),
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
    });
    clientId = app.clientId;
  });
  afterAll(() => s?.close());

  const authorize = (params: Record<string, string>) => {
    const url = new URL(`${s.issuer}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...params }).toString();
    return fetch(url, { redirect: 'manual' });
  };

  it('an unknown client gets a styled page that says what to do next', async () => {
    const res = await authorize({ client_id: 'no-such-client', redirect_uri: REDIRECT });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('<style>');
    expect(html).not.toContain('<dl>');
    expect(html).toContain('id="error-code">invalid_client<');
    expect(html).toMatch(/not registered with this service/);
  });

  it('an unregistered redirect URI says so', async () => {
    const res = await authorize({ client_id: clientId, redirect_uri: 'https://evil.example.com/cb' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('<style>');
    expect(html).toMatch(/redirect URI/);
  });

  it('an unregistered redirect URI says so, and not that a registered one is unregistered', async () => {
    const html = await (await authorize({ client_id: clientId, redirect_uri: 'https://evil.example.com/cb' })).text();
    expect(html).toContain('id="next-step">The application asked to send you back to an address it has not registered');
  });

  // Issue 33.9: an http redirect URI of a web app without devMode is stored (with complianceProblems)
  // but not used; the page must say why, not that the address is unregistered.
  it('a registered redirect URI refused for compliance says why and what to change', async () => {
    const project = await s.api('POST', '/management/v1/projects', { name: 'pages-compliance' });
    const web = await createOidcApp(s, project.body.id, {
      name: 'Plain http',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
    });
    const res = await authorize({ client_id: web.clientId, redirect_uri: REDIRECT });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).not.toMatch(/has not registered/);
    expect(html).toContain('id="next-step">');
    expect(html).toContain(`The application registered ${REDIRECT}, but outside development mode`);
    expect(html).toMatch(/https/);
    expect(html).toMatch(/development mode \(devMode\)/);
    const native = await createOidcApp(s, project.body.id, {
      name: 'Native app',
      redirectUris: ['http://app.example.com/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
    });
    const nativeHtml = await (await authorize({ client_id: native.clientId, redirect_uri: 'http://app.example.com/cb' })).text();
    expect(nativeHtml).not.toMatch(/has not registered/);
    expect(nativeHtml).toMatch(/loopback/);
  });

  it('the login page names the application', async () => {
    const res = await authorize({ client_id: clientId, redirect_uri: REDIRECT });
    const location = res.headers.get('location')!;
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const page = await fetch(new URL(location, s.issuer), { headers: { cookie } });
    const html = await page.text();
    expect(html).toContain('id="app-name">Acme Shop<');
    expect(html).toContain('<title>Sign in to Acme Shop</title>');
  });
});
