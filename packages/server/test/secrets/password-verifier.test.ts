/**
 * Password hashes are verified off the event loop, a bounded number at a time: a costly hash
 * (within the bounds) must not stall other requests, and a burst of logins must not queue forever.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordChecksBusy, PasswordChecksThrottled, PasswordVerifier, verifyPassword } from '../../src/auth/password-verifier.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { checkPasswordLogin } from '../../src/domain/login/password-login.js';
import { clientKey } from '../../src/http/client-address.js';
import { createLogger } from '../../src/log.js';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { Browser, createOidcApp, importHuman, type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

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

describe('checks yield the CPU to the event loop', () => {
  /** The nice value of every thread of this process (Linux /proc), by thread id. */
  const niceByThread = () =>
    new Map(
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
      }),
    );

  it.runIf(existsSync('/proc/thread-self'))(
    'a verification worker runs at a lower priority (nice 10) than the rest of the process',
    async () => {
      const before = niceByThread();
      const v = new PasswordVerifier({ workers: 1 });
      try {
        expect((await verifyPassword('password', HOLDS, v)).ok).toBe(true);
        const after = niceByThread();
        const added = [...after].filter(([tid]) => !before.has(tid));
        expect(added.map(([, nice]) => nice)).toContain(10);
        expect(after.get(String(process.pid))).toBe(0);
      } finally {
        await v.close();
      }
    },
    30_000,
  );
});

/** Makes verifiers for a describe block, each closed after its tests. */
function verifiersClosedAfterAll() {
  const made: PasswordVerifier[] = [];
  afterAll(() => Promise.all(made.map((v) => v.close())));
  return (options: ConstructorParameters<typeof PasswordVerifier>[0]) => {
    const v = new PasswordVerifier(options);
    made.push(v);
    return v;
  };
}

// The same tool, 300,000 rounds: a few hundred milliseconds, long enough to hold a worker.
const HOLDS = '$6$rounds=300000$Qu3u3S4lt$/OAQs4KtaIT7elS0lW/3vJaCA45g18MqKa5FLfj.ZRWdYEBLMzxGH6UH5.d854.8tOPDPxt.a0TeqiN8YY.la0';

describe('the bound on verifications at once', () => {
  const verifier = verifiersClosedAfterAll();

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

/** The most of `v.load.running` seen every 5 ms while `work` runs. */
async function mostRunning<T>(v: PasswordVerifier, work: () => Promise<T>): Promise<{ result: T; most: number }> {
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, v.load.running)), 5);
  try {
    const result = await work();
    return { result, most };
  } finally {
    clearInterval(sampler);
  }
}

describe('one account, one check at a time; fairness between client addresses', () => {
  const verifier = verifiersClosedAfterAll();

  it('eight concurrent wrong passwords for one account run one at a time on a pool of two; the rest are refused as throttled once it is over', async () => {
    const v = verifier({ workers: 2, maxQueued: 16 });
    const { result: settled, most } = await mostRunning(v, () =>
      Promise.allSettled(Array.from({ length: 8 }, (_, i) => verifyPassword(`wrong-${i}`, HOLDS, v, { account: 'victim', client: `10.0.0.${i}` }))),
    );
    expect(most).toBe(1);
    expect(settled.filter((r) => r.status === 'fulfilled')).toEqual([{ status: 'fulfilled', value: { ok: false } }]);
    const refused = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(7);
    for (const r of refused) expect(r.reason).toBeInstanceOf(PasswordChecksThrottled);
    expect(v.load).toEqual({ running: 0, queued: 0 });
    // Another account is not held up by the first one's check.
    const { result: both, most: mostBoth } = await mostRunning(v, () =>
      Promise.all([verifyPassword('password', HOLDS, v, { account: 'victim' }), verifyPassword('password', HOLDS, v, { account: 'other' })]),
    );
    expect(both.map((c) => c.ok)).toEqual([true, true]);
    expect(mostBoth).toBe(2);
  }, 60_000);

  it('a refusal for an account in flight is answered when its check is over, not before (a flooding connection is paced)', async () => {
    const v = verifier({ workers: 2 });
    let settled = false;
    const running = verifyPassword('wrong', HOLDS, v, { account: 'paced' }).finally(() => (settled = true));
    const refused = verifyPassword('other', HOLDS, v, { account: 'paced' }).then(
      () => 'answered',
      (error: Error) => (error instanceof PasswordChecksThrottled ? (settled ? 'throttled after' : 'throttled before') : error.message),
    );
    expect(await refused).toBe('throttled after');
    expect(await running).toEqual({ ok: false });
  }, 60_000);

  it('the same password submitted twice for one account shares one check', async () => {
    const v = verifier({ workers: 2 });
    const { result, most } = await mostRunning(v, () => Promise.all([verifyPassword('password', HOLDS, v, { account: 'twice' }), verifyPassword('password', HOLDS, v, { account: 'twice' })]));
    expect(result.map((c) => c.ok)).toEqual([true, true]);
    expect(most).toBe(1);
  }, 60_000);

  it('one address gets at most `maxQueuedPerClient` of the queue, and waiting checks are taken round-robin by address', async () => {
    // Four checks one after another on a busy machine: no waiting check may time out here.
    const v = verifier({ workers: 1, maxQueued: 4, maxQueuedPerClient: 2, maxWaitMs: 120_000 });
    const held = v.verify('password', HOLDS, { client: 'flood' });
    const order: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) => v.verify('password', HOLDS, { client: 'flood' }).then(() => order.push(`flood-${i}`)));
    expect(v.load).toEqual({ running: 1, queued: 2 });
    const other = v.verify('password', HOLDS, { client: 'other' }).then(() => order.push('other'));
    expect(v.load).toEqual({ running: 1, queued: 3 });
    const settled = await Promise.allSettled([held, ...flood, other]);
    // The flood's third to sixth were refused as throttled (not busy): the queue had room for others.
    const refused = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r.reason).toBeInstanceOf(PasswordChecksThrottled);
    // The other address came in after the flood's two, and went before the second of them.
    expect(order).toEqual(['flood-0', 'other', 'flood-1']);
  }, 60_000);
});

describe('a share of the workers per address for costly hashes', () => {
  const verifier = verifiersClosedAfterAll();

  it('one address runs at most `workers - 1` checks of costly hashes: the other worker stays free for another address, which goes first', async () => {
    const v = verifier({ workers: 2, maxQueued: 16, maxQueuedPerClient: 4, maxWaitMs: 120_000 });
    // Both workers started first (two cheap checks at once): a worker's start is not what this
    // compares, and on a loaded machine (Node 20, CI's part 2) the second one's took longer than a
    // whole costly check on the first, so that `other` ended after `flood-1`.
    const own = await hashPassword('password');
    await Promise.all([v.verify('password', own, { client: '127.0.0.3' }), v.verify('password', own, { client: '127.0.0.3' })]);
    const order: string[] = [];
    const flood = Array.from({ length: 4 }, (_, i) => v.verify('wrong', HOLDS, { client: '127.0.0.2' }).then(() => order.push(`flood-${i}`)));
    // One runs, three wait for it although a worker is free.
    expect(v.load).toEqual({ running: 1, queued: 3 });
    const other = v.verify('password', HOLDS, { client: '127.0.0.1' }).then(() => order.push('other'));
    expect(v.load).toEqual({ running: 2, queued: 3 });
    await Promise.all([...flood, other]);
    // It ran beside the flood's first check (the load above), so it ends before the flood's third,
    // which waits for two whole checks; held behind the flood it would end last. Not "before the
    // second": a loaded machine (Node 20, CI's part 2, another file beside it) once stretched its
    // one check past two of the other worker's.
    expect(order.indexOf('other')).toBeLessThan(order.indexOf('flood-2'));
    expect(v.load).toEqual({ running: 0, queued: 0 });
  }, 120_000);

  it("checks of the service's own (cheap) hashes from one address use the whole pool", async () => {
    const v = verifier({ workers: 2 });
    const own = await hashPassword('password');
    const { result, most } = await mostRunning(v, () => Promise.all(Array.from({ length: 6 }, () => v.verify('password', own, { client: '127.0.0.2' }))));
    expect(result.every((c) => c.ok)).toBe(true);
    expect(most).toBe(2);
  }, 60_000);

  it("a costly check held back past `maxWaitMs` by its own address's running check is refused as throttled, not busy", async () => {
    const v = verifier({ workers: 2, maxWaitMs: 50 });
    const running = v.verify('password', HOLDS, { client: '127.0.0.2' });
    await expect(v.verify('password', HOLDS, { client: '127.0.0.2' })).rejects.toBeInstanceOf(PasswordChecksThrottled);
    expect((await running).ok).toBe(true);
  }, 60_000);

  it('an IPv6 client counts by its /64; an IPv4 client seen through a dual-stack listener by its IPv4 address', () => {
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0DB8:0001:0002:0:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('')).toBe('');
  });
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
      name: 'spa',
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    userId = await importHuman(s, 'busy-user', { hashedPassword: { value: HOLDS } });
  }, 120_000);
  afterAll(async () => {
    await verifier.close();
    await s?.close();
  });

  const login = (loginName: string, password: string) => signInThroughForm(config, REDIRECT, loginName, password, { scope: 'openid' });
  const failures = async () =>
    (await s.t.store.read.events.search({ aggregateId: userId, limit: 100, offset: 0, asc: true })).events.filter((e) => e.type === 'user.human.password.check.failed').length;

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

describeEachStore('the login page: a flood from one address leaves room for the others', (dialect) => {
  const REDIRECT = 'http://127.0.0.1:1/callback';
  // One check at a time and four waiting, at most two of them from one address.
  const verifier = new PasswordVerifier({ workers: 1, maxQueued: 4, maxQueuedPerClient: 2, maxWaitMs: 60_000 });
  const FLOOD = 6;
  let s: OidcTestServer;
  let config: oc.Configuration;

  beforeAll(async () => {
    s = await startOidcServer(dialect, { passwordVerifier: verifier });
    const project = await s.api('POST', '/management/v1/projects', { name: 'flood' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'spa',
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    // One account per flooding request, so the per-account bound does not thin the flood out.
    for (let i = 0; i < FLOOD; i++) await importHuman(s, `flooded-${i}`, { hashedPassword: { value: HOLDS } });
    await importHuman(s, 'bystander', { hashedPassword: { value: HOLDS } });
  }, 120_000);
  afterAll(async () => {
    await verifier.close();
    await s?.close();
  });

  const login = (browser: Browser, loginName: string, password: string) => signInThroughForm(config, REDIRECT, loginName, password, { scope: 'openid' }, { browser });

  it('127.0.0.2 sending more wrong passwords than the queue holds gets 429 beyond its share; 127.0.0.1 still signs in', async () => {
    const flood = Promise.all(Array.from({ length: FLOOD }, (_, i) => login(new Browser({ localAddress: '127.0.0.2' }), `flooded-${i}`, 'wrong')));
    // Once the flood's checks are running and waiting, the bystander comes from another address.
    const deadline = Date.now() + 30_000;
    while (verifier.load.queued < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(verifier.load.queued).toBeGreaterThanOrEqual(2);
    const bystander = await login(new Browser({ localAddress: '127.0.0.1' }), 'bystander', 'password');
    expect(bystander.page?.status).toBeUndefined();
    expect(bystander.callback?.searchParams.get('code')).toBeTruthy();

    const statuses = (await flood).map((r) => r.page?.status);
    // Those that ran (one at a time, two waiting: three when all six arrive together) were wrong;
    // the rest were told to slow down. None was told the service is full.
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
  }, 120_000);
});

/**
 * Issue 47, item 5: hashes at today's bounds cost 8–10 s each, and ten wrong passwords kept in flight from
 * one address over as many such accounts held both workers: sign-ins from another address waited for one
 * to finish and answered 503 after 10 s. With the pool's defaults, the other address signs in within 2 s.
 */
describeEachStore('the login page: one address flooding costly hashes over many accounts leaves a worker for the others', (dialect) => {
  const REDIRECT = 'http://127.0.0.1:1/callback';
  // The pool as the service runs it (two workers, 16 waiting, 4 per address, 10 s).
  const verifier = new PasswordVerifier();
  const FLOOD = 10;
  // pbkdf2-sha1 at the bounds (5,000,000 rounds for each of four blocks of a 64-byte key): 8–10 s per
  // check. A random digest: the flood's passwords are wrong anyway, and random digests import fine.
  const atTheBounds = () => `$pbkdf2$5000000$${randomBytes(16).toString('base64').replace(/=+$/, '')}$${randomBytes(64).toString('base64').replace(/=+$/, '')}`;
  let s: OidcTestServer;
  let config: oc.Configuration;
  let alone = 0;
  const login = (browser: Browser, loginName: string, password: string) => signInThroughForm(config, REDIRECT, loginName, password, { scope: 'openid' }, { browser });

  beforeAll(async () => {
    s = await startOidcServer(dialect, { passwordVerifier: verifier });
    const project = await s.api('POST', '/management/v1/projects', { name: 'costly flood' });
    const app = await createOidcApp(s, project.body.id, {
      name: 'spa',
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    config = await oc.discovery(new URL(s.issuer), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    for (let i = 0; i < FLOOD; i++) await importHuman(s, `costly-${i}`, { hashedPassword: { value: atTheBounds() } });
    await importHuman(s, 'regular', { password: 'Regular-Passw0rd!' });
    // Warm: the routes, the statements and a worker thread (started on first use) are ready; then the
    // same sign-in's time without the flood, on this machine as loaded as it is now.
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await login(new Browser({ localAddress: '127.0.0.1' }), 'regular', 'Regular-Passw0rd!')).callback).toBeDefined();
      if (i > 0) alone = Math.max(alone, performance.now() - started);
    }
  }, 120_000);
  afterAll(async () => {
    await verifier.close();
    await s?.close();
  });

  it('127.0.0.2 keeps ten wrong passwords in flight over ten accounts; two sign-ins from 127.0.0.1 do not wait for those checks (each well under one: 5 s)', async () => {
    const flood = Promise.all(Array.from({ length: FLOOD }, (_, i) => login(new Browser({ localAddress: '127.0.0.2' }), `costly-${i}`, 'wrong')));
    // The flood's checks are running and waiting before the others come.
    const deadline = Date.now() + 30_000;
    while (verifier.load.queued < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(verifier.load.queued).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < 2; i++) {
      const started = performance.now();
      const signIn = await login(new Browser({ localAddress: '127.0.0.1' }), 'regular', 'Regular-Passw0rd!');
      const ms = performance.now() - started;
      expect(signIn.page?.status, signIn.page?.html).toBeUndefined();
      expect(signIn.callback?.searchParams.get('code')).toBeTruthy();
      // Not behind a costly check: those hold a worker 8–10 s, and before, this sign-in waited for one
      // (and was refused with 503 after 10 s). The bound, p99 ≤ 2 s, is measured by
      // bench/hash-dos.bench.ts (657 ms); here, on a machine loaded by other tests, the worker running
      // this check at nice 10 may wait for the CPU, so the bound is the half of one costly check.
      expect(ms, `${Math.round(ms)} ms during the flood, ${Math.round(alone)} ms alone`).toBeLessThan(Math.max(5_000, 4 * alone));
    }
    // The flood's share: one costly check at a time; nothing of it waits on the others.
    expect(verifier.load.running).toBe(1);
    await verifier.close(); // ends the flood's checks (8–10 s each) instead of waiting for them
    const statuses = (await flood).map((r) => r.page?.status);
    expect(statuses.filter((status) => ![401, 429, 503].includes(status!))).toEqual([]);
  }, 180_000);
});
