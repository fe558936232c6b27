/**
 * Issue 12 (organisation domains): a domain is added, validated over HTTP against a server on
 * loopback (ZITADEL's challenge path), made primary, and the users' login names follow it; the
 * domain policy's validateOrgDomains guards the primary; domains are exported and imported.
 */

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findLoginUser } from '../../src/domain/login/password-login.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('organisation domains', (dialect) => {
  let t: TestInstance;
  let web: Server;
  /** What the loopback web server answers at the challenge path: token → body. */
  const published = new Map<string, string>();
  const requested: string[] = [];
  const orgId = `${Date.now() % 1_000_000_000}5`;
  const headers = { 'x-service-orgid': orgId };
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { headers, body });

  beforeAll(async () => {
    web = createServer((req, res) => {
      requested.push(req.url ?? '');
      const token = /^\/\.well-known\/zitadel-challenge\/(.+)\.txt$/.exec(req.url ?? '')?.[1];
      const body = token ? published.get(token) : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/plain' }).end(body ?? 'not here');
    });
    web.listen(0, '127.0.0.1');
    await once(web, 'listening');
    t = await createTestInstance(dialect, { domainChecks: { scheme: 'http', port: (web.address() as AddressInfo).port, timeoutMs: 2_000 } });
    const imported = await t.call('POST', '/admin/v1/import', {
      body: {
        timeout: '1m',
        data_orgs: {
          orgs: [
            {
              orgId,
              org: { name: 'Domain Corp' },
              humanUsers: [{ userId: `${orgId}1`, user: { userName: 'dora', profile: { firstName: 'Do', lastName: 'Ra' }, email: { email: 'dora@example.com', isEmailVerified: true } } }],
            },
          ],
        },
      },
    });
    expect((await imported.json()).errors ?? []).toEqual([]);
  });
  afterAll(async () => {
    await new Promise((r) => web?.close(r));
    await t?.close();
  });

  const domains = async () => (await (await call('POST', '/management/v1/orgs/me/domains/_search', {})).json()).result;

  it('adds a domain, validates it over HTTP, makes it primary: the login names follow', async () => {
    expect(await domains()).toEqual([expect.objectContaining({ domainName: 'domain-corp.localhost', isVerified: true, isPrimary: true })]);
    expect((await call('POST', '/management/v1/orgs/me/domains', { domain: 'not a domain' })).status).toBe(400);
    expect((await call('POST', '/management/v1/orgs/me/domains', { domain: '127.0.0.1' })).status).toBe(200);
    expect((await call('POST', '/management/v1/orgs/me/domains', { domain: '127.0.0.1' })).status).toBe(409);
    expect(await domains()).toContainEqual(expect.objectContaining({ domainName: '127.0.0.1', isVerified: false, isPrimary: false }));

    // The default domain policy validates domains: an unverified one cannot become primary.
    const early = await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/_set_primary', {});
    expect(early.status).toBe(400);
    expect((await early.json()).details[0].id).toBe('ORG-Ggd32');
    // Nothing generated yet.
    expect((await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/validation/_validate', {})).status).toBe(400);

    const generated = await (await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/validation/_generate', { type: 'DOMAIN_VALIDATION_TYPE_HTTP' })).json();
    expect(generated.url).toBe(`http://127.0.0.1:${(web.address() as AddressInfo).port}/.well-known/zitadel-challenge/${generated.token}.txt`);
    // Not published yet: the server answers 404, and the error says so.
    const notYet = await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/validation/_validate', {});
    expect(notYet.status).toBe(400);
    expect((await notYet.json()).message).toMatch(/answered 404/);
    published.set(generated.token, 'another value');
    expect((await (await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/validation/_validate', {})).json()).message).toMatch(/does not answer the token/);
    published.set(generated.token, generated.token);
    expect((await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/validation/_validate', {})).status).toBe(200);
    expect(requested.at(-1)).toBe(`/.well-known/zitadel-challenge/${generated.token}.txt`);
    expect(await domains()).toContainEqual(expect.objectContaining({ domainName: '127.0.0.1', isVerified: true, validationType: 'DOMAIN_VALIDATION_TYPE_HTTP' }));

    expect((await findLoginUser(t.store.read, t.instanceId, 'dora@domain-corp.localhost'))?.id).toBe(`${orgId}1`);
    expect((await call('POST', '/management/v1/orgs/me/domains/127.0.0.1/_set_primary', {})).status).toBe(200);
    const user = (await (await call('GET', `/management/v1/users/${orgId}1`)).json()).user;
    expect(user.preferredLoginName).toBe('dora@127.0.0.1');
    // One login name per verified domain, the primary one first (ZITADEL's login names).
    expect(user.loginNames).toEqual(['dora@127.0.0.1', 'dora@domain-corp.localhost']);
    expect((await findLoginUser(t.store.read, t.instanceId, 'dora@127.0.0.1'))?.id).toBe(`${orgId}1`);
    expect((await findLoginUser(t.store.read, t.instanceId, 'dora@domain-corp.localhost'))?.id).toBe(`${orgId}1`);
    expect(await findLoginUser(t.store.read, t.instanceId, 'dora@no-such-domain.invalid')).toBeUndefined();
    // The primary one cannot be removed; the generated one can, now.
    expect((await call('DELETE', '/management/v1/orgs/me/domains/127.0.0.1')).status).toBe(400);
    expect((await call('DELETE', '/management/v1/orgs/me/domains/unknown.example')).status).toBe(404);
  });

  it('a DNS validation without the TXT record fails with a clear error, within its timeout', async () => {
    expect((await call('POST', '/management/v1/orgs/me/domains', { domain: 'no-such-domain.invalid' })).status).toBe(200);
    const generated = await (await call('POST', '/management/v1/orgs/me/domains/no-such-domain.invalid/validation/_generate', { type: 'DOMAIN_VALIDATION_TYPE_DNS' })).json();
    expect(generated.url).toBe('_zitadel-challenge.no-such-domain.invalid');
    const started = Date.now();
    const res = await call('POST', '/management/v1/orgs/me/domains/no-such-domain.invalid/validation/_validate', {});
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/TXT record/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('exports every domain with its flags; an import into a fresh instance keeps them, the primary one included', async () => {
    const exported = await (await t.call('POST', '/admin/v1/export', { body: { org_ids: [orgId], timeout: '1m', response_output: true } })).json();
    // The generated domain is the instance's, marked so; the target gives the organisation its own.
    expect(exported.orgs[0].domains).toEqual(
      expect.arrayContaining([
        { orgId, domainName: 'domain-corp.localhost', isVerified: true, isPrimary: false, validationType: 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED', identityServiceGenerated: true },
        { orgId, domainName: '127.0.0.1', isVerified: true, isPrimary: true, validationType: 'DOMAIN_VALIDATION_TYPE_HTTP' },
      ]),
    );
    const target = await createTestInstance(dialect);
    try {
      const imported = await (await target.call('POST', '/admin/v1/import', { body: { timeout: '1m', data_orgs: exported } })).json();
      expect(imported.errors ?? []).toEqual([]);
      const again = await (await target.call('POST', '/admin/v1/export', { body: { org_ids: [orgId], timeout: '1m', response_output: true } })).json();
      expect(again).toEqual(exported);
      expect((await findLoginUser(target.store.read, target.instanceId, 'dora@127.0.0.1'))?.id).toBe(`${orgId}1`);
    } finally {
      await target.close();
    }
  });
});
