/**
 * RP-initiated logout (`/oidc/v1/end_session`): it ends the browser's session, so the next
 * authorization request asks for the password again, and it returns to a registered
 * post-logout redirect URI only.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { Browser, createOidcApp, importHuman, loginThroughForm, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const AFTER_LOGOUT = 'http://127.0.0.1:1/signed-out';
const PASSWORD = 'Secr3t-Passw0rd!';

describeEachStore('end_session (logout)', (dialect) => {
  let s: OidcTestServer;
  let config: oc.Configuration;

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = await s.api('POST', '/management/v1/projects', { name: 'logout' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'spa',
      redirectUris: [REDIRECT],
      postLogoutRedirectUris: [AFTER_LOGOUT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    await importHuman(s, 'erin', { password: PASSWORD });
  }, 60_000);
  afterAll(() => s?.close());

  async function authorize(browser: Browser) {
    const verifier = oc.randomPKCECodeVerifier();
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    return { url: url.href, verifier };
  }

  it('after logout a new authorization request shows the login form again', async () => {
    const browser = new Browser();
    const first = await authorize(browser);
    const login = await loginThroughForm(browser, first.url, REDIRECT, 'erin', PASSWORD);
    expect(login.callback?.searchParams.get('code')).toBeTruthy();
    const tokens = await oc.authorizationCodeGrant(config, login.callback!, { pkceCodeVerifier: first.verifier });

    // Signed in: the next request goes straight back with a code, no form.
    const again = await browser.follow((await authorize(browser)).url, REDIRECT);
    expect(again.location?.searchParams.get('code')).toBeTruthy();

    // The logout page: a form (no JavaScript needed) confirming the sign-out.
    const endSession = new URL(`${s.issuer}/oidc/v1/end_session`);
    endSession.search = new URLSearchParams({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: AFTER_LOGOUT, state: 'st-1' }).toString();
    const page = await browser.request(endSession.href);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('<script');
    expect(html).not.toContain('fonts.googleapis.com');
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    expect(action).toBe(`${s.issuer}/oidc/v1/end_session/confirm`);
    const confirmed = await browser.follow(action!, AFTER_LOGOUT, { form: { xsrf: xsrf!, logout: 'yes' } });
    expect(confirmed.location?.origin + confirmed.location!.pathname).toBe(AFTER_LOGOUT);
    expect(confirmed.location?.searchParams.get('state')).toBe('st-1');

    // Signed out: the same browser gets the login form, not a code.
    const after = await browser.follow((await authorize(browser)).url, REDIRECT);
    expect(after.location).toBeUndefined();
    expect(after.res.status).toBe(200);
    expect(await after.res.text()).toContain('<form method="post" action="/ui/login/');
  });

  it('refuses an unregistered post-logout redirect URI and an undecodable id_token_hint', async () => {
    const clientId = config.clientMetadata().client_id;
    const bad = await fetch(`${s.issuer}/oidc/v1/end_session?${new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: 'http://evil.example/' })}`, { redirect: 'manual' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'invalid_request', error_description: 'post_logout_redirect_uri not registered' });
    const hint = await fetch(`${s.issuer}/oidc/v1/end_session?id_token_hint=abc`, { redirect: 'manual' });
    expect(hint.status).toBe(400);
    expect((await hint.json()).error).toBe('invalid_request');
  });

  it('without a post-logout redirect URI the logout ends on our own signed-out page', async () => {
    const browser = new Browser();
    const page = await browser.request(`${s.issuer}/oidc/v1/end_session`);
    const html = await page.text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    const done = await browser.follow(`${s.issuer}/oidc/v1/end_session/confirm`, 'http://never/', { form: { xsrf: xsrf!, logout: 'yes' } });
    expect(done.res.status).toBe(200);
    expect(await done.res.text()).toContain('You are signed out.');
  });
});
