/**
 * Issue 12 (lockout policy and the user's state): an organisation's lockout policy locks its users
 * at the login page; unlocking through the API lets them in again; lock and deactivate by hand stop
 * sign-ins and tokens; LOCKOUT_MAX_PASSWORD_ATTEMPTS only seeds the instance's default.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/cb';
const PASSWORD = 'Passw0rd-Lock!';

describeEachStore('lockout policy and user state', (dialect) => {
  let s: OidcTestServer;
  let orgId: string;
  let clientId: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });
  beforeAll(async () => {
    // The environment's value seeds the instance default: 5.
    s = await startOidcServer(dialect, { maxPasswordAttempts: 5 });
    orgId = (await s.api('POST', '/management/v1/orgs', { name: `lock-${Date.now()}` })).body.id;
    clientId = await publicClientInNewProject(s, { name: 'lock' }, 'lock', REDIRECT, inOrg());
  }, 60_000);
  afterAll(() => s?.close());

  const authorize = () => authorizeUrl(s.issuer, { client_id: clientId, redirect_uri: REDIRECT });
  const signIn = (userName: string, password: string) => loginThroughForm(new Browser(), authorize(), REDIRECT, userName, password);
  const importUser = async (userName: string) =>
    (
      await s.api(
        'POST',
        '/management/v1/users/human/_import',
        {
          userName,
          profile: { firstName: 'L', lastName: 'O' },
          email: { email: `${userName}@example.com`, isEmailVerified: true },
          password: PASSWORD,
        },
        undefined,
        inOrg(),
      )
    ).body.userId as string;

  it("the instance default starts from LOCKOUT_MAX_PASSWORD_ATTEMPTS; an organisation's own policy of 3 locks after three failures; unlocking lets the user in", async () => {
    expect((await s.api('GET', '/admin/v1/policies/lockout')).body.policy).toMatchObject({ maxPasswordAttempts: '5', maxOtpAttempts: '0', isDefault: true });
    expect((await s.api('POST', '/management/v1/policies/lockout', { maxPasswordAttempts: 3 }, undefined, inOrg())).status).toBe(200);
    expect((await s.api('GET', '/management/v1/policies/lockout', undefined, undefined, inOrg())).body.policy).toMatchObject({ maxPasswordAttempts: '3', isDefault: false });
    const userId = await importUser('lena');
    for (let i = 0; i < 2; i++) expect((await signIn('lena', 'wrong')).page?.status).toBe(401);
    const third = await signIn('lena', 'wrong');
    expect(third.page?.status).toBe(403);
    expect(third.page?.html).toContain('locked after too many failed attempts');
    expect((await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).body.user.state).toBe('USER_STATE_LOCKED');
    expect((await signIn('lena', PASSWORD)).page?.status).toBe(403);

    expect((await s.api('POST', `/management/v1/users/${userId}/_unlock`, undefined, undefined, inOrg())).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${userId}/_unlock`, undefined, undefined, inOrg())).status).toBe(400);
    expect((await signIn('lena', PASSWORD)).callback?.searchParams.get('code')).toBeTruthy();
    // The count started again: two failures do not lock.
    for (let i = 0; i < 2; i++) await signIn('lena', 'wrong');
    expect((await s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).body.user.state).toBe('USER_STATE_ACTIVE');
  });

  it("lock and deactivate by hand stop sign-ins and the user's tokens; reactivate restores them", async () => {
    const userId = await importUser('max');
    const bot = await s.api('POST', '/management/v1/users/machine', { userName: 'lock-bot', name: 'Bot' }, undefined, inOrg());
    const pat = (await s.api('POST', `/management/v1/users/${bot.body.userId}/pats`, {}, undefined, inOrg())).body.token;
    // Any authenticated call shows whether the token still works (403: authenticated, no role).
    expect((await s.api('GET', '/management/v1/orgs/me', undefined, pat)).status).toBe(403);
    expect((await s.api('POST', `/management/v1/users/${bot.body.userId}/_deactivate`, undefined, undefined, inOrg())).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100)); // the authentication cache's second
    expect((await s.api('GET', '/management/v1/orgs/me', undefined, pat)).status).toBe(401);
    expect((await s.api('POST', `/management/v1/users/${bot.body.userId}/_deactivate`, undefined, undefined, inOrg())).status).toBe(400);
    expect((await s.api('POST', `/management/v1/users/${bot.body.userId}/_reactivate`, undefined, undefined, inOrg())).status).toBe(200);
    expect((await s.api('GET', '/management/v1/orgs/me', undefined, pat)).status).toBe(403);

    expect((await s.api('POST', `/management/v1/users/${userId}/_lock`, undefined, undefined, inOrg())).status).toBe(200);
    expect((await signIn('max', PASSWORD)).page?.status).toBe(403);
    expect((await s.api('POST', `/management/v1/users/${userId}/_lock`, undefined, undefined, inOrg())).status).toBe(400);
    expect((await s.api('POST', `/management/v1/users/${userId}/_reactivate`, undefined, undefined, inOrg())).status).toBe(400);
    expect((await s.api('POST', `/management/v1/users/${userId}/_unlock`, undefined, undefined, inOrg())).status).toBe(200);
    expect((await signIn('max', PASSWORD)).callback).toBeTruthy();
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: userId, eventTypes: ['user.locked', 'user.unlocked'], asc: true });
    expect(events.body.events.map((e: any) => e.type.type)).toEqual(['user.locked', 'user.unlocked']);
  });

  it("the organisation's lockout policy is exported and imported", async () => {
    const exported = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true });
    expect(exported.body.orgs[0].lockoutPolicy).toEqual({ maxPasswordAttempts: 3 }); // zero values left out, as protojson does
    const target = await startOidcServer(dialect);
    try {
      const imported = await target.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: exported.body });
      expect((imported.body.errors ?? []).filter((e: any) => e.type.endsWith('policy'))).toEqual([]);
      expect((await target.api('GET', '/management/v1/policies/lockout', undefined, undefined, inOrg())).body.policy).toMatchObject({ maxPasswordAttempts: '3', isDefault: false });
    } finally {
      await target.close();
    }
  });
});
