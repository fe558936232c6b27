/**
 * requestPath (src/transport/http-server.ts) skips URL parsing for plain request targets: for every target it
 * must give what `new URL(target, base).pathname` gives, which decides whether a request goes to
 * the authorization server or to the API.
 */
import { expect, it } from 'vitest';
import { requestPath } from '../../src/transport/http-server.js';

const targets = [
  '/',
  '/admin/v1/languages',
  '/oauth/v2/token',
  '/oauth/v2/token?x=1',
  '/oidc/v1/userinfo?a=b?c',
  '/.well-known/openid-configuration',
  '/docs/init.js',
  '/openapi.json',
  '/management/v1/users/123/grants/456',
  '/a/./b',
  '/a/../oauth/v2/token',
  '/..',
  '/.',
  '/a/.',
  '/a/..?x',
  '/.well-known/../oauth/v2/keys',
  '/a/%2e%2e/oauth/v2/token',
  '/a/%2E/b',
  '/oauth%2fv2/token',
  '/a\\..\\oauth/v2/token',
  '/a\\b',
  '/a b',
  '/a"b',
  '/a<b>',
  '/a`b',
  '/a{b}',
  '/a^b',
  '/a|b',
  '/ä',
  '/a#frag',
  '/a?#x',
  '/a;b=c',
  "/a!$&'()*+,;=:@~_-",
  '//double//slashes',
  '/trailing/',
  '/x/...',
  '/x/.../y',
  '/x/.hidden',
  '/x/..hidden/',
  '',
  '*',
  'http://other.example/oauth/v2/token',
];

it('gives the path URL parsing gives, for plain and unusual targets alike', () => {
  for (const target of targets) expect(requestPath(target), target).toBe(new URL(target, 'http://localhost').pathname);
});

it('takes a missing target as /', () => {
  expect(requestPath(undefined)).toBe('/');
});
