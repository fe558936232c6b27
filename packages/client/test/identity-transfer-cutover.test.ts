/**
 * Cut-over without failed sign-ins (issue 51), as docs/sync-and-cut-over.md tells a person to do it:
 * people sign in at the source (the login form, then openid-client redeeming the code) while
 * `identity-transfer sync` — the real CLI process — makes the target follow it; one of them gives
 * her authenticator app's code after the password; meanwhile a password is changed and a person is
 * added at the source. Then the switch: the source stops taking writes, sync catches up until
 * `identity-transfer verify` finds no difference, sync is stopped, and the same people sign in at
 * the target with the same relying party (its client id came along), the same login names (both
 * instances serve one domain, as the target takes the source's over), their current passwords and
 * the same app. No sign-in fails, at the source or at the target; the old password of the person
 * who changed it is refused at the target, and so are an access token and a refresh token the
 * source issued (tokens do not travel: people signed in at the source sign in again). Each store on either side: SQLite → PostgreSQL and
 * PostgreSQL → SQLite.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { totpCode } from '@identity-service/server/src/domain/login/totp.js';
import type { Dialect } from '@identity-service/server/src/store/store.js';
import { insertMachineUserWithToken } from '@identity-service/server/test/support/instance.js';
import { Browser, loginThroughForm, type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = new URL('../bin/identity-transfer.mjs', import.meta.url).pathname;
const REDIRECT = 'http://127.0.0.1:1/callback';
/** Both instances serve one domain: the target takes the source's over at the switch, so login names stay. */
const DOMAIN = 'login.cutover.example';
/** Erin's authenticator app, as ZITADEL exports it (base32). */
const ERIN_APP = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

interface Person {
  name: string;
  userId: string;
  loginName: string;
  password: string;
  /** The authenticator app's secret of a person who has one: the login asks for its code after the password. */
  app?: string;
}

interface Attempt {
  at: 'source' | 'target';
  who: string;
  ok: boolean;
  detail: string;
  /** The access token the relying party got. */
  accessToken?: string;
  /** The refresh token it got (it asks for offline_access). */
  refreshToken?: string;
}

/** The real CLI as its own process, its output kept. */
function cli(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, out: () => out, exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))) };
}

/** What a page says, without its markup (enough of it to tell why a sign-in failed). */
const textOf = (html: string) =>
  html
    .replace(/<style[\s\S]*?<\/style>|<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

/** Polls `check` until it holds, failing after `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const PAIRS: [Dialect, Dialect][] = [
  ['sqlite', 'postgres'],
  ['postgres', 'sqlite'],
];

describe.each(PAIRS)('cut-over from a %s source to a %s target', (fromStore, toStore) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let orgId: string;
  let clientId: string;
  let dir: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });

  /** A person added at the source as an administrator would, with the password they sign in with. */
  const addPerson = async (name: string, password: string, app?: string): Promise<Person> => {
    const res = await source.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName: name,
        profile: { firstName: name, lastName: 'Cutover' },
        email: { email: `${name}@cutover.example.com`, isEmailVerified: true },
        password,
        passwordChangeRequired: false,
        ...(app ? { otpCode: app } : {}),
      },
      undefined,
      inOrg(),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const userId = res.body.userId as string;
    expect(userId).toMatch(/^\d{18}$/);
    const loginName = (await source.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg())).body.user.preferredLoginName as string;
    return { name, userId, loginName, password, ...(app ? { app } : {}) };
  };

  /**
   * One sign-in as a person makes it: the relying party's authorization request, the login form
   * with login name and password, then openid-client redeeming the code (PKCE) and checking the ID
   * token, whose subject must be the person. A person with an authenticator app gives the code the
   * app shows `codeShift` ms from the moment it is typed (the login takes codes one step either side
   * of now, each step once and after the last one taken).
   */
  const signIn = async (at: 'source' | 'target', person: Person, password = person.password, codeShift = 0): Promise<Attempt> => {
    const server = at === 'source' ? source : target;
    const attempt = (ok: boolean, detail: string): Attempt => ({ at, who: person.name, ok, detail });
    try {
      const config = await oc.discovery(new URL(server.issuer), clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
      const verifier = oc.randomPKCECodeVerifier();
      const url = oc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid profile offline_access',
        code_challenge: await oc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const browser = new Browser();
      let signedIn = await loginThroughForm(browser, url.href, REDIRECT, person.loginName, password);
      if (person.app) {
        // The password alone must not sign in someone who has an app: the app came along, or the sign-in is wrong.
        const codeForm = /<form method="post" action="([^"]+\/otp)"/.exec(signedIn.page?.html ?? '')?.[1];
        if (!codeForm) return attempt(false, signedIn.callback ? "signed in without the app's code" : `login page ${signedIn.page?.status}: ${textOf(signedIn.page?.html ?? '')}`);
        const coded = await browser.follow(new URL(codeForm, server.issuer).href, REDIRECT, { form: { code: totpCode(person.app, Date.now() + codeShift) } });
        signedIn = coded.location ? { callback: coded.location } : { page: { status: coded.res.status, html: await coded.res.text(), headers: coded.res.headers } };
      }
      if (!signedIn.callback) return attempt(false, `login page ${signedIn.page?.status}: ${textOf(signedIn.page?.html ?? '')}`);
      const tokens = await oc.authorizationCodeGrant(config, signedIn.callback, { pkceCodeVerifier: verifier });
      const sub = tokens.claims()?.sub;
      return sub === person.userId ? { ...attempt(true, 'signed in'), accessToken: tokens.access_token, refreshToken: tokens.refresh_token } : attempt(false, `ID token for ${sub}`);
    } catch (error) {
      return attempt(false, error instanceof Error ? error.message : String(error));
    }
  };

  beforeAll(async () => {
    [source, target] = await Promise.all([startOidcServer(fromStore, { instanceDomain: DOMAIN }), startOidcServer(toStore, { instanceDomain: DOMAIN })]);
    dir = mkdtempSync(join(tmpdir(), 'cutover-test-'));
    orgId = (await source.api('POST', '/management/v1/orgs', { name: 'Cutover Co' })).body.id;
    const projectId = (await source.api('POST', '/management/v1/projects', { name: 'portal' }, undefined, inOrg())).body.id;
    // The relying party people sign in to: a public client with PKCE (devMode: an http loopback redirect).
    const app = await source.api(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      {
        name: 'portal-web',
        redirectUris: [REDIRECT],
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
        devMode: true,
      },
      undefined,
      inOrg(),
    );
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    clientId = app.body.clientId;
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('people sign in at the source while the target follows, and at the target after the switch: no sign-in fails', async () => {
    const people = [await addPerson('ann', 'Ann-Pass-1!'), await addPerson('bob', 'Bob-Pass-1!'), await addPerson('carl', 'Carl-Pass-1!')];
    const erin = await addPerson('erin', 'Erin-Pass-1!', ERIN_APP);
    const attempts: Attempt[] = [];
    // The sync writes at the target as a service user of its own (its changes are not "local" ones).
    const follower = await insertMachineUserWithToken(target.t, { instanceRoles: ['IAM_OWNER'] });
    const between = ['--from-url', source.issuer, '--from-token', source.t.adminToken, '--to-url', target.issuer, '--to-token', follower.token, '--org', orgId];
    const sync = cli(['sync', ...between, '--checkpoint', join(dir, 'follow.json'), '--interval', '250ms', '--with-passwords', '--with-otp']);
    let syncStopped = false;
    try {
      // The first copy, then the follow.
      await within(30_000, async () => /checkpoint \d+/.test(sync.out()));

      // People keep signing in at the source, round after round, while it changes under them.
      const bob = people[1];
      const oldBobPassword = bob.password;
      for (let round = 0; round < 4; round++) {
        for (const person of people) attempts.push(await signIn('source', person));
        // Erin signs in with her app's code twice: a step before now, then now's (the login takes each step once).
        if (round === 0 || round === 2) attempts.push(await signIn('source', erin, erin.password, round === 0 ? -30_000 : 0));
        if (round === 1) {
          // Bob's password is changed at the source; from now on he signs in with the new one.
          expect((await source.api('POST', `/management/v1/users/${bob.userId}/password`, { password: 'Bob-Pass-2!', noChangeRequired: true }, undefined, inOrg())).status).toBe(200);
          bob.password = 'Bob-Pass-2!';
        }
        // Dana joins at the source during the follow.
        if (round === 2) people.push(await addPerson('dana', 'Dana-Pass-1!'));
      }
      expect(attempts.filter((a) => a.who === 'dana').length).toBeGreaterThan(0);

      // The switch. 1. The source takes no more writes (here: nobody signs in or changes anything there).
      // 2. Sync catches up: verify, which compares the two resource by resource, finds no difference.
      let verified = '';
      await within(30_000, async () => {
        const verify = cli(['verify', ...between, '--with-passwords', '--with-otp']);
        const code = await verify.exited;
        verified = verify.out();
        return code === 0;
      });
      expect(verified).toMatch(/agree/);
      // 3. Sync is stopped: SIGTERM ends it after the round under way, exit 0.
      sync.child.kill('SIGTERM');
      expect(await sync.exited).toBe(0);
      syncStopped = true;
      expect(sync.out()).not.toMatch(/not applied|refused [1-9]|trying again/);

      // 4. Traffic goes to the target: the same people, the same relying party, their current passwords.
      for (const person of people) attempts.push(await signIn('target', person));
      // Erin's app gives a code the target takes (the next step: later than any she gave the source).
      attempts.push(await signIn('target', erin, erin.password, 30_000));
      // Bob's old password is refused there, as it was at the source after the change.
      expect(await signIn('target', bob, oldBobPassword)).toMatchObject({ ok: false, detail: expect.stringContaining('login page 401') });
      // Tokens do not travel: an access token of the source, good there, is refused by the target (the person signs in again, above).
      const fromSource = attempts.find((a) => a.at === 'source' && a.ok)!.accessToken!;
      const userinfo = async (s: OidcTestServer) => (await fetch(`${s.issuer}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${fromSource}` } })).status;
      expect(await userinfo(source)).toBe(200);
      expect(await userinfo(target)).toBe(401);
      // Nor does a refresh token: the target never issued it (invalid_grant), while the source still takes it.
      const refreshFromSource = attempts.find((a) => a.at === 'source' && a.ok && a.refreshToken)!.refreshToken!;
      const refresh = async (s: OidcTestServer) => {
        const res = await fetch(`${s.issuer}/oauth/v2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshFromSource, client_id: clientId }),
        });
        return { status: res.status, body: (await res.json()) as { error?: string; access_token?: string } };
      };
      expect(await refresh(target)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(await refresh(source)).toMatchObject({ status: 200, body: { access_token: expect.any(String) } });
    } finally {
      if (!syncStopped) sync.child.kill('SIGKILL');
    }

    expect(attempts.filter((a) => !a.ok)).toEqual([]);
    for (const person of [...people, erin])
      expect(
        attempts.filter((a) => a.who === person.name && a.at === 'target'),
        person.name,
      ).toHaveLength(1);
    expect(attempts.filter((a) => a.at === 'source')).toHaveLength(4 * 3 + 1 + 2);
  }, 150_000);
});
