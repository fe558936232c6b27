/**
 * Issue 13 (login texts): the organisation's custom login texts (imported with it, ZITADEL's
 * screens) are the strings its applications' login page shows, in the language the authorization
 * request asks for (`ui_locales`), field by field over the built-in ones.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { authorizeUrl, Browser, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';

describeEachStore('login texts on the login page', (dialect) => {
  let s: OidcTestServer;
  let clientId: string;
  const stamp = Date.now() % 1_000_000_000;
  const orgId = `${stamp}8`;
  const inOrg = { 'x-service-orgid': orgId };

  const loginHtml = async (uiLocales?: string) => {
    const url = new URL(authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT, ...(uiLocales ? { ui_locales: uiLocales } : {}) }));
    const browser = new Browser();
    const loginUrl = new URL((await browser.request(url.href)).headers.get('location')!, s.issuer).href;
    return (await browser.request(loginUrl)).text();
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          {
            orgId,
            org: { name: `Worded ${stamp}` },
            loginTexts: [
              { language: 'en', loginText: { title: 'Welcome to Acme', loginNameLabel: 'Acme ID' }, passwordText: { passwordLabel: 'Secret', nextButtonText: 'Go' } },
              { language: 'de', loginText: { title: 'Willkommen bei Acme' }, passwordText: { passwordLabel: 'Kennwort' } },
            ],
          },
        ],
      },
    });
    expect(imported.body.errors ?? []).toEqual([]);
    clientId = await publicClientInNewProject(s, { name: 'worded' }, 'Worded app', REDIRECT, inOrg);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('shows the organisation\u2019s strings, in the requested language, the built-in ones where none is set', async () => {
    const en = await loginHtml();
    expect(en).toContain('<h1>Welcome to Acme</h1>');
    expect(en).toContain('<label for="loginName">Acme ID</label>');
    expect(en).toContain('<label for="password">Secret</label>');
    expect(en).toContain('<button type="submit">Go</button>');
    expect(en).toContain('Forgot your password?');

    const de = await loginHtml('de-CH en');
    expect(de).toContain('<h1>Willkommen bei Acme</h1>');
    expect(de).toContain('<label for="password">Kennwort</label>');
    expect(de).toContain('<label for="loginName">Login name</label>');
    // A language without texts: the built-in English strings.
    expect(await loginHtml('fr')).toContain('<h1>Sign in</h1>');
  });

  it("sets, shows and resets the texts through the API; the instance's apply where the organisation has none", async () => {
    const org = '/management/v1/text/login/en';
    expect((await s.api('GET', org, undefined, undefined, inOrg)).body.customText).toMatchObject({ isDefault: false, loginText: { title: 'Welcome to Acme' } });
    expect((await s.api('PUT', org, { loginText: { title: 'Acme, again' }, passwordText: { nextButtonText: 'Onwards' } }, undefined, inOrg)).status).toBe(200);
    // A full replacement: the login name label set by the import is gone.
    const html = await loginHtml();
    expect(html).toContain('<h1>Acme, again</h1>');
    expect(html).toContain('<button type="submit">Onwards</button>');
    expect(html).toContain('<label for="loginName">Login name</label>');
    expect((await s.api('PUT', org, { loginText: { title: 'x'.repeat(501) } }, undefined, inOrg)).status).toBe(400);
    expect((await s.api('PUT', org, { noSuchScreen: { title: 'x' } }, undefined, inOrg)).status).toBe(400);
    // A screen's field names are 1–200 characters (the spec's `propertyNames`), checked before anything is stored.
    for (const field of ['', 'f'.repeat(201)]) {
      const refused = await s.api('PUT', org, { loginText: { [field]: 'x' } }, undefined, inOrg);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/^invalid loginText/);
    }
    expect((await s.api('GET', org, undefined, undefined, inOrg)).body.customText.loginText).toMatchObject({ title: 'Acme, again' });

    // The instance's texts: under the organisation's, field by field.
    expect((await s.api('PUT', '/admin/v1/text/login/en', { loginText: { loginNameLabel: 'Company account' } })).status).toBe(200);
    expect(await loginHtml()).toContain('<label for="loginName">Company account</label>');
    expect((await s.api('GET', '/management/v1/text/default/login/en', undefined, undefined, inOrg)).body.customText.loginText).toMatchObject({ loginNameLabel: 'Company account', title: 'Sign in' });
    expect((await s.api('GET', '/admin/v1/text/default/login/en')).body.customText.loginText).toMatchObject({ loginNameLabel: 'Login name' });

    expect((await s.api('DELETE', org, undefined, undefined, inOrg)).status).toBe(200);
    expect((await s.api('DELETE', org, undefined, undefined, inOrg)).status).toBe(404);
    expect((await s.api('GET', org, undefined, undefined, inOrg)).body.customText).toMatchObject({ isDefault: true, loginText: { loginNameLabel: 'Company account' } });
    expect(await loginHtml()).toContain('<h1>Sign in</h1>');
    expect((await s.api('DELETE', '/admin/v1/text/login/en')).status).toBe(200);
  });
});
