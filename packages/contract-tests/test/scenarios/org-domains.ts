import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

/** The organisation's domains: every documented status (validation against the harness's loopback server). */
export function orgDomainScenarios(h: () => Harness) {
  it('organisation domains: add, list, generate, validate, set primary, remove; 400, 401, 403, 404, 409', async () => {
    const { admin, anonymous } = h();
    const a = (await admin.POST('/management/v1/orgs', { body: { name: `domains-a-${Date.now()}` } })).data!.id;
    const b = (await admin.POST('/management/v1/orgs', { body: { name: `domains-b-${Date.now()}` } })).data!.id;
    const inA = h().clientFor(h().instance.adminToken, a);
    const inB = h().clientFor(h().instance.adminToken, b);
    const d = (domain: string) => ({ params: { path: { domain } } });
    const LOOP = '127.0.0.1';

    expect((await inA.POST('/management/v1/orgs/me/domains', { body: { domain: 'a.example.com' } })).response.status).toBe(200);
    expect((await inA.POST('/management/v1/orgs/me/domains', { body: { domain: 'a.example.com' } })).response.status).toBe(409);
    expect((await inA.POST('/management/v1/orgs/me/domains', { body: { domain: 'no domain' } })).response.status).toBe(400);
    const list = await inA.POST('/management/v1/orgs/me/domains/_search', { body: {} });
    expect(list.response.status).toBe(200);
    expect(list.data?.result.map((x) => x.domainName)).toContain('a.example.com');
    expect((await inA.POST('/management/v1/orgs/me/domains/_search', { body: { query: { limit: -1 } } })).response.status).toBe(400);

    // Generate: 200, 400 (type), 404; validate 400 (nothing generated), 404.
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/validation/_generate', { ...d('a.example.com'), body: { type: 'nope' as never } })).response.status).toBe(400);
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/validation/_generate', { ...d('missing.example.com'), body: { type: 'DOMAIN_VALIDATION_TYPE_DNS' } })).response.status).toBe(404);
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/validation/_validate', { ...d('a.example.com'), body: {} })).response.status).toBe(400);
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/validation/_validate', { ...d('missing.example.com'), body: {} })).response.status).toBe(404);
    const generated = await inA.POST('/management/v1/orgs/me/domains/{domain}/validation/_generate', { ...d('a.example.com'), body: { type: 'DOMAIN_VALIDATION_TYPE_DNS' } });
    expect(generated.response.status).toBe(200);
    expect(generated.data?.url).toBe('_zitadel-challenge.a.example.com');

    // Both add the loopback domain; B verifies it first, so A's validation finds it taken → 409.
    expect((await inA.POST('/management/v1/orgs/me/domains', { body: { domain: LOOP } })).response.status).toBe(200);
    expect((await inB.POST('/management/v1/orgs/me/domains', { body: { domain: LOOP } })).response.status).toBe(200);
    for (const c of [inB, inA])
      expect((await c.POST('/management/v1/orgs/me/domains/{domain}/validation/_generate', { ...d(LOOP), body: { type: 'DOMAIN_VALIDATION_TYPE_HTTP' } })).response.status).toBe(200);
    expect((await inB.POST('/management/v1/orgs/me/domains/{domain}/validation/_validate', { ...d(LOOP), body: {} })).response.status).toBe(200);
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/validation/_validate', { ...d(LOOP), body: {} })).response.status).toBe(409);

    // Set primary: 400 (unverified under the default domain policy), 404, 200 (B), 409 (A, once its policy allows unverified ones).
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/_set_primary', { ...d('a.example.com'), body: {} })).response.status).toBe(400);
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/_set_primary', { ...d('missing.example.com'), body: {} })).response.status).toBe(404);
    expect((await inB.POST('/management/v1/orgs/me/domains/{domain}/_set_primary', { ...d(LOOP), body: {} })).response.status).toBe(200);
    expect((await inA.POST('/management/v1/policies/domain', { body: { validateOrgDomains: false } })).response.status).toBe(200);
    expect((await inA.POST('/management/v1/orgs/me/domains/{domain}/_set_primary', { ...d(LOOP), body: {} })).response.status).toBe(409);

    // Remove: 200, 400 (the primary one), 404.
    expect((await inA.DELETE('/management/v1/orgs/me/domains/{domain}', d('a.example.com'))).response.status).toBe(200);
    expect((await inA.DELETE('/management/v1/orgs/me/domains/{domain}', d('a.example.com'))).response.status).toBe(404);
    expect((await inB.DELETE('/management/v1/orgs/me/domains/{domain}', d(LOOP))).response.status).toBe(400);

    const { client: outsider } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'] });
    for (const [c, status] of [
      [anonymous, 401],
      [outsider, 403],
    ] as const) {
      expect((await c.POST('/management/v1/orgs/me/domains', { body: { domain: 'x.example.com' } })).response.status).toBe(status);
      expect((await c.POST('/management/v1/orgs/me/domains/_search', { body: {} })).response.status).toBe(status);
      expect((await c.DELETE('/management/v1/orgs/me/domains/{domain}', d('x.example.com'))).response.status).toBe(status);
      expect((await c.POST('/management/v1/orgs/me/domains/{domain}/validation/_generate', { ...d('x.example.com'), body: { type: 'DOMAIN_VALIDATION_TYPE_HTTP' } })).response.status).toBe(status);
      expect((await c.POST('/management/v1/orgs/me/domains/{domain}/validation/_validate', { ...d('x.example.com'), body: {} })).response.status).toBe(status);
      expect((await c.POST('/management/v1/orgs/me/domains/{domain}/_set_primary', { ...d('x.example.com'), body: {} })).response.status).toBe(status);
    }
  });
}
