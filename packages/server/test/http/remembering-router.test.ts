/**
 * The router that remembers its last matches (src/http/remembering-router.ts): a remembered match
 * must be exactly what the trie answers, parameters included, for every later request on the same
 * path, and the memory must stay bounded whatever paths callers send.
 */
import { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
import { RememberingRouter } from '../../src/http/remembering-router.js';

function bothRouters() {
  const remembering = new RememberingRouter<string>();
  const trie = new TrieRouter<string>();
  for (const router of [remembering, trie]) {
    router.add('ALL', '*', 'every request');
    router.add('GET', '/users/:userId/grants/:grantId', 'grant');
    router.add('GET', '/text/verifyemail/:language', 'verify-email text');
    router.add('GET', '/text/:messageType/:language', 'any text');
    router.add('POST', '/users/:userId/grants/:grantId', 'grant post');
  }
  return { remembering, trie };
}

describe('RememberingRouter', () => {
  it('answers each method and path as the trie does, the first time and every time after', () => {
    const { remembering, trie } = bothRouters();
    const requests: [string, string][] = [
      ['GET', '/users/1/grants/2'],
      ['GET', '/users/3/grants/4'],
      ['POST', '/users/1/grants/2'],
      ['GET', '/text/verifyemail/en'],
      ['GET', '/text/passwordreset/de'],
      ['DELETE', '/users/1/grants/2'],
      ['GET', '/nowhere'],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [method, path] of requests) expect(remembering.match(method, path), `${method} ${path}, round ${round}`).toEqual(trie.match(method, path));
    }
    expect(remembering.remembered).toBe(requests.length);
  });

  it('stays within its bound when every path is new', () => {
    const { remembering, trie } = bothRouters();
    for (let i = 0; i < 2500; i++) {
      const path = `/users/${i}/grants/${i + 1}`;
      expect(remembering.match('GET', path)).toEqual(trie.match('GET', path));
      expect(remembering.remembered).toBeLessThanOrEqual(1000);
    }
  });

  it('forgets what it matched when a route is added', () => {
    const router = new RememberingRouter<string>();
    router.add('GET', '/a/:id', 'param');
    expect(router.match('GET', '/a/static')[0].map(([handler]) => handler)).toEqual(['param']);
    router.add('GET', '/a/static', 'static');
    expect(router.match('GET', '/a/static')[0].map(([handler]) => handler)).toEqual(['param', 'static']);
  });

  it('gives each request of a Hono app its own parameters on one remembered path and on others', async () => {
    const app = new Hono({ router: new RememberingRouter() });
    app.get('/users/:userId/grants/:grantId', (c) => c.json(c.req.param()));
    for (const [userId, grantId] of [
      ['1', '2'],
      ['1', '2'],
      ['7', '8'],
      ['1', '2'],
    ]) {
      const res = await app.request(`/users/${userId}/grants/${grantId}`);
      expect(await res.json()).toEqual({ userId, grantId });
    }
  });
});
