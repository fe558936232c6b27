/**
 * identity-transfer sync (issue 51) between two whole services on loopback ports, on SQLite and
 * PostgreSQL: after the first copy, users created, changed and removed, user grants added and
 * removed, a password changed and an authenticator app set up at the source arrive at the target
 * within a few seconds (the new password and the app's codes sign in there); a sync process killed
 * with SIGKILL resumes from its checkpoint file without losing or repeating anything; a resource
 * changed at the target is overwritten, kept or reported as the conflict policy says.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPasswordLogin } from '@identity-service/server/src/domain/login/password-login.js';
import { checkTotpLogin, totpCode } from '@identity-service/server/src/domain/login/totp.js';
import { confirmOtpEnrolment, startOtpEnrolment } from '@identity-service/server/src/domain/users/otp-enrolment.js';
import { processSecretBox } from '@identity-service/server/src/secrets/secret-box.js';
import { describeEachStore, insertMachineUserWithToken } from '@identity-service/server/test/support/instance.js';
import { type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliIo, main } from '../src/cli/identity-transfer.js';
import { type SyncOptions, sync } from '../src/cli/sync.js';

function capture(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, tty: false, progressEveryMs: 0, stdout: (l) => out.push(l), stderr: (l) => err.push(l) };
}

const PASSWORD = 'Sync-Pass-1!';
const NEW_PASSWORD = 'Sync-Pass-2!';
const BIN = new URL('../bin/identity-transfer.mjs', import.meta.url).pathname;

/** Polls `check` until it holds (returns the time it took), failing after `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - started;
}

describeEachStore('identity-transfer sync against running services', (dialect) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let orgId: string;
  let projectId: string;
  let dir: string;
  const inOrg = () => ({ 'x-service-orgid': orgId });
  const between = () => ['--from-url', source.issuer, '--from-token', source.t.adminToken, '--to-url', target.issuer, '--to-token', target.t.adminToken, '--org', orgId];
  const addHuman = async (userName: string) => {
    const res = await source.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName,
        profile: { firstName: userName, lastName: 'Sync' },
        email: { email: `${userName}@sync.example.com`, isEmailVerified: true },
        password: PASSWORD,
        passwordChangeRequired: false,
      },
      undefined,
      inOrg(),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.userId as string;
  };
  const addGrant = async (userId: string) => {
    const res = await source.api('POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['buyer'] }, undefined, inOrg());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.userGrantId as string;
  };
  const userAt = async (s: OidcTestServer, userId: string) => s.api('GET', `/management/v1/users/${userId}`, undefined, undefined, inOrg());
  const grantsAt = async (s: OidcTestServer, userId: string) =>
    (await s.api('POST', '/management/v1/users/grants/_search', { queries: [{ userIdQuery: { userId } }] }, undefined, inOrg())).body.result ?? [];
  const verify = async () => {
    const io = capture();
    const code = await main(['verify', ...between(), '--with-passwords', '--with-otp'], io);
    return { code, out: io.out.join('\n') };
  };

  beforeAll(async () => {
    [source, target] = await Promise.all([startOidcServer(dialect, { instanceDomain: 'source.example' }), startOidcServer(dialect, { instanceDomain: 'target.example' })]);
    dir = mkdtempSync(join(tmpdir(), 'sync-test-'));
    orgId = (await source.api('POST', '/management/v1/orgs', { name: 'Sync Co' })).body.id;
    projectId = (await source.api('POST', '/management/v1/projects', { name: 'shop' }, undefined, inOrg())).body.id;
    expect((await source.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'buyer', displayName: 'Buyer' }, undefined, inOrg())).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('copies the organisation, then brings each change of the source to the target within a few seconds', async () => {
    const ann = await addHuman('ann');
    const bob = await addHuman('bob');
    const dave = await addHuman('dave');
    const annGrant = await addGrant(ann);
    const io = capture();
    const stop = new AbortController();
    const running = sync(io, {
      from: { url: source.issuer, token: source.t.adminToken },
      to: { url: target.issuer, token: target.t.adminToken },
      orgs: [orgId],
      withPasswords: true,
      withOtp: true,
      withKeys: false,
      conflictPolicy: 'OVERWRITE',
      checkpointFile: join(dir, 'follow.json'),
      intervalMs: 200,
      once: false,
      timeout: '1m',
      signal: stop.signal,
    });
    try {
      await within(10_000, async () => (await userAt(target, dave)).status === 200);
      expect((await grantsAt(target, ann)).map((g: { id: string }) => g.id)).toEqual([annGrant]);

      // At the source: a profile changed, a password changed, an app set up, a user with a grant
      // created, a grant and a user removed.
      expect((await source.api('PUT', `/management/v1/users/${ann}/profile`, { firstName: 'Annabel', lastName: 'Sync' }, undefined, inOrg())).status).toBe(200);
      expect((await source.api('POST', `/management/v1/users/${bob}/password`, { password: NEW_PASSWORD, noChangeRequired: true }, undefined, inOrg())).status).toBe(200);
      const box = processSecretBox();
      const enrolment = await startOtpEnrolment(source.t.store, box, { userId: ann, instanceId: source.t.instanceId, issuerName: 'source.example' });
      await confirmOtpEnrolment(source.t.store, box, ann, totpCode(enrolment.secret));
      const carl = await addHuman('carl');
      const carlGrant = await addGrant(carl);
      expect((await source.api('DELETE', `/management/v1/users/${ann}/grants/${annGrant}`, undefined, undefined, inOrg())).status).toBe(200);
      expect((await source.api('DELETE', `/management/v1/users/${dave}`, undefined, undefined, inOrg())).status).toBe(200);

      const lagMs = await within(5_000, async () => {
        const [annThere, daveThere, carlGrants, annGrants] = await Promise.all([userAt(target, ann), userAt(target, dave), grantsAt(target, carl), grantsAt(target, ann)]);
        return annThere.body.user?.human?.profile?.firstName === 'Annabel' && daveThere.status === 404 && carlGrants.length === 1 && annGrants.length === 0;
      });
      expect(lagMs).toBeLessThan(5_000);
      expect((await grantsAt(target, carl))[0].id).toBe(carlGrant);
      // Bob signs in at the target with the new password, not the old one; Ann's app gives codes the target takes.
      const loginName = (await userAt(target, bob)).body.user.preferredLoginName as string;
      expect(await checkPasswordLogin(target.t.store, target.t.instanceId, loginName, NEW_PASSWORD)).toMatchObject({ ok: true });
      expect(await checkPasswordLogin(target.t.store, target.t.instanceId, loginName, PASSWORD)).toMatchObject({ ok: false });
      expect(await checkTotpLogin(target.t.store, box, target.t.instanceId, ann, totpCode(enrolment.secret, Date.now() + 30_000), Date.now() + 30_000)).toMatchObject({ ok: true });
      expect(await verify()).toMatchObject({ code: 0 });
    } finally {
      stop.abort();
      expect(await running).toBe(0);
    }
    expect(io.err).toEqual([]);
  }, 60_000);

  it('a sync process killed with SIGKILL resumes from its checkpoint file: nothing lost, nothing applied twice', async () => {
    const file = join(dir, 'killed.json');
    const start = () => {
      const child = spawn(process.execPath, [BIN, 'sync', ...between(), '--checkpoint', file, '--interval', '100ms', '--with-passwords', '--with-otp'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      return { child, out: () => out, exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))) };
    };
    const created: string[] = [];
    let first: ReturnType<typeof start> | undefined = start();
    let second: ReturnType<typeof start> | undefined;
    try {
      await within(20_000, async () => /checkpoint \d+/.test(first!.out()));
      // Users created at the source while the follower runs; it is killed between two of them, mid-round or not.
      for (let i = 0; i < 12; i++) {
        created.push(await addHuman(`kill${i}`));
        if (i === 5) {
          first!.child.kill('SIGKILL');
          expect(await first!.exited).toBe(null);
          first = undefined;
        }
      }
      // The file holds a whole checkpoint (written to a side file and renamed): the last one written before the kill.
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { checkpoint: string };
      expect(kept.checkpoint).toMatch(/^\d+$/);
      second = start();
      await within(10_000, async () => (await Promise.all(created.map((id) => userAt(target, id)))).every((r) => r.status === 200));
      expect(second.out()).toContain(`sync: resuming after position ${kept.checkpoint}`);
      // Each user created once at the target, and what was applied again after the restart found
      // it as it is: no change event on any of them (an import creates without one), nothing refused.
      expect(second.out()).not.toMatch(/not applied|refused [1-9]/);
      for (const id of created) expect((await target.api('POST', '/admin/v1/events/_search', { aggregateId: id })).body.events, id).toEqual([]);
      expect(await verify()).toMatchObject({ code: 0 });
      // Idle rounds write nothing at the target: its trail does not grow while the source is quiet.
      const trail = async () => JSON.stringify((await target.api('POST', '/admin/v1/events/_search', { asc: false, limit: 1 })).body.events[0]);
      const before = await trail();
      await new Promise((r) => setTimeout(r, 600));
      expect(await trail()).toBe(before);
    } finally {
      first?.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      if (second) expect(await second.exited).toBe(0);
    }
  }, 90_000);

  it('a user changed at the target and at the source: the source wins (OVERWRITE), the target\u2019s stays (SKIP), is listed (REPORT), or the round stops (FAIL)', async () => {
    // The sync writes at the target as its own service user: the admin's changes there are local ones.
    const follower = await insertMachineUserWithToken(target.t, { instanceRoles: ['IAM_OWNER'] });
    const file = join(dir, 'policies.json');
    const round = async (conflictPolicy: SyncOptions['conflictPolicy']) => {
      const io = capture();
      const code = await sync(io, {
        from: { url: source.issuer, token: source.t.adminToken },
        to: { url: target.issuer, token: follower.token },
        orgs: [orgId],
        withPasswords: true,
        withOtp: true,
        withKeys: false,
        conflictPolicy,
        checkpointFile: file,
        intervalMs: 0,
        once: true,
        timeout: '1m',
      });
      return { code, io };
    };
    const erin = await addHuman('erin');
    const copied = await round('OVERWRITE');
    expect(copied.code, copied.io.err.join('\n')).toBe(0);
    const firstName = async (s: OidcTestServer, id: string) => (await userAt(s, id)).body.user.human.profile.firstName as string;
    const rename = async (s: OidcTestServer, id: string, name: string) =>
      expect((await s.api('PUT', `/management/v1/users/${id}/profile`, { firstName: name, lastName: 'Sync' }, undefined, inOrg())).status).toBe(200);
    expect(await firstName(target, erin)).toBe('erin');

    for (const policy of ['SKIP', 'REPORT', 'FAIL', 'OVERWRITE'] as const) {
      const other = await addHuman(`only-source-${policy.toLowerCase()}`);
      await rename(target, erin, `Target-${policy}`);
      await rename(source, erin, `Source-${policy}`);
      const before = readFileSync(file, 'utf8');
      const { code, io } = await round(policy);
      if (policy === 'FAIL') {
        expect(code).toBe(1);
        expect(io.err).toContain(`changed at the target too: user ${erin}`);
        expect(await firstName(target, erin)).toBe(`Target-${policy}`);
        // Nothing of the round: neither the other user nor a new checkpoint.
        expect((await userAt(target, other)).status).toBe(404);
        expect(readFileSync(file, 'utf8')).toBe(before);
        // Resolved at the target by hand (taking the source's), the next round goes on.
        await rename(target, erin, `Source-${policy}`);
        expect((await round('OVERWRITE')).code).toBe(0);
        expect((await userAt(target, other)).status).toBe(200);
        continue;
      }
      expect(code, io.err.join('\n')).toBe(0);
      expect(await firstName(target, erin)).toBe(policy === 'OVERWRITE' ? `Source-${policy}` : `Target-${policy}`);
      // What only the source changed arrives under every policy.
      expect((await userAt(target, other)).status).toBe(200);
      if (policy === 'REPORT') expect(io.err).toEqual([`changed at the target too, kept there: user ${erin}`]);
      else expect(io.err).toEqual([]);
      if (policy === 'OVERWRITE') expect(io.out).toContain(`changed at the target too, overwritten with the source's: user ${erin}`);
    }
    // A change at the target alone is no conflict and stays: the source did not touch it.
    await rename(target, erin, 'Target-only');
    expect((await round('REPORT')).io.err).toEqual([]);
    expect(await firstName(target, erin)).toBe('Target-only');
  }, 90_000);
});
