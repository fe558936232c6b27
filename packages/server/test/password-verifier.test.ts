/**
 * Password hashes are verified off the event loop, a bounded number at a time: a costly hash
 * (within the bounds) must not stall other requests, and a burst of logins must not queue forever.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PasswordChecksBusy, PasswordVerifier, verifyPassword } from '../src/auth/password-verifier.js';

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
