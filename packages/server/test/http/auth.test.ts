import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../src/auth/tokens.js';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const PATH = '/admin/v1/text/message/verifyemail/en';

describeEachStore('authentication with personal access tokens', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  const expect401 = async (res: Response) => {
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.code).toBe(16);
    expect(body.details[0].id).toMatch(/^AUTH-/);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
  };

  it('no token → 401', async () => {
    await expect401(await t.call('PUT', PATH, { token: null, body: { title: 'x' } }));
  });

  it('malformed header → 401', async () => {
    await expect401(await t.call('GET', PATH, { token: null, headers: { authorization: 'Basic abc' } }));
    await expect401(await t.call('GET', PATH, { token: null, headers: { authorization: 'Bearer' } }));
  });

  it('unknown token → 401', async () => {
    await expect401(await t.call('GET', PATH, { token: 'not-a-token' }));
  });

  it('expired token → 401', async () => {
    const { token } = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER'], expiresAt: new Date(Date.now() - 1000) });
    await expect401(await t.call('GET', PATH, { token }));
  });

  it('401 comes before validation: an unauthenticated request with a bad body is not told about the body', async () => {
    await expect401(await t.call('PUT', PATH, { token: null, body: { title: 'x'.repeat(500) } }));
  });

  it('a valid token of a user with no membership → 403', async () => {
    const { token } = await insertMachineUserWithToken(t);
    const res = await t.call('GET', PATH, { token });
    expect(res.status).toBe(403);
  });

  it('x-service-orgid naming an organisation that does not exist → 403', async () => {
    const res = await t.call('GET', PATH, { headers: { 'x-service-orgid': '12345' } });
    expect(res.status).toBe(403);
    expect((await res.json()).details[0].id).toBe('AUTH-Bs7Ds');
  });

  it('the scheme is case-insensitive and may be followed by several spaces (RFC 9110 §11.4)', async () => {
    for (const authorization of [`bearer ${t.adminToken}`, `BEARER ${t.adminToken}`, `bEaReR ${t.adminToken}`, `Bearer   ${t.adminToken}`]) {
      const res = await t.call('GET', PATH, { token: null, headers: { authorization } });
      expect(res.status, authorization.replace(t.adminToken, '<token>')).toBe(200);
    }
  });

  it('what is not `Bearer <token>` stays a 401: another scheme, no space, a token with a space', async () => {
    for (const authorization of [`Basic ${t.adminToken}`, `Bearer${t.adminToken}`, `Bearers ${t.adminToken}`, `Bearer ${t.adminToken} x`]) {
      await expect401(await t.call('GET', PATH, { token: null, headers: { authorization } }));
    }
  });

  it('the admin token of the bootstrap works', async () => {
    expect((await t.call('GET', PATH)).status).toBe(200);
  });
});

describe('generated tokens', () => {
  it('are 43 base64url characters and never begin with "-" (they follow `--token` on command lines)', () => {
    // Without the rule about 1 in 64 would: among 2,000, at least one almost surely.
    const tokens = Array.from({ length: 2000 }, generateToken);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
