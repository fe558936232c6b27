/**
 * The CLI's options at parity with the API (issue 49), against the whole service (server.ts on a
 * loopback port, import jobs run by a worker as under `npm start`), on SQLite and PostgreSQL:
 * --with-keys (a machine user's key file, token and client secret keep working after `migrate`),
 * --dry-run, --conflict-policy, the job's progress as it goes, the summary per kind of resource
 * that says when nothing was written, and exit 1 on any failure.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachStore } from '@identity-service/server/test/support/instance.js';
import { type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import { BCRYPT } from '@identity-service/server/test/support/transfer-documents.js';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliIo, main } from '../src/cli/identity-transfer.js';

function capture(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  // Off a terminal, every change of the job's progress on its own line (the default waits 5 s between users' lines).
  return { out, err, tty: false, progressEveryMs: 0, stdout: (l) => out.push(l), stderr: (l) => err.push(l) };
}

/** The row of a kind of resource in the summary: created, updated, unchanged, skipped, failed. */
const row = (io: { out: string[] }, type: string) => {
  const line = io.out.find((l) => l.startsWith(`${type} `));
  return line?.trim().split(/\s+/).slice(1).map(Number);
};

const AUD = 'urn:service:iam:org:project:id:service:aud';

describeEachStore('identity-transfer options against a running service', (dialect) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let orgId: string;
  let robot: string;
  let pat: string;
  let secret: { clientId: string; clientSecret: string };
  let keyFile: string;
  let dir: string;
  const migrate = (...options: string[]) => [
    'migrate',
    '--from-url',
    source.issuer,
    '--from-token',
    source.t.adminToken,
    '--to-url',
    target.issuer,
    '--to-token',
    target.t.adminToken,
    '--org',
    orgId,
    ...options,
  ];
  const orgCount = async () => Number((await target.api('POST', '/admin/v1/orgs/_search', {})).body.details.totalResult);

  beforeAll(async () => {
    [source, target] = await Promise.all([
      startOidcServer(dialect, { importJobWorker: true, instanceDomain: 'source.example' }),
      startOidcServer(dialect, { importJobWorker: true, instanceDomain: 'target.example' }),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'identity-transfer-options-'));
    orgId = (await source.api('POST', '/management/v1/orgs', { name: 'Fleet Co' })).body.id;
    const inOrg = { 'x-service-orgid': orgId };
    robot = (await source.api('POST', '/management/v1/users/machine', { userName: 'fleet-robot', name: 'Fleet Robot' }, undefined, inOrg)).body.userId;
    expect((await source.api('POST', '/management/v1/orgs/me/members', { userId: robot, roles: ['ORG_OWNER'] }, undefined, inOrg)).status).toBe(200);
    pat = (await source.api('POST', `/management/v1/users/${robot}/pats`, {}, undefined, inOrg)).body.token;
    secret = (await source.api('PUT', `/management/v1/users/${robot}/secret`, undefined, undefined, inOrg)).body;
    keyFile = (await source.api('POST', `/management/v1/users/${robot}/keys`, { type: 'KEY_TYPE_JSON' }, undefined, inOrg)).body.keyDetails;
    expect(pat && secret.clientSecret && keyFile).toBeTruthy();
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--dry-run writes nothing and says so, with the summary of what the import would do', async () => {
    const before = await orgCount();
    const io = capture();
    expect(await main(migrate('--with-keys', '--dry-run'), io)).toBe(0);
    expect(row(io, 'org')).toEqual([1, 0, 0, 0, 0]);
    expect(row(io, 'machine_user')).toEqual([1, 0, 0, 0, 0]);
    expect(row(io, 'personal_access_token')).toEqual([1, 0, 0, 0, 0]);
    expect(io.out.at(-1)).toMatch(/^dry run: nothing was written; the import would give \d+ created, 0 updated, 0 unchanged, 1 skipped, 0 failed$/);
    expect(await orgCount()).toBe(before);
    expect(await target.t.store.read.users.get(robot)).toBeUndefined();
  });

  it("--with-keys: after migrate the machine user's key file, token and client secret work at the target", async () => {
    const io = capture();
    expect(await main(migrate('--with-keys', '--with-passwords'), io)).toBe(0);
    expect(row(io, 'machine_user_key')).toEqual([1, 0, 0, 0, 0]);
    expect(row(io, 'machine_secret')).toEqual([1, 0, 0, 0, 0]);
    expect(io.out.at(-1)).toMatch(new RegExp(`^imported into 1 organisation\\(s\\) \\(${orgId}\\): \\d+ created, 0 updated, 0 unchanged, 1 skipped, 0 failed$`));
    // The job's phases as it went, a line each, ending done.
    expect(io.err[0]).toMatch(/^import job \d+ started$/);
    expect(io.err.at(-1)).toMatch(/^import job \d+: done: 1\/1 organisations, 1\/1 users$/);

    const inOrg = { 'x-service-orgid': orgId };
    // The key file: the JWT-profile grant (ZITADEL's Node SDK), then the API with that token.
    const account = ServiceAccount.fromJson(JSON.parse(Buffer.from(keyFile, 'base64').toString('utf8')));
    const jwtProfileToken = await account.authenticate(target.issuer, { apiAccess: true });
    expect((await target.api('GET', '/management/v1/orgs/me', undefined, jwtProfileToken, inOrg)).status).toBe(200);
    // The personal access token.
    expect((await target.api('GET', '/management/v1/orgs/me', undefined, pat, inOrg)).status).toBe(200);
    // The client secret: client credentials (openid-client).
    const config = await oc.discovery(new URL(target.issuer), secret.clientId, undefined, oc.ClientSecretBasic(secret.clientSecret), { execute: [oc.allowInsecureRequests] });
    const token = (await oc.clientCredentialsGrant(config, { scope: `openid ${AUD}` })).access_token;
    expect((await target.api('GET', '/management/v1/orgs/me', undefined, token, inOrg)).status).toBe(200);
  }, 60_000);

  it('--conflict-policy: REPORT (the default) fails (exit 1), SKIP writes nothing and says so (exit 0), FAIL refuses the whole import', async () => {
    const reported = capture();
    expect(await main(migrate('--with-keys'), reported)).toBe(1);
    expect(row(reported, 'org')).toEqual([0, 0, 0, 0, 1]);
    expect(reported.out.at(-1)).toMatch(/^nothing was written: every resource of the document failed, or was there already \(0 created, 0 updated, 0 unchanged, 1 skipped, \d+ failed\)$/);
    expect(reported.err).toContainEqual(expect.stringMatching(/^ {2}failed: org \d+: ID=ORG-lapo2n/));

    const skipped = capture();
    expect(await main(migrate('--with-keys', '--conflict-policy', 'skip'), skipped)).toBe(0);
    expect(row(skipped, 'machine_user')).toEqual([0, 0, 0, 1, 0]);
    expect(skipped.out.at(-1)).toMatch(/^nothing was written: every resource of the document was there already \(0 created, 0 updated, 0 unchanged, \d+ skipped, 0 failed\)$/);

    const overwritten = capture();
    expect(await main(migrate('--with-keys', '--conflict-policy', 'OVERWRITE'), overwritten)).toBe(0);
    expect(overwritten.out.at(-1)).toMatch(/^nothing was written: every resource of the document was there already \(0 created, 0 updated, \d+ unchanged, 1 skipped, 0 failed\)$/);

    await expect(main(migrate('--conflict-policy', 'FAIL'), capture())).rejects.toThrow(/^import job \d+ failed: conflictPolicy FAIL: org \d+ exists already/);
    await expect(main(migrate('--conflict-policy', 'merge'), capture())).rejects.toThrow(/--conflict-policy merge: use one of REPORT, SKIP, OVERWRITE, FAIL/);
    await expect(main(['export', '--url', source.issuer, '--token', 't', '--dry-run', '--out', join(dir, 'x.json')], capture())).rejects.toThrow(/--dry-run is not an option of export/);
  }, 60_000);

  it("shows users done as they advance during an organisation's import", async () => {
    // Enough users that the import outlasts several of the CLI's half-second polls (the server
    // writes users done every 250 ms): 5,000 were imported between two polls on a quiet machine.
    const users = 20_000;
    const file = join(dir, 'large.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      JSON.stringify({
        orgs: [
          {
            orgId: '310000000000000000',
            org: { name: 'Large Co' },
            humanUsers: Array.from({ length: users }, (_, u) => ({
              userId: `31${String(u + 1).padStart(16, '0')}`,
              user: { userName: `u${u}`, profile: { firstName: 'L', lastName: `U${u}` }, email: { email: `u${u}@large.example.com`, isEmailVerified: true }, hashedPassword: { value: BCRYPT } },
            })),
          },
        ],
      }),
    );
    const io = capture();
    expect(await main(['import', '--url', target.issuer, '--token', target.t.adminToken, file], io)).toBe(0);
    const midway = io.err.filter((l) => /: importing: 0\/1 organisations, [1-9]\d*\/20000 users$/.test(l));
    expect(midway.length, io.err.join('\n')).toBeGreaterThan(0);
    expect(io.err.at(-1)).toMatch(/: done: 1\/1 organisations, 20000\/20000 users$/);
    expect(row(io, 'human_user')).toEqual([users, 0, 0, 0, 0]);
  }, 120_000);
});
