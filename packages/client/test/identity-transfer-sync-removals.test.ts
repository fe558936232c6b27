/**
 * identity-transfer sync carries removals of every kind (issue 51), between two whole services on
 * loopback ports, on SQLite and PostgreSQL: a resource removed at the source — a project, an
 * application and its key, a role, a member of the organisation, of a project and of a project grant,
 * a project grant, a domain, an identity provider, a user's metadata, link, authenticator app,
 * machine key, token and secret, a policy and texts set back to the defaults — is gone at the
 * target after one round (`--once`), removed there through the target's own API (with its event);
 * one removed and added again stays; the round repeated from the old checkpoint (a kill -9 before
 * the checkpoint was written) changes nothing. A removal of what the target changed too follows the
 * conflict policy. An organisation removed at the source is removed at the target and followed no more.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { totpCode } from '@identity-service/server/src/domain/login/totp.js';
import { confirmOtpEnrolment, startOtpEnrolment } from '@identity-service/server/src/domain/users/otp-enrolment.js';
import { processSecretBox } from '@identity-service/server/src/secrets/secret-box.js';
import { describeEachStore, insertMachineUserWithToken } from '@identity-service/server/test/support/instance.js';
import { type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliIo } from '../src/cli/identity-transfer.js';
import { type SyncOptions, sync } from '../src/cli/sync.js';

function capture(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, tty: false, progressEveryMs: 0, stdout: (l) => out.push(l), stderr: (l) => err.push(l) };
}

type Doc = Record<string, unknown[] | undefined> & { orgId: string };
type Item = Record<string, any>;

describeEachStore('identity-transfer sync: removals of every kind', (dialect) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let dir: string;
  let orgId: string;
  let partnerId: string;
  /** The sync's token at the target: a service user of its own, so the admin's changes there are local ones. */
  let follower: string;
  const ids: Record<string, string> = {};
  const inOrg = (id: string) => ({ 'x-service-orgid': id });
  const ok = async (s: OidcTestServer, method: string, path: string, body?: unknown, org: string | undefined = orgId) => {
    const res = await s.api(method, path, body, undefined, org ? inOrg(org) : {});
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const round = async (file: string, conflictPolicy: SyncOptions['conflictPolicy'] = 'OVERWRITE', orgs = [orgId, partnerId]) => {
    const io = capture();
    const code = await sync(io, {
      from: { url: source.issuer, token: source.t.adminToken },
      to: { url: target.issuer, token: follower },
      orgs,
      withPasswords: true,
      withOtp: true,
      withKeys: true,
      conflictPolicy,
      checkpointFile: join(dir, file),
      intervalMs: 0,
      once: true,
      timeout: '1m',
    });
    return { code, io };
  };
  /** The organisation as an instance's full export holds it (every list, keys and second factors included). */
  const at = async (s: OidcTestServer, org = orgId): Promise<Doc> => {
    const res = await s.api('POST', '/admin/v1/export', { orgIds: [org, partnerId], withPasswords: true, withOtp: true, withKeys: true, responseOutput: true, timeout: '1m' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.orgs.find((o: Doc) => o.orgId === org);
  };
  const lastEventAt = async (s: OidcTestServer) => (await s.t.store.read.events.search({ limit: 1, offset: 0, asc: false })).events[0]?.position;

  beforeAll(async () => {
    [source, target] = await Promise.all([startOidcServer(dialect, { instanceDomain: 'source.example' }), startOidcServer(dialect, { instanceDomain: 'target.example' })]);
    dir = mkdtempSync(join(tmpdir(), 'sync-removals-'));
    follower = (await insertMachineUserWithToken(target.t, { instanceRoles: ['IAM_OWNER'] })).token;
    orgId = (await ok(source, 'POST', '/management/v1/orgs', { name: 'Removals Co' })).id;
    partnerId = (await ok(source, 'POST', '/management/v1/orgs', { name: 'Partner Co' })).id;
    const human = async (userName: string, org = orgId) =>
      (
        await ok(
          source,
          'POST',
          '/management/v1/users/human/_import',
          {
            userName,
            profile: { firstName: userName, lastName: 'Removals' },
            email: { email: `${userName}@removals.example.com`, isEmailVerified: true },
            password: 'Removals-Pass-1!',
            passwordChangeRequired: false,
          },
          org,
        )
      ).userId as string;
    ids.ann = await human('ann');
    ids.bob = await human('bob');
    ids.carl = await human('carl', partnerId);
    ids.dora = await human('dora');
    ids.robot = (await ok(source, 'POST', '/management/v1/users/machine', { userName: 'robot', name: 'robot' })).userId;
    await ok(source, 'POST', `/management/v1/users/${ids.ann}/metadata/team`, { value: Buffer.from('blue').toString('base64') });
    const box = processSecretBox();
    const enrolment = await startOtpEnrolment(source.t.store, box, { userId: ids.ann, instanceId: source.t.instanceId, issuerName: 'source.example' });
    await confirmOtpEnrolment(source.t.store, box, ids.ann, totpCode(enrolment.secret));
    ids.machineKey = (await ok(source, 'POST', `/management/v1/users/${ids.robot}/keys`, { type: 'KEY_TYPE_JSON' })).keyId;
    ids.pat = (await ok(source, 'POST', `/management/v1/users/${ids.robot}/pats`, {})).tokenId;
    await ok(source, 'PUT', `/management/v1/users/${ids.robot}/secret`, {});
    ids.project = (await ok(source, 'POST', '/management/v1/projects', { name: 'shop' })).id;
    ids.oldProject = (await ok(source, 'POST', '/management/v1/projects', { name: 'old shop' })).id;
    for (const roleKey of ['buyer', 'seller', 'auditor']) await ok(source, 'POST', `/management/v1/projects/${ids.project}/roles`, { roleKey, displayName: roleKey });
    ids.app = (
      await ok(source, 'POST', `/management/v1/projects/${ids.project}/apps/oidc`, {
        name: 'portal',
        redirectUris: ['http://127.0.0.1:1/callback'],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
        devMode: true,
      })
    ).appId;
    ids.apiApp = (await ok(source, 'POST', `/management/v1/projects/${ids.project}/apps/api`, { name: 'backend', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).appId;
    ids.appKey = (await ok(source, 'POST', `/management/v1/projects/${ids.project}/apps/${ids.apiApp}/keys`, { type: 'KEY_TYPE_JSON' })).id;
    await ok(source, 'POST', `/management/v1/projects/${ids.project}/members`, { userId: ids.bob, roles: ['PROJECT_OWNER'] });
    ids.projectGrant = (await ok(source, 'POST', `/management/v1/projects/${ids.project}/grants`, { grantedOrgId: partnerId, roleKeys: ['buyer'] })).grantId;
    ids.keptGrant = (await ok(source, 'POST', `/management/v1/projects/${ids.oldProject}/grants`, { grantedOrgId: partnerId, roleKeys: [] })).grantId;
    await ok(source, 'POST', `/management/v1/projects/${ids.project}/grants/${ids.projectGrant}/members`, { userId: ids.carl, roles: ['PROJECT_GRANT_OWNER'] });
    await ok(source, 'POST', '/management/v1/orgs/me/members', { userId: ids.bob, roles: ['ORG_USER_MANAGER'] });
    await ok(source, 'POST', '/management/v1/orgs/me/domains', { domain: 'shop.removals.example.com' });
    ids.idp = (await ok(source, 'POST', '/management/v1/idps/oidc', { name: 'partner login', clientId: 'partner', clientSecret: 'partner-secret', issuer: 'https://partner.example.com' })).idpId;
    await source.t.store.transaction((tx) => tx.idpLinks.insert({ idpId: ids.idp!, externalUserId: 'ann-at-partner', userId: ids.ann!, orgId, externalUserName: 'ann', createdAt: new Date() }));
    await ok(source, 'POST', '/management/v1/policies/lockout', { maxPasswordAttempts: 7 });
    await ok(source, 'PUT', '/management/v1/text/login/de', { loginText: { title: 'Anmelden' } });
    await ok(source, 'PUT', '/management/v1/text/message/init/de', { title: 'Willkommen' });
    ids.userGrant = (await ok(source, 'POST', `/management/v1/users/${ids.ann}/grants`, { projectId: ids.project, roleKeys: ['buyer', 'auditor'] })).userGrantId;
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const has = (list: unknown[] | undefined, match: (item: Item) => boolean) => (list ?? []).some((item) => match(item as Item));
  const user = (d: Doc, userId: string) => (d.humanUsers ?? []).find((u) => (u as Item).userId === userId) as Item | undefined;
  /** Each kind: its removal at the source, and whether an organisation's document still holds it. */
  const KINDS: { kind: string; remove: () => Promise<unknown>; present: (d: Doc) => boolean }[] = [
    { kind: 'user_metadata', remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.ann}/metadata/team`), present: (d) => has(d.userMetadata, (m) => m.id === ids.ann && m.key === 'team') },
    { kind: 'otp', remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.ann}/auth_factors/otp`), present: (d) => user(d, ids.ann!)?.user.otpCode !== undefined },
    { kind: 'idp_link', remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.ann}/idps/${ids.idp}/ann-at-partner`), present: (d) => has(d.userLinks, (l) => l.userId === ids.ann) },
    {
      kind: 'user_grant',
      remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.ann}/grants/${ids.userGrant}`),
      present: (d) => has(d.userGrants, (g) => g.identityServiceGrantId === ids.userGrant),
    },
    { kind: 'machine_key', remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.robot}/keys/${ids.machineKey}`), present: (d) => has(d.machineKeys, (k) => k.keyId === ids.machineKey) },
    {
      kind: 'personal_access_token',
      remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.robot}/pats/${ids.pat}`),
      present: (d) => has(d.identityServicePersonalAccessTokens, (t) => t.tokenId === ids.pat),
    },
    { kind: 'machine_secret', remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.robot}/secret`), present: (d) => has(d.identityServiceMachineSecrets, (x) => x.userId === ids.robot) },
    { kind: 'project_role', remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.project}/roles/seller`), present: (d) => has(d.projectRoles, (r) => r.roleKey === 'seller') },
    { kind: 'app', remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.project}/apps/${ids.app}`), present: (d) => has(d.oidcApps, (a) => a.appId === ids.app) },
    { kind: 'app_key', remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.project}/apps/${ids.apiApp}/keys/${ids.appKey}`), present: (d) => has(d.appKeys, (k) => k.id === ids.appKey) },
    { kind: 'project_member', remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.project}/members/${ids.bob}`), present: (d) => has(d.projectMembers, (m) => m.userId === ids.bob) },
    {
      kind: 'project_grant_member',
      remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.project}/grants/${ids.projectGrant}/members/${ids.carl}`),
      present: (d) => has(d.projectGrantMembers, (m) => m.userId === ids.carl),
    },
    {
      kind: 'project_grant',
      remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.project}/grants/${ids.projectGrant}`),
      present: (d) => has(d.projectGrants, (g) => g.grantId === ids.projectGrant),
    },
    { kind: 'org_member', remove: () => ok(source, 'DELETE', `/management/v1/orgs/me/members/${ids.bob}`), present: (d) => has(d.orgMembers, (m) => m.userId === ids.bob) },
    {
      kind: 'org_domain',
      remove: () => ok(source, 'DELETE', '/management/v1/orgs/me/domains/shop.removals.example.com'),
      present: (d) => has(d.domains, (x) => x.domainName === 'shop.removals.example.com'),
    },
    { kind: 'idp', remove: () => ok(source, 'DELETE', `/management/v1/idps/${ids.idp}`), present: (d) => has(d.oidcIdps, (x) => x.idpId === ids.idp) },
    { kind: 'policy', remove: () => ok(source, 'DELETE', '/management/v1/policies/lockout'), present: (d) => d.lockoutPolicy !== undefined },
    { kind: 'login_texts', remove: () => ok(source, 'DELETE', '/management/v1/text/login/de'), present: (d) => has(d.loginTexts, (x) => x.language === 'de') },
    { kind: 'message_text', remove: () => ok(source, 'DELETE', '/management/v1/text/message/init/de'), present: (d) => has(d.initMessages, (x) => x.language === 'de') },
    // With its grant to the partner (a cascade at both sides).
    {
      kind: 'project',
      remove: () => ok(source, 'DELETE', `/management/v1/projects/${ids.oldProject}`),
      present: (d) => has(d.projects, (x) => x.projectId === ids.oldProject) || has(d.projectGrants, (g) => g.grantId === ids.keptGrant),
    },
    { kind: 'user', remove: () => ok(source, 'DELETE', `/management/v1/users/${ids.dora}`), present: (d) => user(d, ids.dora!) !== undefined },
  ];
  const presentAt = async (s: OidcTestServer) => {
    const d = await at(s);
    return KINDS.filter((k) => k.present(d)).map((k) => k.kind);
  };

  it('each kind removed at the source is gone at the target after one round; given back, it stays; a round again changes nothing', async () => {
    const copied = await round('every-kind.json');
    expect(copied.code, copied.io.err.join('\n')).toBe(0);
    const everyKind = KINDS.map((k) => k.kind);
    expect(await presentAt(target)).toEqual(everyKind);

    for (const k of KINDS) await k.remove();
    // Removed and given back at the source: the target keeps it (its role key, its member).
    await ok(source, 'DELETE', `/management/v1/projects/${ids.project}/roles/buyer`);
    await ok(source, 'POST', `/management/v1/projects/${ids.project}/roles`, { roleKey: 'buyer', displayName: 'Buyer again' });
    expect(await presentAt(source)).toEqual([]);
    const before = readFileSync(join(dir, 'every-kind.json'), 'utf8');

    const applied = await round('every-kind.json');
    expect(applied.code, applied.io.err.join('\n')).toBe(0);
    expect(applied.io.err).toEqual([]);
    expect(await presentAt(target)).toEqual([]);
    const roles = (await at(target)).projectRoles as Item[];
    expect(roles.map((r) => [r.roleKey, r.displayName])).toEqual([
      ['auditor', 'auditor'],
      ['buyer', 'Buyer again'],
    ]);
    // Removed through the target's own operations, each with its event.
    const removals = (
      await target.t.store.read.events.search({ limit: 200, offset: 0, asc: true, eventTypes: ['project.removed', 'org.domain.removed', 'user.metadata.removed', 'org.policy.lockout.removed'] })
    ).events;
    expect(removals.map((e) => e.type).sort()).toEqual(['org.domain.removed', 'org.policy.lockout.removed', 'project.removed', 'user.metadata.removed']);

    // A second round, and the same round again from the old checkpoint (a kill -9 after the
    // removals, before the checkpoint was written): nothing changes at the target.
    const last = await lastEventAt(target);
    const again = await round('every-kind.json');
    expect(again.code).toBe(0);
    expect(again.io.out.join('\n')).not.toContain('removed at the target');
    writeFileSync(join(dir, 'every-kind.json'), before);
    const repeated = await round('every-kind.json');
    expect(repeated.code, repeated.io.err.join('\n')).toBe(0);
    expect(repeated.io.err).toEqual([]);
    expect(repeated.io.out.join('\n')).not.toContain('removed at the target');
    expect(await lastEventAt(target)).toBe(last);
    expect(await presentAt(target)).toEqual([]);
  }, 120_000);

  it('a removal of what the target changed too follows the conflict policy: the target\u2019s kept (SKIP), the source\u2019s applied (OVERWRITE)', async () => {
    const file = 'conflict.json';
    expect((await round(file)).code).toBe(0);
    // The target renames the project (a local change of the organisation's resources); the source removes a role of it.
    await ok(target, 'PUT', `/management/v1/projects/${ids.project}`, { name: 'shop at the target' });
    await ok(source, 'DELETE', `/management/v1/projects/${ids.project}/roles/auditor`);
    const rolesAt = async (s: OidcTestServer) => ((await at(s)).projectRoles as Item[]).map((r) => r.roleKey);
    const skipped = await round(file, 'SKIP');
    expect(skipped.code, skipped.io.err.join('\n')).toBe(0);
    expect(skipped.io.out).toContain('changed at the target too, kept there: 1 resource(s)');
    expect(await rolesAt(target)).toContain('auditor');
    // Again under OVERWRITE: the source's removal wins (what SKIP kept stays the target's).
    await ok(target, 'PUT', `/management/v1/projects/${ids.project}`, { name: 'shop at the target again' });
    await ok(source, 'DELETE', `/management/v1/projects/${ids.project}/roles/buyer`);
    const overwritten = await round(file, 'OVERWRITE');
    expect(overwritten.code, overwritten.io.err.join('\n')).toBe(0);
    expect(overwritten.io.out).toContain(`changed at the target too, overwritten with the source's: org_resources ${orgId}`);
    expect(await rolesAt(target)).toEqual(['auditor']);
  }, 120_000);

  it('an organisation removed at the source is removed at the target and followed no more; with none left, sync stops with 0', async () => {
    const file = 'org.json';
    expect((await round(file)).code).toBe(0);
    await ok(source, 'DELETE', '/management/v1/orgs/me');
    const removed = await round(file);
    expect(removed.code, removed.io.err.join('\n')).toBe(0);
    expect(removed.io.out).toContain(`organisation ${orgId} was removed at the source: removed at the target, no longer followed`);
    expect((await target.api('GET', '/management/v1/orgs/me', undefined, undefined, inOrg(orgId))).status).toBe(403);
    expect(JSON.parse(readFileSync(join(dir, file), 'utf8'))).toMatchObject({ removedOrgs: [orgId] });
    // The partner is still followed: its changes arrive.
    const erin = (await ok(source, 'POST', '/management/v1/users/machine', { userName: 'erin', name: 'erin' }, partnerId)).userId;
    const next = await round(file);
    expect(next.code, next.io.err.join('\n')).toBe(0);
    expect((await target.api('GET', `/management/v1/users/${erin}`, undefined, undefined, inOrg(partnerId))).status).toBe(200);
    // The partner removed too: nothing left to follow.
    await ok(source, 'DELETE', '/management/v1/orgs/me', undefined, partnerId);
    expect((await round(file)).code).toBe(0);
    expect((await target.api('GET', '/management/v1/orgs/me', undefined, undefined, inOrg(partnerId))).status).toBe(403);
    const done = await round(file);
    expect(done.code).toBe(0);
    expect(done.io.out).toContain('sync: every organisation followed was removed at the source; nothing left to follow');
  }, 120_000);
});
