/**
 * Issue 13 (projects): ZITADEL's project checks at sign-in. `hasProjectCheck` lets in only users of
 * the project's organisation; `projectRoleCheck` only users with a user grant on the project. Both
 * hold at every authorization, also for a browser that is signed in already.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';

describeEachStore('project checks at sign-in', (dialect) => {
  let s: OidcTestServer;
  const stamp = Date.now() % 1_000_000_000;
  const [orgA, orgB] = [`${stamp}1`, `${stamp}2`];
  const inA = { 'x-service-orgid': orgA };
  const human = (userId: string, userName: string) => ({
    userId,
    user: { userName, profile: { firstName: 'T', lastName: userName }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: PASSWORD },
  });
  /** An app in organisation A whose project has these checks; its authorization URL. */
  const appWith = async (name: string, checks: { hasProjectCheck?: boolean; projectRoleCheck?: boolean }) => {
    const project = (await s.api('POST', '/management/v1/projects', { name, ...checks }, undefined, inA)).body.id as string;
    expect((await s.api('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'reader', displayName: 'Reader' }, undefined, inA)).status).toBe(200);
    const clientId = (
      await s.api(
        'POST',
        `/management/v1/projects/${project}/apps/oidc`,
        {
          name,
          redirectUris: [REDIRECT],
          appType: 'OIDC_APP_TYPE_USER_AGENT',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
          devMode: true,
        },
        undefined,
        inA,
      )
    ).body.clientId as string;
    const url = new URL(authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT }));
    return { project, authorize: url.href };
  };
  const signIn = (authorize: string, loginName: string, browser = new Browser()) => loginThroughForm(browser, authorize, REDIRECT, loginName, PASSWORD);

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          { orgId: orgA, org: { name: `Owner ${stamp}` }, humanUsers: [human(`${orgA}1`, 'anna'), human(`${orgA}2`, 'arne')] },
          { orgId: orgB, org: { name: `Other ${stamp}` }, humanUsers: [human(`${orgB}1`, 'bert')] },
        ],
      },
    });
    expect(imported.body.errors ?? []).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('hasProjectCheck: a user of another organisation is refused with a page saying why; the owner\u2019s users get in', async () => {
    const { authorize } = await appWith(`owned ${stamp}`, { hasProjectCheck: true });
    const refused = await signIn(authorize, `bert@other-${stamp}.localhost`);
    expect(refused.callback).toBeUndefined();
    expect(refused.page?.status).toBe(403);
    expect(refused.page?.html).toContain('Your organisation has no access');
    expect((await signIn(authorize, `anna@owner-${stamp}.localhost`)).callback?.searchParams.get('code')).toBeTruthy();
  });

  it('projectRoleCheck: only a user with a grant on the project, also when the browser is signed in already', async () => {
    const open = await appWith(`open ${stamp}`, {});
    const { project, authorize } = await appWith(`roles ${stamp}`, { projectRoleCheck: true });
    // Signed in to another app first: the session does not get around the check.
    const browser = new Browser();
    expect((await signIn(open.authorize, `arne@owner-${stamp}.localhost`, browser)).callback).toBeTruthy();
    const sso = await browser.follow(authorize, REDIRECT);
    expect(sso.location).toBeUndefined();
    expect(sso.res.status).toBe(403);
    expect(await sso.res.text()).toContain('You have no role in');

    const grant = await s.api('POST', `/management/v1/users/${orgA}2/grants`, { projectId: project, roleKeys: ['reader'] }, undefined, inA);
    expect(grant.status).toBe(200);
    expect((await browser.follow(authorize, REDIRECT)).location?.searchParams.get('code')).toBeTruthy();
    // The grant deactivated: refused again.
    expect((await s.api('POST', `/management/v1/users/${orgA}2/grants/${grant.body.userGrantId}/_deactivate`, {}, undefined, inA)).status).toBe(200);
    expect((await browser.follow(authorize, REDIRECT)).res.status).toBe(403);
  });
});
