/**
 * Issue 13 (projects): a project's privateLabelingSetting decides whose colours the sign-in pages
 * wear, as in ZITADEL: unspecified → the instance's; ENFORCE_PROJECT_RESOURCE_OWNER_POLICY → the
 * project's organisation's throughout; ALLOW_LOGIN_USER_RESOURCE_OWNER_POLICY → the project's
 * organisation's until the user is known, then the user's organisation's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { authorizeUrl, Browser, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';

describeEachStore('private labeling at sign-in', (dialect) => {
  let s: OidcTestServer;
  const stamp = Date.now() % 1_000_000_000;
  const [appOrg, userOrg] = [`${stamp}1`, `${stamp}2`];
  const inApp = { 'x-service-orgid': appOrg };

  /** An app of a project with this setting; the colour of its login page and of the step after the password. */
  const colours = async (setting?: string) => {
    const clientId = await publicClientInNewProject(s, { name: `p-${setting ?? 'none'}`, ...(setting ? { privateLabelingSetting: setting } : {}) }, 'app', REDIRECT, inApp);
    const url = new URL(authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT }));
    const browser = new Browser();
    const loginUrl = new URL((await browser.request(url.href)).headers.get('location')!, s.issuer).href;
    const primary = (html: string) => /--primary:(#[0-9a-f]+)/.exec(html)?.[1];
    const login = primary(await (await browser.request(loginUrl)).text());
    // The user must choose a new password: the next page is a step of the sign-in, the user known.
    const step = await browser.request(loginUrl, { form: { loginName: `una@users-${stamp}.localhost`, password: PASSWORD } });
    expect(step.status).toBe(200);
    return { login, step: primary(await step.text()) };
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const label = (primaryColor: string) => ({ primaryColor, backgroundColor: '#ffffff', fontColor: '#000000' });
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          { orgId: appOrg, org: { name: `Apps ${stamp}` }, labelPolicy: label('#aa0000') },
          {
            orgId: userOrg,
            org: { name: `Users ${stamp}` },
            labelPolicy: label('#00aa00'),
            humanUsers: [
              {
                userId: `${userOrg}1`,
                user: { userName: 'una', profile: { firstName: 'U', lastName: 'Na' }, email: { email: 'una@example.com', isEmailVerified: true }, password: PASSWORD, passwordChangeRequired: true },
              },
            ],
          },
        ],
      },
    });
    expect(imported.body.errors ?? []).toEqual([]);
    expect((await s.api('PUT', '/admin/v1/policies/label', { ...label('#0000aa'), themeMode: 'THEME_MODE_LIGHT' })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('unspecified: the instance\u2019s colours', async () => {
    expect(await colours()).toEqual({ login: '#0000aa', step: '#0000aa' });
  });
  it('ENFORCE_PROJECT_RESOURCE_OWNER_POLICY: the project organisation\u2019s throughout', async () => {
    expect(await colours('PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY')).toEqual({ login: '#aa0000', step: '#aa0000' });
  });
  it('ALLOW_LOGIN_USER_RESOURCE_OWNER_POLICY: the project organisation\u2019s, then the user\u2019s', async () => {
    expect(await colours('PRIVATE_LABELING_SETTING_ALLOW_LOGIN_USER_RESOURCE_OWNER_POLICY')).toEqual({ login: '#aa0000', step: '#00aa00' });
  });
});
