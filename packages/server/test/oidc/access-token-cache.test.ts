/**
 * Issue 14 (the authenticated hot path): a JWT access token's caller is cached like a PAT's, so
 * repeated calls with one token neither check its signature nor read its user again; a change to
 * the user (here: deactivation) ends that at once; opaque tokens are looked up every time; and a
 * JWT is never looked up as a PAT.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { personalAccessTokenVerifier } from '../../src/auth/authenticate.js';
import { oauthAccessTokenVerifier, type VerifiedAccessToken } from '../../src/oidc/access-tokens.js';
import { SERVICE_AUDIENCE } from '../../src/oidc/scopes.js';
import { createTestInstance, describeEachStore, insertHumanUser, type TestInstance } from '../support/instance.js';

describeEachStore('access-token verification cache', (dialect) => {
  let t: TestInstance;
  let userId: string;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
    ({ userId } = await insertHumanUser(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The reader's answers (its signature check is what the cache saves), counted. */
  const countingReader = () => {
    const calls: string[] = [];
    const read = async (token: string): Promise<VerifiedAccessToken | undefined> => {
      calls.push(token);
      return { userId, clientId: 'client', scope: 'openid', audience: [SERVICE_AUDIENCE], claims: { exp: Math.floor(Date.now() / 1000) + 300 } };
    };
    return { calls, read };
  };

  it('verifies a JWT once while nothing changes, and again after its user changed', async () => {
    const { calls, read } = countingReader();
    const verify = oauthAccessTokenVerifier(read, t.store);
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    for (let i = 0; i < 5; i++) expect(await verify(jwt)).toEqual({ userId, orgId: t.defaultOrgId });
    expect(calls).toHaveLength(1);

    const deactivated = await t.call('POST', `/management/v1/users/${userId}/_deactivate`, { body: {} });
    expect(deactivated.status).toBe(200);
    await expect(verify(jwt)).rejects.toMatchObject({ id: 'AUTH-7fs1e' });
    expect(calls).toHaveLength(2);
    expect((await t.call('POST', `/management/v1/users/${userId}/_reactivate`, { body: {} })).status).toBe(200);
  });

  it('looks an opaque token up on every call', async () => {
    const { calls, read } = countingReader();
    const verify = oauthAccessTokenVerifier(read, t.store);
    for (let i = 0; i < 3; i++) expect(await verify('opaque-token-value')).toEqual({ userId, orgId: t.defaultOrgId });
    expect(calls).toHaveLength(3);
  });

  it('never looks a JWT up as a personal access token', async () => {
    let lookups = 0;
    const findOwnerByHash = t.store.read.tokens.findOwnerByHash;
    t.store.read.tokens.findOwnerByHash = async (hash) => {
      lookups++;
      return findOwnerByHash.call(t.store.read.tokens, hash);
    };
    try {
      const verify = personalAccessTokenVerifier(t.store);
      expect(await verify('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl')).toBeUndefined();
      expect(lookups).toBe(0);
      expect(await verify('not-a-known-pat')).toBeUndefined();
      expect(lookups).toBe(1);
    } finally {
      t.store.read.tokens.findOwnerByHash = findOwnerByHash;
    }
  });
});
