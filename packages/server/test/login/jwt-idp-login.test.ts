/**
 * Issue 11: signing in through the JWT identity provider of 4.3, end to end on loopback — a JWT
 * issuer with its JWKS, the "legacy application" proxy that adds the JWT and forwards to
 * `/ui/login/login/jwt/authorize`, the service, and a real OAuth client (openid-client).
 */
import { decodeJwt } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type JwtIssuer, type LegacyProxy, startJwtIssuer, startLegacyProxy } from '../support/jwt-idp.js';
import { Browser, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const HEADER = 'x-legacy-token';
const SCOPES = 'openid profile email urn:zitadel:iam:org:project:roles';

describeEachStore('sign-in through a JWT identity provider', (dialect) => {
  let s: OidcTestServer;
  let jwt: JwtIssuer;
  let proxy: LegacyProxy;
  let orgId: string;
  let projectId: string;
  let clientId: string;
  let clientSecret: string;
  let idpId: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    jwt = await startJwtIssuer();
    proxy = await startLegacyProxy(s.issuer, HEADER);
    orgId = (await s.api('POST', '/management/v1/orgs', { name: `legacy-${Date.now()}` })).body.id;
    projectId = (await s.api('POST', '/management/v1/projects', { name: 'shop' }, undefined, inOrg())).body.id;
    expect((await s.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'buyer', displayName: 'Buyer' }, undefined, inOrg())).status).toBe(200);
    const app = await s.api(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      {
        name: 'web',
        redirectUris: [REDIRECT],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        devMode: true,
        accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
      },
      undefined,
      inOrg(),
    );
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    ({ clientId, clientSecret } = app.body);
    const idp = await s.api(
      'POST',
      '/management/v1/idps/jwt',
      {
        name: 'Legacy shop',
        jwtEndpoint: proxy.jwtEndpoint,
        issuer: jwt.issuer,
        keysEndpoint: jwt.keysEndpoint,
        headerName: HEADER,
        autoRegister: true,
      },
      undefined,
      inOrg(),
    );
    expect(idp.status, JSON.stringify(idp.body)).toBe(200);
    idpId = idp.body.idpId;
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await jwt?.close();
    await s?.close();
  });

  async function client(server = s) {
    const config = await oc.discovery(new URL(server.issuer), clientId, undefined, oc.ClientSecretBasic(clientSecret), { execute: [oc.allowInsecureRequests] });
    const verifier = oc.randomPKCECodeVerifier();
    const state = oc.randomState();
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: SCOPES, state, code_challenge: await oc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    return { url, exchange: (callback: URL) => oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }) };
  }

  /** Authorization request → login page → the provider's button; returns where the browser ended up. */
  async function throughProvider(browser: Browser, url: URL, provider = 'Legacy shop', server = s) {
    const login = await browser.follow(url.href, REDIRECT);
    const html = await login.res.text();
    const button = new RegExp(`<form method="post" action="([^"]+/idp)"[^>]*>.*?<button type="submit" name="idpId" value="([^"]+)" class="provider">${provider}</button>`, 's').exec(html);
    expect(button, html.slice(0, 600)).toBeTruthy();
    const end = await browser.follow(server.issuer + button![1], REDIRECT, { form: { idpId: button![2] } });
    return end.location ? { callback: end.location } : { page: { status: end.res.status, html: await end.res.text(), url: end.res.url } };
  }

  it('auto-registers on first sign-in, reuses the link afterwards, and tokens carry the granted roles', async () => {
    proxy.setToken(await jwt.sign({ sub: 'legacy-42', email: 'ada@legacy.example', email_verified: true, given_name: 'Ada', family_name: 'Lovelace', preferred_username: 'ada', locale: 'de-CH' }));
    const first = await client();
    const signedIn = await throughProvider(new Browser(), first.url);
    expect(signedIn.callback, signedIn.page?.html.slice(0, 500)).toBeTruthy();
    const tokens = await first.exchange(signedIn.callback!);
    const userId = tokens.claims()!.sub;

    const user = await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg());
    expect(user.status).toBe(200);
    expect(user.body.user).toMatchObject({
      userName: 'ada',
      state: 'USER_STATE_ACTIVE',
      human: { profile: { firstName: 'Ada', lastName: 'Lovelace', preferredLanguage: 'de' }, email: { email: 'ada@legacy.example', isEmailVerified: true } },
    });
    const links = await s.api('POST', `/management/v1/users/${userId}/idps/_search`, {}, undefined, inOrg());
    expect(links.status).toBe(200);
    expect(links.body.result).toEqual([{ userId, idpId, idpName: 'Legacy shop', providedUserId: 'legacy-42', providedUserName: 'ada', idpType: 'IDP_TYPE_JWT' }]);

    // An administrator grants a role; the next sign-in (a new browser, no session) carries it.
    expect((await s.api('POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['buyer'] }, undefined, inOrg())).status).toBe(200);
    const second = await client();
    const again = await throughProvider(new Browser(), second.url);
    const tokens2 = await second.exchange(again.callback!);
    expect(tokens2.claims()!.sub).toBe(userId);
    expect(decodeJwt(tokens2.access_token)['urn:zitadel:iam:org:project:roles']).toEqual({ buyer: { [orgId]: expect.any(String) } });
    const users = await s.api('POST', '/management/v1/users/_search', {}, undefined, inOrg());
    expect(users.body.result.filter((u: any) => u.userName === 'ada')).toHaveLength(1);

    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateTypes: ['user'], aggregateId: userId });
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    const types = events.body.events.map((e: any) => e.type.type);
    expect(types).toEqual(expect.arrayContaining(['user.human.added', 'user.human.externalidp.added', 'user.human.externallogin.check.succeeded']));
    expect(types.filter((t: string) => t === 'user.human.externallogin.check.succeeded')).toHaveLength(2);
  });

  it('refuses a token signed by another key, from another issuer, expired, without an expiry, too old or missing, with a clear page', async () => {
    const cases: [string, () => Promise<string | undefined>, string, number][] = [
      // Issue 47: a token without exp (and without iat) would sign in forever (ZITADEL's CVE-2026-56665).
      ['neither exp nor iat', () => jwt.sign({ sub: 'x' }, { expiresIn: null, iat: null }), 'The token has no expiry ("exp")', 401],
      ['iat but no exp', () => jwt.sign({ sub: 'x' }, { expiresIn: null }), 'The token has no expiry ("exp")', 401],
      ['foreign key', () => jwt.sign({ sub: 'x' }, { foreignKey: true }), "signature does not match any of the provider's keys", 401],
      ['other issuer', () => jwt.sign({ sub: 'x' }, { issuer: 'https://elsewhere.example' }), 'issued by "https://elsewhere.example"', 401],
      ['expired', () => jwt.sign({ sub: 'x' }, { expiresIn: Math.floor(Date.now() / 1000) - 60, iat: Math.floor(Date.now() / 1000) - 120 }), 'The token has expired', 401],
      ['issued 2 h ago', () => jwt.sign({ sub: 'x' }, { iat: Math.floor(Date.now() / 1000) - 7200, expiresIn: Math.floor(Date.now() / 1000) + 60 }), 'more than an hour ago', 401],
      ['no header', async () => undefined, `no token in the "${HEADER}" header`, 401],
      ['not a JWT', async () => 'garbage', 'not a JWT', 401],
    ];
    for (const [name, token, message, status] of cases) {
      proxy.setToken(await token());
      const { url } = await client();
      const result = await throughProvider(new Browser(), url);
      expect(result.page?.status, name).toBe(status);
      expect(result.page?.html, name).toContain(message.replace(/"/g, '&#34;').replace(/'/g, '&#39;'));
      expect(result.page?.html, name).toContain('Back to the sign-in page');
    }
  });

  it('without autoRegister an existing password user links the identity, then signs in through the provider', async () => {
    expect((await s.api('PUT', `/management/v1/idps/${idpId}`, { name: 'Legacy shop', stylingType: 'STYLING_TYPE_UNSPECIFIED', autoRegister: false }, undefined, inOrg())).status).toBe(200);
    const patId = (
      await s.api(
        'POST',
        '/management/v1/users/human/_import',
        {
          userName: 'pat',
          profile: { firstName: 'Pat', lastName: 'Smith' },
          email: { email: 'pat@example.com', isEmailVerified: true },
          password: 'Passw0rd-Pat!',
        },
        undefined,
        inOrg(),
      )
    ).body.userId;
    proxy.setToken(await jwt.sign({ sub: 'legacy-pat', preferred_username: 'pat.legacy', email: 'pat@legacy.example' }));

    const first = await client();
    const browser = new Browser();
    const shown = await throughProvider(browser, first.url);
    expect(shown.page?.status).toBe(200);
    expect(shown.page?.html).toContain('is not linked to an account here yet');
    const action = /<form method="post" action="([^"]+\/idp\/link)">\s*<input type="hidden" name="state" value="([^"]+)">/.exec(shown.page!.html);
    expect(action).toBeTruthy();
    const state = action![2].replace(/&#61;/g, '=');
    const wrong = await browser.follow(s.issuer + action![1], REDIRECT, { form: { state, loginName: 'pat', password: 'nope' } });
    expect(wrong.res.status).toBe(401);
    // The same link request in another browser is refused (its cookies do not match).
    expect((await new Browser().request(s.issuer + action![1], { form: { state, loginName: 'pat', password: 'Passw0rd-Pat!' } })).status).toBe(400);
    const linked = await browser.follow(s.issuer + action![1], REDIRECT, { form: { state, loginName: 'pat', password: 'Passw0rd-Pat!' } });
    expect(linked.location).toBeTruthy();
    expect((await first.exchange(linked.location!)).claims()!.sub).toBe(patId);

    const next = await client();
    const direct = await throughProvider(new Browser(), next.url);
    expect(direct.callback, direct.page?.html.slice(0, 400)).toBeTruthy();
    expect((await next.exchange(direct.callback!)).claims()!.sub).toBe(patId);

    // Removing the link makes the identity unknown again.
    const removed = await s.api('DELETE', `/management/v1/users/${patId}/idps/${idpId}/legacy-pat`, undefined, undefined, inOrg());
    expect(removed.status).toBe(200);
    expect((await s.api('DELETE', `/management/v1/users/${patId}/idps/${idpId}/legacy-pat`, undefined, undefined, inOrg())).status).toBe(404);
    const after = await throughProvider(new Browser(), (await client()).url);
    expect(after.page?.html).toContain('is not linked to an account here yet');
  });

  it('a callback URL opened in another browser is refused; a deactivated provider is not offered and stops sign-ins', async () => {
    proxy.setToken(await jwt.sign({ sub: 'legacy-42', email: 'ada@legacy.example' }));
    // Stop right after the proxy's answer: the callback URL as the first browser would open it.
    const browser = new Browser();
    const { url } = await client();
    const html = await (await browser.follow(url.href, REDIRECT)).res.text();
    const action = /action="([^"]+\/idp)"/.exec(html)![1];
    const toProxy = await browser.request(s.issuer + action, { form: { idpId } });
    const fromProxy = await browser.request(toProxy.headers.get('location')!);
    const callbackUrl = fromProxy.headers.get('location')!;
    expect(callbackUrl).toContain('/idp/callback?state=');
    const stranger = await new Browser().request(callbackUrl);
    expect(stranger.status).toBe(400);

    expect((await s.api('POST', `/management/v1/idps/${idpId}/_deactivate`, {}, undefined, inOrg())).status).toBe(200);
    // The sealed request the proxy would forward now meets a deactivated provider.
    const replay = await fetch(toProxy.headers.get('location')!);
    expect(replay.status).toBe(403);
    expect(await replay.text()).toContain('is deactivated');
    const page = await (await new Browser().follow((await client()).url.href, REDIRECT)).res.text();
    expect(page).not.toContain('Legacy shop');
    expect((await s.api('POST', `/management/v1/idps/${idpId}/_reactivate`, {}, undefined, inOrg())).status).toBe(200);
  });

  it('an unreachable keys endpoint is a clear page, not a hang', async () => {
    const broken = await s.api(
      'POST',
      '/management/v1/idps/jwt',
      {
        name: 'Broken keys',
        jwtEndpoint: proxy.jwtEndpoint,
        issuer: jwt.issuer,
        keysEndpoint: 'http://127.0.0.1:1/keys',
        headerName: HEADER,
        autoRegister: true,
      },
      undefined,
      inOrg(),
    );
    expect(broken.status).toBe(200);
    proxy.setToken(await jwt.sign({ sub: 'someone', email: 'someone@example.com' }));
    const result = await throughProvider(new Browser(), (await client()).url, 'Broken keys');
    expect(result.page?.status).toBe(502);
    expect(result.page?.html).toContain('could not be read');
    expect((await s.api('DELETE', `/management/v1/idps/${broken.body.idpId}`, undefined, undefined, inOrg())).status).toBe(200);
  });

  it("an audience, when set, must be in the token's aud; an empty one checks none (answered and documented); absent on update keeps it", async () => {
    const audience = 'https://identity.example.com';
    const added = await s.api(
      'POST',
      '/management/v1/idps/jwt',
      {
        name: 'Audience checked',
        jwtEndpoint: proxy.jwtEndpoint,
        issuer: jwt.issuer,
        keysEndpoint: jwt.keysEndpoint,
        headerName: HEADER,
        autoRegister: true,
        audience,
      },
      undefined,
      inOrg(),
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const checkedId = added.body.idpId as string;
    const configOf = async (id: string) => (await s.api('GET', `/management/v1/idps/${id}`, undefined, undefined, inOrg())).body.idp.jwtConfig;
    expect(await configOf(checkedId)).toEqual({ jwtEndpoint: proxy.jwtEndpoint, issuer: jwt.issuer, keysEndpoint: jwt.keysEndpoint, headerName: HEADER, audience });
    // A provider added without one answers the empty audience, which checks nothing.
    expect((await configOf(idpId)).audience).toBe('');
    const listed = await s.api('POST', '/management/v1/idps/_search', {}, undefined, inOrg());
    expect(listed.body.result.find((i: any) => i.id === checkedId).jwtConfig.audience).toBe(audience);

    const signIn = async (token: string) => {
      proxy.setToken(token);
      return throughProvider(new Browser(), (await client()).url, 'Audience checked');
    };
    const refusedCases: [string, string][] = [
      ['another application of the issuer', await jwt.sign({ sub: 'aud-1' }, { audience: 'https://other-app.example.com' })],
      ['no aud at all', await jwt.sign({ sub: 'aud-1' })],
      ['a list without it', await jwt.sign({ sub: 'aud-1' }, { audience: ['https://other-app.example.com', 'https://identity.example'] })],
    ];
    for (const [name, token] of refusedCases) {
      const refused = await signIn(token);
      expect(refused.page?.status, name).toBe(401);
      expect(refused.page?.html, name).toContain(`its audience (&#34;aud&#34;) does not contain &#34;${audience}&#34;`);
    }
    for (const aud of [audience, ['https://other-app.example.com', audience]]) {
      const accepted = await signIn(await jwt.sign({ sub: 'aud-1', email: 'aud@legacy.example', preferred_username: 'aud.one' }, { audience: aud }));
      expect(accepted.callback, `${JSON.stringify(aud)}: ${accepted.page?.html.slice(0, 300)}`).toBeTruthy();
    }

    // An update that does not name the audience (as every gRPC or Connect update) keeps it; "" removes it.
    const base = { jwtEndpoint: proxy.jwtEndpoint, issuer: jwt.issuer, keysEndpoint: jwt.keysEndpoint, headerName: 'x-other-header' };
    expect((await s.api('PUT', `/management/v1/idps/${checkedId}/jwt_config`, base, undefined, inOrg())).status).toBe(200);
    expect((await configOf(checkedId)).audience).toBe(audience);
    expect((await s.api('PUT', `/management/v1/idps/${checkedId}/jwt_config`, { ...base, headerName: HEADER }, undefined, inOrg())).status).toBe(200);
    const foreign = await jwt.sign({ sub: 'aud-1' }, { audience: 'https://other-app.example.com' });
    expect((await signIn(foreign)).page?.status).toBe(401);
    expect((await s.api('PUT', `/management/v1/idps/${checkedId}/jwt_config`, { ...base, headerName: HEADER, audience: '' }, undefined, inOrg())).status).toBe(200);
    expect((await configOf(checkedId)).audience).toBe('');
    expect((await signIn(foreign)).callback).toBeTruthy();
    expect((await s.api('PUT', `/management/v1/idps/${checkedId}/jwt_config`, { ...base, headerName: HEADER, audience }, undefined, inOrg())).status).toBe(200);
    // Too long an audience is refused as the other fields are.
    const long = await s.api('PUT', `/management/v1/idps/${checkedId}/jwt_config`, { ...base, audience: 'a'.repeat(201) }, undefined, inOrg());
    expect(long.status).toBe(400);

    // The instance's JWT providers take it too.
    const instanceIdp = await s.api('POST', '/admin/v1/idps/jwt', {
      name: `Instance audience ${dialect}`,
      jwtEndpoint: proxy.jwtEndpoint,
      issuer: jwt.issuer,
      keysEndpoint: jwt.keysEndpoint,
      headerName: HEADER,
      audience,
    });
    expect(instanceIdp.status, JSON.stringify(instanceIdp.body)).toBe(200);
    expect((await s.api('GET', `/admin/v1/idps/${instanceIdp.body.idpId}`)).body.idp.jwtConfig.audience).toBe(audience);
    expect((await s.api('DELETE', `/admin/v1/idps/${instanceIdp.body.idpId}`)).status).toBe(200);
  });

  it('export and import carry the links: the same identity signs in on a second instance as the imported user', async () => {
    const exported = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, timeout: '1m', response_output: true });
    expect(exported.status).toBe(200);
    const org = exported.body.orgs[0];
    expect(org.userLinks).toEqual(expect.arrayContaining([expect.objectContaining({ idpId, providedUserId: 'legacy-42', providedUserName: 'ada', idpName: 'Legacy shop', idpType: 'IDP_TYPE_JWT' })]));
    const ada = org.userLinks.find((l: any) => l.providedUserId === 'legacy-42').userId;

    const target = await startOidcServer(dialect);
    const targetProxy = await startLegacyProxy(target.issuer, HEADER);
    try {
      // The provider's proxy now forwards to the new instance.
      const legacy = org.jwtIdps.find((i: any) => i.idpId === idpId);
      legacy.idp.jwtEndpoint = targetProxy.jwtEndpoint;
      // The audience travels with its provider (this service's field; a provider without one has none in the document).
      expect(legacy.idp.audience).toBeUndefined();
      const checked = org.jwtIdps.find((i: any) => i.idp.name === 'Audience checked');
      expect(checked.idp.audience).toBe('https://identity.example.com');
      const res = await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: exported.body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.errors ?? []).toEqual([]);
      expect(res.body.success.orgs[0].userLinks).toEqual(expect.arrayContaining([{ userId: ada, externalUserId: 'legacy-42', displayName: 'ada', idpId }]));
      expect((await target.api('GET', `/management/v1/idps/${checked.idpId}`, undefined, undefined, inOrg())).body.idp.jwtConfig.audience).toBe('https://identity.example.com');
      targetProxy.setToken(await jwt.sign({ sub: 'legacy-42', email: 'ada@legacy.example' }));
      const { url, exchange } = await client(target);
      const result = await throughProvider(new Browser(), url, 'Legacy shop', target);
      expect(result.callback, result.page?.html.slice(0, 500)).toBeTruthy();
      expect((await exchange(result.callback!)).claims()!.sub).toBe(ada);
      // Importing again reports the links as existing.
      const again = await target.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: exported.body });
      expect(again.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'user_link' })]));
    } finally {
      await targetProxy.close();
      await target.close();
    }
  });
  it('removing a user removes its links; removing the provider removes the rest, each with an event on its user', async () => {
    const links = async () => (await s.t.store.read.idpLinks.listByIdp(idpId)).map((l) => l.externalUserId).sort();
    expect(await links()).toEqual(['legacy-42']);
    proxy.setToken(await jwt.sign({ sub: 'short-lived', email: 'short@legacy.example', preferred_username: 'short' }));
    expect((await s.api('PUT', `/management/v1/idps/${idpId}`, { name: 'Legacy shop', stylingType: 'STYLING_TYPE_UNSPECIFIED', autoRegister: true }, undefined, inOrg())).status).toBe(200);
    const { url, exchange } = await client();
    const signedIn = await throughProvider(new Browser(), url);
    const shortLived = (await exchange(signedIn.callback!)).claims()!.sub;
    expect(await links()).toEqual(['legacy-42', 'short-lived']);
    expect((await s.api('DELETE', `/management/v1/users/${shortLived}`, undefined, undefined, inOrg())).status).toBe(200);
    expect(await links()).toEqual(['legacy-42']);

    const ada = (await s.t.store.read.idpLinks.get(idpId, 'legacy-42'))!.userId;
    expect((await s.api('DELETE', `/management/v1/idps/${idpId}`, undefined, undefined, inOrg())).status).toBe(200);
    expect(await links()).toEqual([]);
    expect((await s.api('POST', `/management/v1/users/${ada}/idps/_search`, {}, undefined, inOrg())).body.result).toEqual([]);
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: ada, eventTypes: ['user.human.externalidp.cascade.removed'] });
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0].payload).toEqual({ idpConfigId: idpId, userId: 'legacy-42' });
  });
});
