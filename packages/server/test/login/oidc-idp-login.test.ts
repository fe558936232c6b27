/**
 * Issue 13, done-when 3: signing in through an OIDC identity provider whose upstream is a second
 * instance of this service, on loopback — the authorization-code flow with PKCE, state and nonce
 * (openid-client inside the service), a real OAuth client at the application (openid-client), and
 * the provider's configuration carried through export and import into a third instance.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { Browser, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const SCOPES = 'openid profile email';
const CALLBACK_PATH = '/ui/login/login/externalidp/callback';
const UPSTREAM_PASSWORD = 'Upstream-Passw0rd!';

describeEachStore('sign-in through an OIDC identity provider (a second instance of this service)', (dialect) => {
  let upstream: OidcTestServer;
  let service: OidcTestServer;
  let copy: OidcTestServer;
  let upstreamClient: { orgId: string; clientId: string; clientSecret: string };
  const apps = new Map<OidcTestServer, { orgId: string; clientId: string; clientSecret: string }>();
  let idpId: string;
  const inOrg = (s: OidcTestServer) => ({ 'x-service-orgid': apps.get(s)!.orgId });

  /** An organisation with a project and a web application that signs people in at `REDIRECT`. */
  async function application(s: OidcTestServer, name: string, redirectUris = [REDIRECT]) {
    const orgId = (await s.api('POST', '/management/v1/orgs', { name: `${name}-${Date.now()}` })).body.id as string;
    const headers = { 'x-service-orgid': orgId };
    const projectId = (await s.api('POST', '/management/v1/projects', { name }, undefined, headers)).body.id;
    const app = await s.api(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      {
        name: 'web',
        redirectUris,
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        devMode: true,
      },
      undefined,
      headers,
    );
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    return { orgId, clientId: app.body.clientId as string, clientSecret: app.body.clientSecret as string };
  }

  beforeAll(async () => {
    [upstream, service, copy] = await Promise.all([startOidcServer(dialect), startOidcServer(dialect), startOidcServer(dialect)]);
    // The upstream knows this service (and the copy an import makes) as a confidential client.
    upstreamClient = await application(upstream, 'partner', [service.issuer + CALLBACK_PATH, copy.issuer + CALLBACK_PATH]);
    apps.set(upstream, upstreamClient);
    await importHuman(upstream, 'grace', { password: UPSTREAM_PASSWORD });
    apps.set(service, await application(service, 'shop'));
    const idp = await service.api(
      'POST',
      '/management/v1/idps/oidc',
      {
        name: 'Partner',
        clientId: upstreamClient.clientId,
        clientSecret: upstreamClient.clientSecret,
        issuer: upstream.issuer,
        scopes: ['openid', 'profile', 'email'],
        usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL',
        displayNameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME',
        autoRegister: true,
      },
      undefined,
      inOrg(service),
    );
    expect(idp.status, JSON.stringify(idp.body)).toBe(200);
    idpId = idp.body.idpId;
  }, 90_000);
  afterAll(async () => {
    await Promise.all([upstream?.close(), service?.close(), copy?.close()]);
  });

  /** The application's authorization request (a real OAuth client) and its code exchange. */
  async function client(s: OidcTestServer) {
    const { clientId, clientSecret } = apps.get(s)!;
    const config = await oc.discovery(new URL(s.issuer), clientId, undefined, oc.ClientSecretBasic(clientSecret), { execute: [oc.allowInsecureRequests] });
    const verifier = oc.randomPKCECodeVerifier();
    const state = oc.randomState();
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: SCOPES, state, code_challenge: await oc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    return { url, exchange: (callback: URL) => oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }) };
  }

  /** Login page → the provider's button: where the browser is sent (the upstream), or the page shown. */
  async function pressProvider(browser: Browser, s: OidcTestServer, url: URL, provider = 'Partner') {
    const login = await browser.follow(url.href, REDIRECT);
    const html = await login.res.text();
    const button = new RegExp(`<form method="post" action="([^"]+/idp)"[^>]*>.*?<button type="submit" name="idpId" value="([^"]+)" class="provider">${provider}</button>`, 's').exec(html);
    expect(button, html.slice(0, 600)).toBeTruthy();
    return browser.request(s.issuer + button![1], { form: { idpId: button![2] } });
  }

  /** The whole round trip: the upstream's login form with grace's password, back to the application. */
  async function signInThroughUpstream(s: OidcTestServer, browser = new Browser(), password = UPSTREAM_PASSWORD) {
    const app = await client(s);
    const pressed = await pressProvider(browser, s, app.url);
    expect(pressed.status, await pressed.clone().text()).toBe(303);
    const toUpstream = new URL(pressed.headers.get('location')!);
    expect(toUpstream.origin).toBe(upstream.issuer);
    const loginPage = await browser.follow(toUpstream.href, REDIRECT);
    const form = /<form method="post" action="([^"]+)"/.exec(await loginPage.res.text());
    expect(form, 'the upstream shows its login form').toBeTruthy();
    const submitted = await browser.follow(upstream.issuer + form![1].replace(/&amp;/g, '&'), REDIRECT, { form: { loginName: 'grace', password } });
    // The upstream (this service) offers grace an authenticator app at her first sign-in there: skip it.
    const skip = submitted.location ? undefined : /<form method="post" action="([^"]+\/otp\/setup\/skip)"/.exec(await submitted.res.clone().text())?.[1];
    const end = skip ? await browser.follow(upstream.issuer + skip, REDIRECT, { method: 'POST', form: {} }) : submitted;
    return { app, end, browser };
  }

  it('signs in at the upstream, registers the user once with the mapped names, and reuses the link', async () => {
    const { app, end } = await signInThroughUpstream(service);
    expect(end.location, end.location ? '' : (await end.res.text()).slice(0, 800)).toBeTruthy();
    const tokens = await app.exchange(end.location!);
    const userId = tokens.claims()!.sub;

    const user = (await service.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg(service))).body.user;
    // usernameMapping EMAIL: the upstream's email claim; displayNameMapping PREFERRED_USERNAME.
    expect(user.userName).toBe('grace@example.com');
    expect(user.human.profile.displayName).toBe('grace@default.localhost');
    expect(user.human.email).toMatchObject({ email: 'grace@example.com', isEmailVerified: true });
    const links = (await service.api('POST', `/management/v1/users/${userId}/idps/_search`, {}, undefined, inOrg(service))).body.result;
    expect(links).toEqual([expect.objectContaining({ idpId, idpName: 'Partner', providedUserName: 'grace@default.localhost', idpType: 'IDP_TYPE_OIDC' })]);

    // A second sign-in in another browser signs in the same user, without a second registration.
    const again = await signInThroughUpstream(service);
    expect((await again.app.exchange(again.end.location!)).claims()!.sub).toBe(userId);
    const users = (await service.api('POST', '/management/v1/users/_search', {}, undefined, inOrg(service))).body.result;
    expect(users.filter((u: { userName: string }) => u.userName === 'grace@example.com')).toHaveLength(1);
  });

  it('reads back the settings without the secret, keeps the secret sealed, and keeps it out of events', async () => {
    const idp = (await service.api('GET', `/management/v1/idps/${idpId}`, undefined, undefined, inOrg(service))).body.idp;
    expect(idp).toMatchObject({
      name: 'Partner',
      owner: 'IDP_OWNER_TYPE_ORG',
      state: 'IDP_STATE_ACTIVE',
      autoRegister: true,
      oidcConfig: {
        clientId: upstreamClient.clientId,
        issuer: upstream.issuer,
        scopes: ['openid', 'profile', 'email'],
        usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL',
        displayNameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME',
      },
    });
    expect(idp.jwtConfig).toBeUndefined();
    expect(JSON.stringify(idp)).not.toContain(upstreamClient.clientSecret);
    const row = await service.t.store.read.idps.get(idpId);
    expect(row!.oidcClientSecretSealed).toBeTruthy();
    expect(row!.oidcClientSecretSealed).not.toContain(upstreamClient.clientSecret);
    const events = await service.api('POST', '/admin/v1/events/_search', { limit: 1000, asc: true });
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.body)).toContain('idp.config.added');
    expect(JSON.stringify(events.body)).not.toContain(upstreamClient.clientSecret);
  });

  it('answers clear pages when the upstream cannot be used: unreachable, wrong secret, refused', async () => {
    const headers = inOrg(service);
    // Unreachable: a port nobody listens on.
    const dead = await service.api('POST', '/management/v1/idps/oidc', { name: 'Gone', clientId: 'x', clientSecret: 'y', issuer: 'http://127.0.0.1:1' }, undefined, headers);
    expect(dead.status).toBe(200);
    const pressed = await pressProvider(new Browser(), service, (await client(service)).url, 'Gone');
    expect(pressed.status).toBe(502);
    expect(await pressed.text()).toMatch(/could not be reached/);
    expect((await service.api('DELETE', `/management/v1/idps/${dead.body.idpId}`, undefined, undefined, headers)).status).toBe(200);

    // A wrong client secret: the upstream refuses the code exchange after the person signed in.
    const wrong = await service.api(
      'POST',
      '/management/v1/idps/oidc',
      {
        name: 'Wrong secret',
        clientId: upstreamClient.clientId,
        clientSecret: 'not-the-secret',
        issuer: upstream.issuer,
        scopes: ['email'],
      },
      undefined,
      headers,
    );
    expect(wrong.status).toBe(200);
    const browser = new Browser();
    const app = await client(service);
    const toUpstream = new URL((await pressProvider(browser, service, app.url, 'Wrong secret')).headers.get('location')!);
    expect(toUpstream.searchParams.get('scope')).toBe('openid email');
    const loginPage = await browser.follow(toUpstream.href, REDIRECT);
    const form = /<form method="post" action="([^"]+)"/.exec(await loginPage.res.text());
    const end = await browser.follow(upstream.issuer + form![1].replace(/&amp;/g, '&'), REDIRECT, { form: { loginName: 'grace', password: UPSTREAM_PASSWORD } });
    expect(end.location).toBeUndefined();
    const refusal = await end.res.text();
    expect(end.res.status, refusal).toBe(401);
    expect(refusal).toMatch(/refused the sign-in \(invalid_client/);

    // The upstream answers with an error (e.g. the person declined): the page says so.
    const declined = new URL(service.issuer + CALLBACK_PATH);
    declined.searchParams.set('error', 'access_denied');
    declined.searchParams.set('error_description', 'the person declined');
    declined.searchParams.set('state', toUpstream.searchParams.get('state')!);
    const page = await browser.request(declined.href);
    expect(page.status).toBe(403);
    expect(await page.text()).toMatch(/did not sign you in \(access_denied: the person declined\)/);

    // A forged or altered state is refused before anything is called.
    const forged = await browser.request(`${service.issuer}${CALLBACK_PATH}?code=abc&state=${encodeURIComponent(`${toUpstream.searchParams.get('state')}x`)}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/invalid or has expired/);
    expect((await service.api('DELETE', `/management/v1/idps/${wrong.body.idpId}`, undefined, undefined, headers)).status).toBe(200);
  });

  it('changes the settings with UpdateOrgIDPOIDCConfig, and each kind only with its own operation', async () => {
    const headers = inOrg(service);
    const other = await service.api('POST', '/management/v1/idps/oidc', { name: 'Settings', clientId: 'a', clientSecret: 'b', issuer: 'https://idp.example.com' }, undefined, headers);
    const id = other.body.idpId;
    const update = (body: unknown) => service.api('PUT', `/management/v1/idps/${id}/oidc_config`, body, undefined, headers);
    const changed = await update({ clientId: 'a2', issuer: 'https://idp.example.com', scopes: ['profile'], usernameMapping: 2 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const sealedBefore = (await service.t.store.read.idps.get(id))!.oidcClientSecretSealed;
    expect((await update({ clientId: 'a2', issuer: 'https://idp.example.com', scopes: ['profile'], usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL' })).body).toMatchObject({
      code: 9,
      details: [expect.objectContaining({ id: 'Org-2k9fs' })],
    });
    // The secret kept without `clientSecret`, replaced with one.
    expect((await service.t.store.read.idps.get(id))!.oidcClientSecretSealed).toBe(sealedBefore);
    expect((await update({ clientId: 'a2', clientSecret: 'c', issuer: 'https://idp.example.com', scopes: ['profile'], usernameMapping: 2 })).status).toBe(200);
    expect((await service.t.store.read.idps.get(id))!.oidcClientSecretSealed).not.toBe(sealedBefore);
    expect((await service.api('GET', `/management/v1/idps/${id}`, undefined, undefined, headers)).body.idp.oidcConfig).toEqual({
      clientId: 'a2',
      issuer: 'https://idp.example.com',
      scopes: ['profile'],
      displayNameMapping: 'OIDC_MAPPING_FIELD_UNSPECIFIED',
      usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL',
    });

    // Bad input: 400 and nothing written.
    for (const body of [
      { clientId: 'a3', issuer: 'ftp://idp.example.com' },
      { clientId: '', issuer: 'https://idp.example.com' },
      { clientId: 'a3', issuer: 'https://idp.example.com', scopes: ['has space'] },
      { clientId: 'a3', issuer: 'https://idp.example.com', usernameMapping: 7 },
    ])
      expect((await update(body)).status, JSON.stringify(body)).toBe(400);
    expect((await service.t.store.read.idps.get(id))!.oidcConfig!.clientId).toBe('a2');

    // The JWT operation does not apply to an OIDC provider, nor the OIDC one to a JWT provider.
    const jwtUpdate = await service.api(
      'PUT',
      `/management/v1/idps/${id}/jwt_config`,
      { jwtEndpoint: 'https://a.example', issuer: 'i', keysEndpoint: 'https://a.example/k', headerName: 'h' },
      undefined,
      headers,
    );
    expect(jwtUpdate.status).toBe(404);
    expect(jwtUpdate.body.details[0].id).toBe('Org-67J9d');
    const jwt = await service.api(
      'POST',
      '/management/v1/idps/jwt',
      { name: 'A JWT one', jwtEndpoint: 'https://a.example', issuer: 'i', keysEndpoint: 'https://a.example/k', headerName: 'h' },
      undefined,
      headers,
    );
    const oidcOnJwt = await service.api('PUT', `/management/v1/idps/${jwt.body.idpId}/oidc_config`, { clientId: 'a', issuer: 'https://idp.example.com' }, undefined, headers);
    expect(oidcOnJwt.status).toBe(404);
    // Names are shared by both kinds.
    expect((await service.api('POST', '/management/v1/idps/oidc', { name: 'a jwt ONE', clientId: 'a', clientSecret: 'b', issuer: 'https://idp.example.com' }, undefined, headers)).status).toBe(409);
    // The instance's own OIDC provider (admin API).
    const instanceIdp = await service.api('POST', '/admin/v1/idps/oidc', { name: 'Instance partner', clientId: 'a', clientSecret: 'b', issuer: 'https://idp.example.com' });
    expect(instanceIdp.status).toBe(200);
    expect((await service.api('GET', `/admin/v1/idps/${instanceIdp.body.idpId}`)).body.idp).toMatchObject({ owner: 'IDP_OWNER_TYPE_SYSTEM', oidcConfig: { clientId: 'a' } });
    for (const remove of [id, jwt.body.idpId]) expect((await service.api('DELETE', `/management/v1/idps/${remove}`, undefined, undefined, headers)).status).toBe(200);
    expect((await service.api('DELETE', `/admin/v1/idps/${instanceIdp.body.idpId}`)).status).toBe(200);
  });

  it('survives export and import: the copy signs people in through the same upstream', async () => {
    const { orgId } = apps.get(service)!;
    const exportOrg = async (s: OidcTestServer, withPasswords: boolean) => (await s.api('POST', '/admin/v1/export', { orgIds: [orgId], withPasswords, timeout: '1m', responseOutput: true })).body;
    const withSecret = await exportOrg(service, true);
    const exported = withSecret.orgs[0].oidcIdps;
    expect(exported).toEqual([
      {
        idpId,
        idp: {
          name: 'Partner',
          clientId: upstreamClient.clientId,
          clientSecret: upstreamClient.clientSecret,
          issuer: upstream.issuer,
          scopes: ['openid', 'profile', 'email'],
          displayNameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME',
          usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL',
          autoRegister: true,
        },
      },
    ]);
    // Without `withPasswords` the secret stays home.
    expect((await exportOrg(service, false)).orgs[0].oidcIdps[0].idp.clientSecret).toBeUndefined();

    const imported = await copy.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: withSecret });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.errors ?? []).toEqual([]);
    expect(imported.body.success.orgs[0].oidcIpds).toEqual([idpId]);
    expect((await exportOrg(copy, true)).orgs[0].oidcIdps).toEqual(exported);

    // The copy's application (imported, so with new client credentials) signs grace in through the upstream.
    const app = (await copy.api('POST', `/management/v1/projects/_search`, {}, undefined, { 'x-service-orgid': orgId })).body.result[0];
    const appId = (await copy.api('POST', `/management/v1/projects/${app.id}/apps/_search`, {}, undefined, { 'x-service-orgid': orgId })).body.result[0].id;
    const secret = await copy.api('POST', `/management/v1/projects/${app.id}/apps/${appId}/oidc_config/_generate_client_secret`, {}, undefined, { 'x-service-orgid': orgId });
    expect(secret.status, JSON.stringify(secret.body)).toBe(200);
    const clientId = (await copy.api('GET', `/management/v1/projects/${app.id}/apps/${appId}`, undefined, undefined, { 'x-service-orgid': orgId })).body.app.oidcConfig.clientId;
    apps.set(copy, { orgId, clientId, clientSecret: secret.body.clientSecret });
    const { app: copyClient, end } = await signInThroughUpstream(copy);
    expect(end.location, end.location ? '' : (await end.res.text()).slice(0, 800)).toBeTruthy();
    const sub = (await copyClient.exchange(end.location!)).claims()!.sub;
    expect((await copy.api('GET', `/management/v1/users/${sub}`, undefined, undefined, { 'x-service-orgid': orgId })).body.user.userName).toBe('grace@example.com');
  });

  it('imports a provider without its secret, does not offer it until one is set', async () => {
    const orgId = `nosecret${Date.now()}`;
    const doc = {
      orgs: [
        {
          orgId,
          org: { name: `No secret ${Date.now()}` },
          oidcIdps: [{ idpId: `${orgId}-idp`, idp: { name: 'Partner', clientId: upstreamClient.clientId, issuer: upstream.issuer, scopes: ['email'], autoRegister: true } }],
        },
      ],
    };
    const imported = await copy.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: doc });
    expect(imported.body.errors ?? []).toEqual([]);
    const row = await copy.t.store.read.idps.get(`${orgId}-idp`);
    expect(row).toMatchObject({ idpType: 'IDP_TYPE_OIDC', oidcClientSecretSealed: null });
    const { providersFor } = await import('../../src/domain/federation/sign-in.js');
    expect((await providersFor(copy.t.store, orgId, copy.t.instanceId)).map((p) => p.id)).toEqual([]);
    const set = await copy.api(
      'PUT',
      `/management/v1/idps/${orgId}-idp/oidc_config`,
      { clientId: upstreamClient.clientId, clientSecret: upstreamClient.clientSecret, issuer: upstream.issuer, scopes: ['email'] },
      undefined,
      { 'x-service-orgid': orgId },
    );
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await providersFor(copy.t.store, orgId, copy.t.instanceId)).map((p) => p.id)).toEqual([`${orgId}-idp`]);
  });
});
