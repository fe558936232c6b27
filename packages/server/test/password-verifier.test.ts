/**
 * Password hashes are verified off the event loop, a bounded number at a time: a costly hash
 * (within the bounds) must not stall other requests, and a burst of logins must not queue forever.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordChecksBusy, PasswordVerifier, verifyPassword } from '../src/auth/password-verifier.js';
import { checkPasswordLogin } from '../src/domain/login/password-login.js';
import { createLogger } from '../src/log.js';
import { describeEachStore } from './support/instance.js';
import { Browser, createOidcApp, importHuman, loginThroughForm, startOidcServer, type OidcTestServer } from './support/oidc-server.js';

// glibc crypt(3) through Python's `crypt.crypt('password', '$6$rounds=1000000$Sl0wS4lt')`: the
// sha512-crypt bound (1,000,000 rounds), about 2 s of work.
const SLOW = '$6$rounds=1000000$Sl0wS4lt$erXN5BS02e6YBtnI00jV1njjEs.qX8uJQADBF9575Gj8vwqLI0wYV3FvxrtbcTJIcWfn6iOEWKhiBdflAquWe0';

/** The longest gap between ticks of a 10 ms timer while `work` runs. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number; totalMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  try {
    const result = await work();
    return { result, stallMs: Math.max(stallMs, performance.now() - last), totalMs: performance.now() - started };
  } finally {
    clearInterval(ticker);
  }
}

describe('verification off the event loop', () => {
  it('the event loop keeps ticking while a sha512-crypt hash at the bound is verified', async () => {
    const { result, stallMs, totalMs } = await longestStall(() => verifyPassword('password', SLOW));
    expect(result.ok).toBe(true);
    // The work itself took a while (so a stall would have shown), and no tick waited for it.
    expect(totalMs).toBeGreaterThan(500);
    expect(stallMs).toBeLessThan(Math.max(250, totalMs / 4));
  }, 30_000);
});

// The same tool, 300,000 rounds: a few hundred milliseconds, long enough to hold a worker.
const HOLDS = '$6$rounds=300000$Qu3u3S4lt$/OAQs4KtaIT7elS0lW/3vJaCA45g18MqKa5FLfj.ZRWdYEBLMzxGH6UH5.d854.8tOPDPxt.a0TeqiN8YY.la0';

describe('the bound on verifications at once', () => {
  const verifiers: PasswordVerifier[] = [];
  const verifier = (options: ConstructorParameters<typeof PasswordVerifier>[0]) => {
    const v = new PasswordVerifier(options);
    verifiers.push(v);
    return v;
  };
  afterAll(() => Promise.all(verifiers.map((v) => v.close())));

  it('runs at most `workers` at once, queues `maxQueued` more and refuses the rest at once as busy', async () => {
    const v = verifier({ workers: 2, maxQueued: 1 });
    let mostRunning = 0;
    const sampler = setInterval(() => (mostRunning = Math.max(mostRunning, v.load.running)), 5);
    try {
      const settled = Promise.allSettled(Array.from({ length: 5 }, () => verifyPassword('password', HOLDS, v)));
      expect(v.load).toEqual({ running: 2, queued: 1 });
      const results = await settled;
      expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ ok: boolean }>).value.ok)).toEqual([true, true, true]);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused).toHaveLength(2);
      for (const r of refused) expect(r.reason).toBeInstanceOf(PasswordChecksBusy);
      expect(mostRunning).toBe(2);
      expect(v.load).toEqual({ running: 0, queued: 0 });
    } finally {
      clearInterval(sampler);
    }
  }, 60_000);

  it('a check that waits longer than `maxWaitMs` for a worker is refused as busy', async () => {
    const v = verifier({ workers: 1, maxQueued: 5, maxWaitMs: 20 });
    const first = verifyPassword('password', HOLDS, v);
    await expect(verifyPassword('password', HOLDS, v)).rejects.toBeInstanceOf(PasswordChecksBusy);
    expect((await first).ok).toBe(true);
  }, 60_000);

  it('a check running longer than `timeoutMs` ends its worker; the next check gets a new one', async () => {
    const v = verifier({ workers: 1, timeoutMs: 20 });
    await expect(verifyPassword('password', HOLDS, v)).rejects.toThrow('password check timed out');
    const again = verifier({ workers: 1 });
    expect((await verifyPassword('password', HOLDS, again)).ok).toBe(true);
    expect(v.load).toEqual({ running: 0, queued: 0 });
  }, 60_000);
});

describeEachStore('the login page while password checks are busy, and with a hash beyond the bounds', (dialect) => {
  const REDIRECT = 'http://127.0.0.1:1/callback';
  // One check at a time, none waiting: a check held by the test leaves no room for a login.
  const verifier = new PasswordVerifier({ workers: 1, maxQueued: 0 });
  const logLines: string[] = [];
  let s: OidcTestServer;
  let config: oc.Configuration;
  let userId: string;

  beforeAll(async () => {
    s = await startOidcServer(dialect, { passwordVerifier: verifier, logger: createLogger('warn', (line) => logLines.push(line)) });
    const project = await s.api('POST', '/management/v1/projects', { name: 'busy' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'spa', redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    userId = await importHuman(s, 'busy-user', { hashedPassword: { value: HOLDS } });
  }, 120_000);
  afterAll(async () => {
    await verifier.close();
    await s?.close();
  });

  const login = async (loginName: string, password: string) => {
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oc.calculatePKCECodeChallenge(oc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
    return loginThroughForm(new Browser(), url.href, REDIRECT, loginName, password);
  };
  const failures = async () => (await s.t.store.read.events.search({ aggregateId: userId, limit: 100, offset: 0, asc: true })).events.filter((e) => e.type === 'user.human.password.check.failed').length;

  it('answers 503 "try again" with Retry-After, and counts no failed attempt, while every check slot is taken', async () => {
    const held = verifier.verify('password', HOLDS);
    try {
      expect(await checkPasswordLogin(s.t.store, s.t.instanceId, 'busy-user', 'password', verifier)).toEqual({ ok: false, reason: 'busy' });
      const result = await login('busy-user', 'password');
      expect(result.callback).toBeUndefined();
      expect(result.page?.status).toBe(503);
      expect(result.page?.headers.get('retry-after')).toBe('5');
      expect(result.page?.html).toContain('try again');
      expect(await failures()).toBe(0);
      expect((await s.t.store.read.users.get(userId))!.state).toBe('USER_STATE_ACTIVE');
    } finally {
      await held;
    }
    // Once the slot is free, the same login goes through.
    expect((await login('busy-user', 'password')).callback?.searchParams.get('code')).toBeTruthy();
  }, 60_000);

  it('refuses a stored hash beyond the bounds without running it, counts the failure and logs a warning (without the hash)', async () => {
    const slipped = '$6$rounds=999999999$S4lt$aat5mfSj5FqToEdxwdR7BWuCeyGJJrDhfdrqI550M4avfZ3hOUHbYdjZ5l0QhDVHOB/o2TLHtWsQO1felxMpK/';
    const before = (await s.t.store.read.users.get(userId))!;
    await s.t.store.transaction((tx) => tx.logins.setPasswordHash(userId, slipped, before.sequence, new Date()));
    logLines.length = 0;
    const started = performance.now();
    const result = await login('busy-user', 'password');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.page?.status).toBe(401);
    expect(await failures()).toBe(1);
    const warning = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'stored password hash refused at login');
    expect(warning).toMatchObject({ level: 'warn', userId, reason: 'sha512crypt rounds 999999999 is above the limit of 1000000' });
    expect(logLines.join('')).not.toContain('S4lt');
    expect(verifier.load).toEqual({ running: 0, queued: 0 });
  }, 30_000);
});
