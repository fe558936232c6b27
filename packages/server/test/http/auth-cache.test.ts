/**
 * The authentication cache (src/auth/auth-cache.ts): a request with a known token costs no
 * query, yet in this process every revocation, membership change or expiry takes effect on the
 * very next request; the TTL only bounds what other processes changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthCache } from '../../src/auth/auth-cache.js';
import { newId } from '../../src/domain/ids.js';
import { LruMap } from '../../src/runtime/lru-map.js';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const PATH = '/admin/v1/text/message/verifyemail/en';

describe('AuthCache', () => {
  const setup = (options: { ttlMs?: number; maxEntries?: number } = {}) => {
    const clock = { now: 1_000, generation: 0 };
    const cache = new AuthCache<string>({ authGeneration: () => clock.generation }, { ...options, now: () => clock.now });
    let loads = 0;
    const get = (key: string, notAfter?: number) => cache.get(key, async () => ({ value: `${key}#${++loads}`, notAfter }));
    return { clock, cache, get, loads: () => loads };
  };

  it('serves a value until the TTL passes', async () => {
    const { clock, get } = setup({ ttlMs: 100 });
    expect(await get('a')).toBe('a#1');
    clock.now += 99;
    expect(await get('a')).toBe('a#1');
    clock.now += 1;
    expect(await get('a')).toBe('a#2');
  });

  it('never serves a value past its own notAfter (a token expiring before the TTL)', async () => {
    const { clock, get } = setup({ ttlMs: 1000 });
    expect(await get('a', 1_050)).toBe('a#1');
    clock.now = 1_049;
    expect(await get('a', 1_050)).toBe('a#1');
    clock.now = 1_050;
    expect(await get('a', 1_050)).toBe('a#2');
  });

  it('a new store generation invalidates every entry at once', async () => {
    const { clock, get } = setup();
    await get('a');
    await get('b');
    clock.generation++;
    expect(await get('a')).toBe('a#3');
    expect(await get('b')).toBe('b#4');
  });

  it('keeps nothing loaded while the generation changed (a write committed during the lookup)', async () => {
    const { clock, cache } = setup();
    const loaded = await cache.get('a', async () => {
      clock.generation++;
      return { value: 'stale' };
    });
    expect(loaded).toBe('stale');
    expect(cache.size).toBe(0);
  });

  it('does not keep values the loader marks uncached, nor failures', async () => {
    const { cache } = setup();
    expect(await cache.get('unknown', async () => ({ uncached: 'nobody' }))).toBe('nobody');
    await expect(cache.get('bad', async () => Promise.reject(new Error('401')))).rejects.toThrow('401');
    expect(cache.size).toBe(0);
  });

  it('is bounded: the least recently used entry goes first', async () => {
    const { get, cache } = setup({ maxEntries: 2 });
    await get('a');
    await get('b');
    await get('a'); // a is now the most recently used
    await get('c'); // evicts b
    expect(cache.size).toBe(2);
    expect(await get('a')).toBe('a#1');
    expect(await get('b')).toBe('b#4');
  });

  it('serves a key used over and over from a full cache in constant time', async () => {
    // Re-inserting a Map key on every hit made V8 walk one more deleted entry per hit: 100,000
    // hits of one token among 10,000 took ~2.5 s (25 µs each), here a few milliseconds.
    const { get } = setup({ maxEntries: 10_000 });
    for (let i = 0; i < 10_000; i++) await get(`token-${i}`);
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) await get('token-0');
    expect(performance.now() - started).toBeLessThan(600);
    expect(await get('token-0')).toBe('token-0#1');
  });
});

describe('LruMap', () => {
  it('forgets the least recently used entry first; a get or a set makes an entry the most recent', () => {
    const map = new LruMap<string, number>(3);
    for (const key of ['a', 'b', 'c']) map.set(key, key.charCodeAt(0) - 96);
    expect(map.get('a')).toBe(1); // order of use: b, c, a
    map.set('b', 20); // c, a, b
    map.set('d', 4); // c forgotten
    expect([map.get('c'), map.size]).toEqual([undefined, 3]);
    map.set('e', 5); // a forgotten (order was a, b, d)
    expect([map.get('a'), map.get('b'), map.get('d'), map.get('e')]).toEqual([undefined, 20, 4, 5]);
  });

  it('deletes any entry, the oldest and newest included, and keeps its order for the rest', () => {
    const map = new LruMap<string, number>(3);
    for (const key of ['a', 'b', 'c']) map.set(key, key.charCodeAt(0) - 96);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('c')).toBe(true);
    expect(map.delete('c')).toBe(false);
    map.set('x', 9);
    map.set('y', 8);
    map.set('z', 7); // b, x, y, z: b forgotten
    expect([map.get('b'), map.get('x'), map.size]).toEqual([undefined, 9, 3]);
    const none = new LruMap<string, number>(0);
    none.set('a', 1);
    expect([none.get('a'), none.size]).toEqual([undefined, 0]);
    expect(() => new LruMap(-1)).toThrow();
  });
});

describeEachStore('authentication cache in the service', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  const get = (token: string) => t.call('GET', PATH, { token });

  it('a revoked personal access token is refused on the next request', async () => {
    const { userId, token } = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER'] });
    expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(200); // now served from the cache
    const list = await (await t.call('POST', `/management/v1/users/${userId}/pats/_search`, { body: {} })).json();
    const tokenId = list.result[0].id as string;
    expect((await t.call('DELETE', `/management/v1/users/${userId}/pats/${tokenId}`)).status).toBe(200);
    expect((await get(token)).status).toBe(401);
  });

  it('a removed membership takes effect on the next request', async () => {
    const { userId, token } = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER'] });
    expect((await get(token)).status).toBe(200);
    expect((await t.call('DELETE', `/admin/v1/members/${userId}`)).status).toBe(200);
    expect((await get(token)).status).toBe(403);
  });

  it('an added membership takes effect on the next request', async () => {
    const { userId, token } = await insertMachineUserWithToken(t);
    expect((await get(token)).status).toBe(403);
    expect((await get(token)).status).toBe(403); // the empty permission set is cached
    expect((await t.call('POST', '/admin/v1/members', { body: { userId, roles: ['IAM_OWNER_VIEWER'] } })).status).toBe(200);
    expect((await get(token)).status).toBe(200);
  });

  it('a token expiring before the TTL ends is refused once expired', async () => {
    const { token } = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER'], expiresAt: new Date(Date.now() + 300) });
    expect((await get(token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await get(token)).status).toBe(401);
  });

  it('the generation grows with committed writes to tokens, users, members or orgs, not with other writes', async () => {
    const before = t.store.authGeneration();
    expect((await t.call('PUT', PATH, { body: { title: `g-${newId()}` } })).status).toBe(200);
    expect(t.store.authGeneration()).toBe(before);
    const { userId } = await insertMachineUserWithToken(t);
    const afterInsert = t.store.authGeneration();
    expect(afterInsert).toBeGreaterThan(before);
    // A locked-out user (login.ts writes the state through another repository) counts too.
    await t.store.transaction((tx) => tx.logins.setUserState(userId, 'USER_STATE_LOCKED', 2, new Date()));
    expect(t.store.authGeneration()).toBeGreaterThan(afterInsert);
  });

  it('refuses writes to those tables outside a transaction (they could not be counted at commit)', async () => {
    await expect(t.store.read.tokens.remove('nobody')).rejects.toThrow(/store\.transaction/);
  });
});
