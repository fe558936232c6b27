/**
 * RemoveUser removes everything that belongs to the user (issue 33.6): a machine user removed and
 * added again under the same name gets a fresh client secret under the same client id, and the
 * removed user's client secret and tokens stop working instead of passing to the newcomer. No
 * table keeps a row of a removed user, nor the authorization server's storage a session or token.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { leftovers } from '../support/leftovers.js';
import { createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const AUD = 'urn:service:iam:org:project:id:service:aud';
const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';

describeEachStore('removing a user removes everything that belongs to it', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  });
  afterAll(() => s?.close());

  const tokenRequest = (clientId: string, clientSecret: string) =>
    fetch(`${s.issuer}/oauth/v2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: AUD }),
    });
  const asToken = (accessToken: string) => s.api('GET', '/admin/v1/text/message/verifyemail/en', undefined, accessToken);

  async function machineWithSecret(userName: string) {
    const machine = await s.api('POST', '/management/v1/users/machine', { userName, name: 'Robot' });
    expect(machine.status, JSON.stringify(machine.body)).toBe(200);
    const userId = machine.body.userId as string;
    expect((await s.api('POST', '/admin/v1/members', { userId, roles: ['IAM_OWNER_VIEWER'] })).status).toBe(200);
    const secret = await s.api('PUT', `/management/v1/users/${userId}/secret`);
    expect(secret.status).toBe(200);
    return { userId, clientId: secret.body.clientId as string, clientSecret: secret.body.clientSecret as string };
  }

  it('a machine user removed and added again gets a fresh secret under its name; the old secret and tokens stop working', async () => {
    const old = await machineWithSecret('robot');
    expect(old.clientId).toBe('robot');
    const issued = await tokenRequest(old.clientId, old.clientSecret);
    expect(issued.status).toBe(200);
    const oldToken = ((await issued.json()) as { access_token: string }).access_token;
    expect((await asToken(oldToken)).status).toBe(200);

    // A key of the machine user (machine_keys) goes with it too.
    expect((await s.api('POST', `/management/v1/users/${old.userId}/keys`, { type: 'KEY_TYPE_JSON' })).status).toBe(200);
    expect((await leftovers(s.t.location, old.userId)).machine_keys).toBe(1);

    expect((await s.api('DELETE', `/management/v1/users/${old.userId}`)).status).toBe(200);
    expect(await leftovers(s.t.location, old.userId)).toEqual({});
    const refused = await tokenRequest(old.clientId, old.clientSecret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_client');
    expect((await asToken(oldToken)).status).toBe(401);

    const again = await machineWithSecret('robot');
    // Not `robot@<domain>`: the removed user's client id went with it.
    expect(again.clientId).toBe('robot');
    expect(again.clientSecret).not.toBe(old.clientSecret);
    expect((await tokenRequest(again.clientId, old.clientSecret)).status).toBe(401);
    const fresh = await tokenRequest(again.clientId, again.clientSecret);
    expect(fresh.status).toBe(200);
    expect((await asToken(((await fresh.json()) as { access_token: string }).access_token)).status).toBe(200);
    // The removed user's token does not pass to the newcomer who got its client id.
    expect((await asToken(oldToken)).status).toBe(401);
  });

  it('a signed-in human with a second factor, failed checks, mails, codes and metadata leaves nothing behind', async () => {
    const org = await s.api('GET', '/management/v1/orgs/me');
    const project = await s.api('POST', '/management/v1/projects', { name: 'removal' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'removal-spa',
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
      accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
    });
    const userId = await importHuman(s, 'leaver', { password: PASSWORD });
    // A session, a grant and opaque access and refresh tokens in the provider's storage.
    const config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const login = await signInThroughForm(config, REDIRECT, `leaver@${org.body.org.primaryDomain}`, PASSWORD, { scope: 'openid offline_access', prompt: 'consent' });
    expect(login.callback, login.page?.html.slice(0, 300)).toBeDefined();
    const tokens = await login.redeem(login.callback, { idTokenExpected: true });
    expect(tokens.refresh_token).toBeDefined();
    // What signing in and the mail keep: failed checks, an authenticator app, a queued mail and its code, metadata.
    await s.t.store.transaction(async (tx) => {
      await tx.logins.setFailures(userId, 2, new Date());
      await tx.logins.codeFailures.set(userId, 'otp', 1, new Date());
      await tx.logins.addOtpSecret(userId, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', new Date());
    });
    expect((await s.api('POST', `/management/v1/users/${userId}/password/_reset`, {})).status).toBe(200);
    expect((await s.api('POST', `/management/v1/users/${userId}/metadata/k`, { value: 'dg==' })).status).toBe(200);
    const before = await leftovers(s.t.location, userId);
    for (const table of ['password_failures', 'code_check_failures', 'user_otp_secrets', 'outbox', 'user_metadata', 'oidc_payloads']) {
      expect(before[table] ?? 0, table).toBeGreaterThan(0);
    }

    expect((await s.api('DELETE', `/management/v1/users/${userId}`)).status).toBe(200);
    expect(await leftovers(s.t.location, userId)).toEqual({});
    await expect(oc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toThrow();
  });
});
