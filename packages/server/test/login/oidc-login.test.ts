/**
 * The login page over HTTP: users imported with each supported hash format log in with their
 * known password; weak or costly imported hashes are replaced by argon2id; the lockout policy locks a
 * user after the configured failed attempts.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { createOidcApp as createApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';

// Hashes of "password" made by real tools (see password-hashes.test.ts for their sources).
const HASHES: Record<string, string> = {
  argon2id: '$argon2id$v=19$m=4096,t=3,p=1$cmFuZG9tc2FsdGlzaGFyZA$DYojYpnUWSMmTtrkVXyaNWVGxLmGe1n8VJBPDdFkbjU',
  argon2i: '$argon2i$v=19$m=4096,t=3,p=1$cmFuZG9tc2FsdGlzaGFyZA$YMvo8AUoNtnKYGqeODruCjHdiEbl1pKL2MsYy9VgU/E',
  bcrypt2a: '$2a$12$aLYFkieuqJyeynvptPTxpehSViui5WeAPuR2Xw1wui9CPHEaacmFq',
  bcrypt2b: '$2b$12$bIRGj4QPPoSUMWsJE.4Pk.T1qTpDWz7HhMnuiQhGzGinKPsx/HQdq',
  bcrypt2y: '$2y$10$U3kWivZizfoQEJGCMF4lVe2/mi854Dvl/2YwXOf26XlqyeoW/KUaC',
  pbkdf2sha1: '$pbkdf2$12$cmFuZG9tc2FsdGlzaGFyZA$mwUqsMixIYMc/0eN4v1.l3SVDpk',
  pbkdf2sha256: '$pbkdf2-sha256$12$cmFuZG9tc2FsdGlzaGFyZA$OFvEcLOIPFd/oq8egf10i.qJLI7A8nDjPLnolCWarQY',
  pbkdf2sha512: '$pbkdf2-sha512$12$cmFuZG9tc2FsdGlzaGFyZA$e297piXvkpYxoYQAWD9zn1aKXCo3XmR91Xn9/WEGsHXU/7xaQzCV9upu4T5Jntq6AiZ6YX0diXnY7Ju5TEfUMA',
  scrypt: '$scrypt$ln=16,r=8,p=1$cmFuZG9tc2FsdGlzaGFyZA$Rh+NnJNo1I6nRwaNqbDm6kmADswD1+7FTKZ7Ln9D8nQ',
  md5crypt: '$1$kJ4QkJaQ$3EbD/pJddrq5HW3mpZ4KZ1',
  sha256crypt: '$5$S4ltS4lt$OPLOwEYZ56wkxrlK4KMNN8O9Mlup5Xc2Sv3GOgKtGj4',
  sha512crypt: '$6$QwErTy12$aat5mfSj5FqToEdxwdR7BWuCeyGJJrDhfdrqI550M4avfZ3hOUHbYdjZ5l0QhDVHOB/o2TLHtWsQO1felxMpK/',
};
// Re-hashed with argon2id after a successful login: weak formats, and hashes costlier to verify
// than the service's own argon2id (hash-cost.ts costlierThanDefault: bcrypt above cost 8, scrypt above 19 MiB).
const REHASHED = new Set(['md5crypt', 'pbkdf2sha1', 'bcrypt2a', 'bcrypt2b', 'bcrypt2y', 'scrypt']);

describeEachStore('login page with imported password hashes', (dialect) => {
  let s: OidcTestServer;
  let config: oc.Configuration;
  const users: Record<string, string> = {};

  beforeAll(async () => {
    s = await startOidcServer(dialect, { maxPasswordAttempts: 3 });
    const project = await s.api('POST', '/management/v1/projects', { name: 'login' });
    const app = await createApp(s, project.body.id, {
      name: 'spa',
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    for (const [format, value] of Object.entries(HASHES)) users[format] = await importHuman(s, `u-${format}`, { hashedPassword: { value } });
  }, 120_000);
  afterAll(() => s?.close());

  const login = (loginName: string, password: string) => signInThroughForm(config, REDIRECT, loginName, password, { scope: 'openid' });

  for (const format of Object.keys(HASHES)) {
    it(`${format}: logs in with the known password${REHASHED.has(format) ? ' and is re-hashed with argon2id' : ''}`, async () => {
      const result = await login(`u-${format}`, 'password');
      expect(result.callback?.searchParams.get('code'), result.page?.html.slice(0, 200)).toBeTruthy();
      const stored = (await s.t.store.read.users.get(users[format]))!.passwordHash!;
      if (REHASHED.has(format)) expect(stored.startsWith('$argon2id$')).toBe(true);
      else expect(stored).toBe(HASHES[format]);
      // Still the same password after a re-hash.
      expect((await login(`u-${format}`, 'password')).callback).toBeDefined();
    });
  }

  it('locks the user after the lockout policy’s failed attempts, even for the right password', async () => {
    const userId = await importHuman(s, 'carol', { password: 'Right-Passw0rd!' });
    for (let i = 1; i <= 2; i++) {
      const failed = await login('carol', 'wrong');
      expect(failed.page?.status).toBe(401);
      expect(failed.page?.html).toContain('The login name or the password is wrong.');
    }
    const third = await login('carol', 'wrong');
    expect(third.page?.status).toBe(403);
    expect(third.page?.html).toContain('locked');
    expect((await s.t.store.read.users.get(userId))!.state).toBe('USER_STATE_LOCKED');
    const right = await login('carol', 'Right-Passw0rd!');
    expect(right.callback).toBeUndefined();
    expect(right.page?.html).toContain('locked');
  });

  it('a success resets the failure count', async () => {
    await importHuman(s, 'dave', { password: 'Right-Passw0rd!' });
    await login('dave', 'wrong');
    await login('dave', 'wrong');
    expect((await login('dave', 'Right-Passw0rd!')).callback).toBeDefined();
    await login('dave', 'wrong');
    await login('dave', 'wrong');
    expect((await login('dave', 'Right-Passw0rd!')).callback).toBeDefined();
  });
});
