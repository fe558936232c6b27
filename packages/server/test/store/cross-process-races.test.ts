/**
 * Check-then-write races across processes (issue 33.3): two server processes (src/main.ts, each
 * with its own pool and group-commit runner) on one database, firing conflicting commands at once.
 * Within one process group commit runs one transaction after another, which hides these races; on
 * PostgreSQL's READ COMMITTED two processes' transactions both read the old state unless they take
 * the same lock (ARCHITECTURE.md, "Locks before checks"). On SQLite BEGIN IMMEDIATE already makes
 * each write transaction the only one: the same tests hold there too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/domain/login/totp.js';
import { Browser, loginThroughForm } from '../support/browser.js';
import { DIALECTS, freshPostgresDatabase } from '../support/instance.js';
import { authorizeUrl, publicClient } from '../support/oidc-server.js';
import { type ServerProcess, startServerProcessWithIssuer, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';

const ROUNDS = 12;
const REDIRECT = 'http://127.0.0.1:1/cb';
const MAX_PASSWORD_ATTEMPTS = 5;

describe.each(DIALECTS)('conflicting commands in two server processes on one database [%s]', (dialect) => {
  const servers: ServerProcess[] = [];
  const bases: string[] = [];
  let token: string;
  const stamp = Date.now() % 1_000_000_000;

  beforeAll(async () => {
    const dir = tempDir('identity-races-');
    const url = dialect === 'postgres' ? await freshPostgresDatabase() : `file:${join(dir, 'identity.db')}`;
    for (const n of [0, 1]) {
      const { server, base } = await startServerProcessWithIssuer({
        DATABASE_URL: url,
        ADMIN_PAT_FILE: join(dir, `admin-${n}.pat`),
        LOCKOUT_MAX_PASSWORD_ATTEMPTS: String(MAX_PASSWORD_ATTEMPTS),
      });
      servers.push(server);
      bases.push(base);
    }
    token = readFileSync(join(dir, 'admin-0.pat'), 'utf8').trim();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map(stopServerProcess));
  });

  /** A call to process `n` as the instance's administrator; JSON in and out. */
  async function call(n: number, method: string, path: string, body?: unknown, orgId?: string): Promise<{ status: number; body: any }> {
    const res = await fetch(bases[n] + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(orgId ? { 'x-service-orgid': orgId } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
  const importOrgs = (n: number, orgs: unknown[]) => call(n, 'POST', '/admin/v1/import', { timeout: '1m', data_orgs: { orgs } });
  async function eventTypes(aggregateId: string): Promise<string[]> {
    const res = await call(0, 'POST', '/admin/v1/events/_search', { aggregateId, asc: true, limit: 1000 });
    expect(res.status).toBe(200);
    return res.body.events.map((e: { type: { type: string } }) => e.type.type);
  }

  it('two imports bringing one verified primary domain: one organisation gets it, the other is told in `errors`', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const domain = `race-${stamp}-${round}.example.com`;
      const orgIds = [`${stamp}${round}01`, `${stamp}${round}02`];
      const org = (side: number) => ({
        orgId: orgIds[side],
        org: { name: `Domain race ${stamp} ${round} ${side}` },
        domains: [{ domainName: domain, isVerified: true, isPrimary: true, validationType: 'DOMAIN_VALIDATION_TYPE_DNS' }],
        machineUsers: [{ userId: `${orgIds[side]}9`, user: { userName: 'member', name: 'Member' } }],
      });
      const results = await Promise.all([0, 1].map((side) => importOrgs(side, [org(side)])));
      expect(results.map((r) => r.status)).toEqual([200, 200]);

      const verified: number[] = [];
      for (const side of [0, 1]) {
        const domains = (await call(0, 'POST', '/management/v1/orgs/me/domains/_search', {}, orgIds[side])).body.result;
        if (domains.some((d: { domainName: string; isVerified: boolean }) => d.domainName === domain && d.isVerified)) verified.push(side);
      }
      expect(verified, `round ${round}`).toHaveLength(1);
      const [winner] = verified;
      const loser = 1 - winner;
      // The loser's import reports the domain as taken, as it would have, run second.
      expect(results[loser].body.errors).toEqual([expect.objectContaining({ type: 'domain', id: `${orgIds[loser]}_${domain}`, message: expect.stringContaining('ORG-i2bsd') })]);
      expect(results[winner].body.errors).toBeUndefined();
      // user@domain names exactly one user: the winner's.
      const member = async (side: number) => (await call(0, 'GET', `/management/v1/users/${orgIds[side]}9`, undefined, orgIds[side])).body.user;
      expect((await member(winner)).preferredLoginName).toBe(`member@${domain}`);
      expect((await member(loser)).loginNames).not.toContain(`member@${domain}`);
    }
  }, 120_000);

  it('an import of a bare login name racing AddMachineUser of that name in another organisation: exactly one gets it', async () => {
    const bare = { userLoginMustBeDomain: false, validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: false };
    const added = await call(0, 'POST', '/management/v1/orgs', { name: `Bare names ${stamp}` });
    expect(added.status).toBe(200);
    const otherOrg = added.body.id;
    expect((await call(0, 'POST', '/management/v1/policies/domain', bare, otherOrg)).status).toBe(200);

    for (let round = 0; round < ROUNDS; round++) {
      // Four pairs at once per round; each process takes each side in turn.
      await Promise.all(
        [0, 1, 2, 3].map(async (pair) => {
          const userName = `bare-${stamp}-${round}-${pair}`;
          const orgId = `${stamp}${String(round).padStart(2, '0')}${pair}03`;
          const userId = `${orgId}9`;
          const [importing, adding] = (round + pair) % 2 ? [1, 0] : [0, 1];
          const [imported, machine] = await Promise.all([
            importOrgs(importing, [{ orgId, org: { name: `Bare import ${stamp} ${round} ${pair}` }, domainPolicy: bare, machineUsers: [{ userId, user: { userName, name: 'Imported' } }] }]),
            call(adding, 'POST', '/management/v1/users/machine', { userName, name: 'Added' }, otherOrg),
          ]);
          expect(imported.status).toBe(200);
          const importedIt = (imported.body.success.orgs?.[0]?.machineUserIds ?? []).includes(userId);
          const addedIt = machine.status === 200;
          expect(importedIt !== addedIt, `round ${round}, pair ${pair}: the import ${importedIt ? 'got' : 'lost'} the name, AddMachineUser answered ${machine.status}`).toBe(true);
          if (addedIt) {
            expect(imported.body.errors).toEqual([expect.objectContaining({ type: 'machine_user', id: userId, message: expect.stringContaining('COMMAND-k2unb') })]);
            expect((await call(0, 'GET', `/management/v1/users/${userId}`, undefined, orgId)).status).toBe(404);
          } else {
            expect(machine.status).toBe(409);
            expect(machine.body).toMatchObject({ code: 6, details: [expect.objectContaining({ id: 'COMMAND-k2unb' })] });
            expect(imported.body.errors).toBeUndefined();
          }
        }),
      );
    }
  }, 120_000);

  it(`wrong passwords split over both processes: exactly ${MAX_PASSWORD_ATTEMPTS} failures counted, then one lock`, async () => {
    const project = await call(0, 'POST', '/management/v1/projects', { name: `lockout ${stamp}` });
    expect(project.status).toBe(200);
    const app = await call(0, 'POST', `/management/v1/projects/${project.body.id}/apps/oidc`, publicClient('lockout', REDIRECT));
    expect(app.status).toBe(200);
    const authorize = (n: number) => {
      const url = new URL(authorizeUrl(bases[n], { client_id: app.body.clientId, redirect_uri: REDIRECT }));
      return url.href;
    };
    // A cheap hash (bcrypt cost 4): the test is about counting, not about hashing.
    const hashedPassword = { value: bcrypt.hashSync('Right-Passw0rd!', 4) };

    for (let round = 0; round < 4; round++) {
      const userName = `lock-${stamp}-${round}`;
      const user = await call(0, 'POST', '/management/v1/users/human/_import', {
        userName,
        profile: { firstName: 'Lock', lastName: 'Out' },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        hashedPassword,
      });
      expect(user.status).toBe(200);
      const pages = await Promise.all(Array.from({ length: 40 }, (_, i) => loginThroughForm(new Browser(), authorize(i % 2), REDIRECT, userName, 'wrong')));
      // 401 wrong password, 403 locked, 503 the process's password checks were all busy (nothing
      // counted); nothing else.
      expect(pages.map((p) => p.page?.status).filter((status) => ![401, 403, 503].includes(status!))).toEqual([]);
      const events = await eventTypes(user.body.userId);
      expect(
        {
          failures: events.filter((e) => e === 'user.human.password.check.failed').length,
          locks: events.filter((e) => e === 'user.locked').length,
        },
        `round ${round}`,
      ).toEqual({ failures: MAX_PASSWORD_ATTEMPTS, locks: 1 });
      expect(events.at(-1)).toBe('user.locked');
      expect((await call(1, 'GET', `/management/v1/users/${user.body.userId}`)).body.user.state).toBe('USER_STATE_LOCKED');
    }
  }, 180_000);

  it('wrong authenticator codes split over both processes: exactly three looked at, the rest refused by the code throttle (429)', async () => {
    const project = await call(0, 'POST', '/management/v1/projects', { name: `codes ${stamp}` });
    const app = await call(0, 'POST', `/management/v1/projects/${project.body.id}/apps/oidc`, publicClient('codes', REDIRECT));
    expect(app.status).toBe(200);
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const userName = `codes-${stamp}`;
    const user = await call(0, 'POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'Co', lastName: 'Des' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      hashedPassword: { value: bcrypt.hashSync('Right-Passw0rd!', 4) },
      otpCode: secret,
    });
    expect(user.status).toBe(200);
    // The password step in each process, then ten wrong codes to each at once (the default lockout
    // policy: wrong codes never lock).
    const steps = await Promise.all(
      [0, 1].map(async (n) => {
        const browser = new Browser();
        const step = await loginThroughForm(browser, authorizeUrl(bases[n], { client_id: app.body.clientId, redirect_uri: REDIRECT }), REDIRECT, userName, 'Right-Passw0rd!');
        const action = /<form method="post" action="([^"]+\/otp)"/.exec(step.page?.html ?? '')?.[1];
        expect(action, step.page?.html.slice(0, 300)).toBeDefined();
        return { browser, url: bases[n] + action };
      }),
    );
    const wrong = (i: number) => totpCode(secret, Date.now() + (10 + i) * 60_000);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => steps[i % 2].browser.follow(steps[i % 2].url, REDIRECT, { form: { code: wrong(i) } })));
    const statuses = answers.map((a) => a.res.status);
    expect(statuses.filter((st) => st === 401)).toHaveLength(3);
    expect(statuses.filter((st) => st === 429)).toHaveLength(17);
    const events = await eventTypes(user.body.userId);
    expect(events.filter((e) => e === 'user.human.mfa.otp.check.failed')).toHaveLength(3);
  }, 120_000);

  it('every grant removed from both processes at once (groups in each): one 200 and one 404 per grant, one removal event each', async () => {
    const orgId = `${stamp}77`;
    const projectId = `${orgId}0`;
    const users = Array.from({ length: 30 }, (_, i) => ({
      userId: `${orgId}u${i}`,
      user: { userName: `g${i}`, profile: { firstName: 'G', lastName: String(i) }, email: { email: `g${i}@example.com`, isEmailVerified: true } },
    }));
    const imported = await importOrgs(0, [
      {
        orgId,
        org: { name: `Grant removals ${stamp}` },
        projects: [{ projectId, project: { name: 'granted' } }],
        projectRoles: [{ projectId, roleKey: 'reader', displayName: 'Reader' }],
        humanUsers: users,
        userGrants: users.map((u) => ({ userId: u.userId, projectId, roleKeys: ['reader'] })),
      },
    ]);
    expect(imported.status).toBe(200);
    const grants: { id: string; userId: string }[] = (await call(0, 'POST', '/management/v1/users/grants/_search', { query: { limit: 100 } }, orgId)).body.result;
    expect(grants).toHaveLength(users.length);
    const before = new Map(await Promise.all(grants.map(async (g) => [g.id, (await eventTypes(g.id)).length] as const)));

    // Each grant's two removals go to different processes; all at once, so each process groups them.
    const removals = await Promise.all(
      grants.flatMap((g) => [0, 1].map(async (n) => ({ grant: g.id, ...(await call(n, 'DELETE', `/management/v1/users/${g.userId}/grants/${g.id}`, undefined, orgId)) }))),
    );
    for (const g of grants) {
      const answers = removals.filter((r) => r.grant === g.id);
      expect(answers.map((r) => r.status).sort(), g.id).toEqual([200, 404]);
      const removed = answers.find((r) => r.status === 200)!;
      const events = await eventTypes(g.id);
      // Exactly one removal event, the grant's next sequence, and it is the answered one.
      expect(events.slice(before.get(g.id))).toEqual(['user.grant.removed']);
      expect(Number(removed.body.details.sequence)).toBe(events.length);
    }
    expect((await call(1, 'POST', '/management/v1/users/grants/_search', { query: { limit: 100 } }, orgId)).body.result ?? []).toEqual([]);
  }, 120_000);
});
