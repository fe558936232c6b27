/**
 * Repeated OAuth parameters at the authorization endpoint (issue 33.2): `scope=a&scope=b` once
 * reached our offline-access hook as an array and answered 500. RFC 6749 §3.1 says a parameter
 * must not be included more than once, so each repeated parameter our code or the library reads
 * is refused as `invalid_request` naming it, with or without a client.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp, type OidcTestServer, publicClient, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REPEATED = ['scope', 'prompt', 'max_age', 'login_hint', 'acr_values', 'id_token_hint', 'ui_locales', 'nonce', 'state', 'response_type', 'redirect_uri', 'client_id'];
/** A second value for each parameter (a valid one, so only the repetition is wrong). */
const SECOND: Record<string, string> = { scope: 'openid offline_access', prompt: 'consent', max_age: '60', response_type: 'code', redirect_uri: REDIRECT };

describeEachStore('repeated parameters at the authorization endpoint', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const project = await s.api('POST', '/management/v1/projects', { name: 'repeated' });
    const app = await createOidcApp(s, project.body.id, {
      ...publicClient('web', REDIRECT),
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
    });
    clientId = app.clientId;
  });
  afterAll(async () => {
    await s?.close();
  });

  /** The query or form: a valid request of the client (or only the repeated pair without one), `param` twice. */
  const params = (param: string, withClient: boolean) => {
    const search = new URLSearchParams(
      withClient ? { client_id: clientId, response_type: 'code', scope: 'openid offline_access', redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256' } : {},
    );
    const second = SECOND[param] ?? 'b';
    if (search.has(param)) search.append(param, second);
    else search.append(param, 'a'), search.append(param, second);
    return search;
  };

  /**
   * Refused as OAuth says: a 400 page without a client whose redirect URI is known, else the error
   * sent back to the client's registered redirect URI (RFC 6749 §4.1.2.1); `invalid_request` either way.
   */
  const expectRefused = async (res: Response, param: string) => {
    const text = await res.text();
    const description = `'${param}' parameter must not be provided twice`;
    if (res.status === 303) {
      const location = new URL(res.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toBe(description);
      return;
    }
    expect(res.status, text).toBe(400);
    const shown = text.replace(/&#39;|&#x27;/g, "'");
    expect(shown).toContain('invalid_request');
    expect(shown).toContain(description);
  };

  for (const withClient of [false, true]) {
    for (const param of REPEATED) {
      if (!withClient && param === 'client_id') continue;
      it(`${param} twice, ${withClient ? 'with a valid client' : 'without a client'} → invalid_request`, async () => {
        const res = await fetch(`${s.issuer}/oauth/v2/authorize?${params(param, withClient)}`, { redirect: 'manual' });
        await expectRefused(res, param);
      });
    }
  }

  // The endpoint serves GET only (enableHttpPostMethods is off: it needs SameSite=None cookies);
  // a POST, repeated parameters in its query or its form, gets what any POST gets, never a 500.
  it('POST with scope and prompt twice in the query or the form → what a plain POST gets', async () => {
    const post = (query: string, form: URLSearchParams) =>
      fetch(`${s.issuer}/oauth/v2/authorize${query}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual' });
    const plain = await post('', params('state', true));
    expect(plain.status).toBeLessThan(500);
    for (const res of [
      await post('?scope=a&scope=b&prompt=a&prompt=b', params('state', true)),
      await post('?scope=a&scope=b', new URLSearchParams()),
      await post('', params('scope', true)),
      await post('', params('prompt', false)),
    ]) {
      expect(res.status).toBe(plain.status);
    }
  });

  it('scope and prompt given once are served as before (the login page)', async () => {
    const search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      scope: 'openid offline_access',
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${s.issuer}/oauth/v2/authorize?${search}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/ui/login/');
  });
});
