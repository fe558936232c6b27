/**
 * Whole service accounts between two instances of this service (issue 49): exported from instance A
 * with `withKeys`, imported into instance B (another instance domain), a machine user keeps working
 * with what A gave it — its personal access token authenticates at B's API, its client secret gets a
 * client-credentials token from B's token endpoint (openid-client) — its user grant keeps its id,
 * and the domain A generated for the organisation is not one of B's verified domains (B generated
 * its own). Without `withKeys` no credential leaves A; the document never holds a token or secret.
 */
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const options = { execute: [oc.allowInsecureRequests] };

describeEachStore('service accounts moved between instances', (dialect) => {
  let a: OidcTestServer;
  let b: OidcTestServer;
  let orgId: string;
  let robot: string;
  let pat: string;
  let secret: { clientId: string; clientSecret: string };
  let grantId: string;
  let exported: { orgs: Record<string, any>[] };

  beforeAll(async () => {
    [a, b] = await Promise.all([startOidcServer(dialect, { instanceDomain: 'source.example' }), startOidcServer(dialect, { instanceDomain: 'target.example' })]);
    orgId = (await a.api('POST', '/management/v1/orgs', { name: 'Robots Inc' })).body.id;
    const inOrg = { 'x-service-orgid': orgId };
    const projectId = (await a.api('POST', '/management/v1/projects', { name: 'fleet' }, undefined, inOrg)).body.id;
    expect((await a.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'driver', displayName: 'Driver' }, undefined, inOrg)).status).toBe(200);
    robot = (await a.api('POST', '/management/v1/users/machine', { userName: 'robot', name: 'Robot' }, undefined, inOrg)).body.userId;
    expect((await a.api('POST', '/management/v1/orgs/me/members', { userId: robot, roles: ['ORG_OWNER'] }, undefined, inOrg)).status).toBe(200);
    pat = (await a.api('POST', `/management/v1/users/${robot}/pats`, {}, undefined, inOrg)).body.token;
    secret = (await a.api('PUT', `/management/v1/users/${robot}/secret`, undefined, undefined, inOrg)).body;
    const grant = await a.api('POST', `/management/v1/users/${robot}/grants`, { projectId, roleKeys: ['driver'] }, undefined, inOrg);
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    grantId = grant.body.userGrantId;
    expect(pat && secret.clientSecret && grantId).toBeTruthy();
    const res = await a.api('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, with_keys: true, timeout: '1m', response_output: true });
    expect(res.status).toBe(200);
    exported = res.body;
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('carries hashes only, and only with withKeys', async () => {
    const org = exported.orgs[0];
    expect(org.identityServicePersonalAccessTokens).toEqual([
      { tokenId: expect.any(String), userId: robot, expirationDate: '9999-12-31T23:59:59.000Z', tokenHash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
    ]);
    expect(org.identityServiceMachineSecrets).toEqual([{ userId: robot, clientId: secret.clientId, clientSecretHash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) }]);
    const text = JSON.stringify(exported);
    expect(text).not.toContain(pat);
    expect(text).not.toContain(secret.clientSecret);
    const withoutKeys = (await a.api('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, timeout: '1m', response_output: true })).body.orgs[0];
    expect(withoutKeys.identityServicePersonalAccessTokens).toBeUndefined();
    expect(withoutKeys.identityServiceMachineSecrets).toBeUndefined();
    // The generated domain is marked as the exporting instance's.
    expect(org.domains).toEqual([
      { orgId, domainName: 'robots-inc.source.example', isVerified: true, isPrimary: true, validationType: 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED', identityServiceGenerated: true },
    ]);
  });

  it("at B the machine user authenticates with A's token and client secret, its grant keeps its id, and A's generated domain is not B's", async () => {
    const res = await b.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: exported });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors ?? []).toEqual([]);
    expect(res.body.success.orgs[0]).toMatchObject({ personalAccessTokens: [exported.orgs[0].identityServicePersonalAccessTokens[0].tokenId], machineSecrets: [robot] });
    expect(res.body.summaryByType.domain).toMatchObject({ skipped: 1, created: 0 });

    // The personal access token: B's API takes it, as the organisation's owner.
    const me = await b.api('GET', '/management/v1/orgs/me', undefined, pat, { 'x-service-orgid': orgId });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.org.id).toBe(orgId);

    // The client secret: a client-credentials token from B, which B's API takes too.
    const config = await oc.discovery(new URL(b.issuer), secret.clientId, undefined, oc.ClientSecretBasic(secret.clientSecret), options);
    // The API's audience scope: a token for the API, not only an ID token's subject.
    const token = (await oc.clientCredentialsGrant(config, { scope: 'openid urn:service:iam:org:project:id:service:aud' })).access_token;
    expect((await b.api('GET', '/management/v1/orgs/me', undefined, token, { 'x-service-orgid': orgId })).status).toBe(200);

    // The user grant: the same id.
    expect((await b.t.store.read.userGrants.search({ orgId, userId: robot, limit: 10, offset: 0, asc: true })).rows.map((g) => g.id)).toEqual([grantId]);
    expect((await b.api('GET', `/management/v1/users/${robot}/grants/${grantId}`, undefined, undefined, { 'x-service-orgid': orgId })).status).toBe(200);

    // Domains: B's own generated one, verified and primary; nothing of A's.
    const domains = await b.t.store.read.orgDomains.list(orgId);
    expect(domains.map((d) => [d.domain, d.isVerified, d.isPrimary])).toEqual([['robots-inc.target.example', true, true]]);
  });

  it('a second import finds every credential there (SKIP: skipped, no error); one of another machine user is refused', async () => {
    const again = await b.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: exported, conflictPolicy: 'SKIP' });
    expect(again.body.errors ?? []).toEqual([]);
    expect(again.body.summaryByType.personal_access_token).toMatchObject({ skipped: 1, created: 0 });
    expect(again.body.summaryByType.machine_secret).toMatchObject({ skipped: 1, created: 0 });

    // The same token hash and client id claimed for another machine user of the organisation.
    const stolen = structuredClone(exported);
    const org = stolen.orgs[0];
    org.machineUsers = [{ userId: '990000000000000001', user: { userName: 'impostor', name: 'Impostor' } }];
    org.identityServicePersonalAccessTokens = [{ ...org.identityServicePersonalAccessTokens[0], tokenId: '990000000000000002', userId: '990000000000000001' }];
    org.identityServiceMachineSecrets = [{ ...org.identityServiceMachineSecrets[0], userId: '990000000000000001' }];
    const refused = await b.api('POST', '/admin/v1/import', { timeout: '1m', data_orgs: stolen, conflictPolicy: 'SKIP' });
    expect(refused.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'personal_access_token', id: '990000000000000002', message: expect.stringContaining('IMPORT-p4tTk') }),
        expect.objectContaining({ type: 'machine_secret', id: '990000000000000001', message: expect.stringContaining('IMPORT-cl1d0') }),
      ]),
    );
  });
});
