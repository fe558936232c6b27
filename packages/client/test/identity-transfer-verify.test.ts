/**
 * identity-transfer verify (issue 51) against two whole services on loopback ports, on SQLite and
 * PostgreSQL: after a migrate the instances agree (exit 0); a difference planted at the target of
 * each kind (a user changed, a user missing, an extra grant, a changed policy, a changed password
 * hash) is listed by kind, id and field names, exit 1, and no secret appears in the output.
 */
import { Readable } from 'node:stream';
import { describeEachStore } from '@identity-service/server/test/support/instance.js';
import { type OidcTestServer, startOidcServer } from '@identity-service/server/test/support/oidc-server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../src/cli/identity-transfer.js';
import { compareExports } from '../src/cli/verify.js';

function capture(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, tty: false, progressEveryMs: 0, stdout: (l) => out.push(l), stderr: (l) => err.push(l) };
}

const PASSWORD = 'Verify-Pass-1!';
const OTHER_PASSWORD = 'Changed-Pass-2!';
const LOGIN_POLICY = { allowUsernamePassword: true, forceMfa: false, secondFactors: ['SECOND_FACTOR_TYPE_OTP'], mfaInitSkipLifetime: '2592000s' };

describeEachStore('identity-transfer verify against running services', (dialect) => {
  let source: OidcTestServer;
  let target: OidcTestServer;
  let orgId: string;
  let projectId: string;
  let robot: string;
  let pat: string;
  const users: Record<'ann' | 'bob' | 'carl', string> = { ann: '', bob: '', carl: '' };
  const inOrg = () => ({ 'x-service-orgid': orgId });
  const between = (...options: string[]) => [
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
  const verify = async (...options: string[]) => {
    const io = capture();
    const code = await main(['verify', ...between(...options)], io);
    return { code, io };
  };

  beforeAll(async () => {
    [source, target] = await Promise.all([
      startOidcServer(dialect, { importJobWorker: true, instanceDomain: 'source.example' }),
      startOidcServer(dialect, { importJobWorker: true, instanceDomain: 'target.example' }),
    ]);
    // As a user builds an organisation through the API: it gets the domain the source generates from its name.
    orgId = (await source.api('POST', '/management/v1/orgs', { name: 'Verify Co' })).body.id;
    projectId = (await source.api('POST', '/management/v1/projects', { name: 'shop' }, undefined, inOrg())).body.id;
    expect((await source.api('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'buyer', displayName: 'Buyer' }, undefined, inOrg())).status).toBe(200);
    for (const name of ['ann', 'bob', 'carl'] as const) {
      const res = await source.api(
        'POST',
        '/management/v1/users/human/_import',
        {
          userName: name,
          profile: { firstName: name, lastName: 'Verify' },
          email: { email: `${name}@verify.example.com`, isEmailVerified: true },
          password: PASSWORD,
          passwordChangeRequired: false,
        },
        undefined,
        inOrg(),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      users[name] = res.body.userId;
    }
    expect((await source.api('POST', `/management/v1/users/${users.ann}/grants`, { projectId, roleKeys: ['buyer'] }, undefined, inOrg())).status).toBe(200);
    expect((await source.api('POST', '/management/v1/policies/login', LOGIN_POLICY, undefined, inOrg())).status).toBe(200);
    robot = (await source.api('POST', '/management/v1/users/machine', { userName: 'verify-robot', name: 'Verify Robot' }, undefined, inOrg())).body.userId;
    pat = (await source.api('POST', `/management/v1/users/${robot}/pats`, {}, undefined, inOrg())).body.token;
    expect(pat).toBeTruthy();

    const io = capture();
    expect(await main(['migrate', ...between('--with-passwords', '--with-keys')], io), io.err.join('\n')).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  it('after migrate the instances agree (exit 0): every resource compared by digest, the generated domains left aside', async () => {
    const { code, io } = await verify('--with-passwords', '--with-keys');
    expect(code, io.out.join('\n')).toBe(0);
    expect(io.out).toEqual([
      expect.stringMatching(/^the instances agree: \d+ resource\(s\) of 1 organisation\(s\) compared by digest \(with password and client secret hashes, keys, token and machine secret hashes\)$/),
    ]);
    // The organisation, 3 humans and a machine user, a project and its role, a grant, a policy, a token at least.
    expect(Number(/agree: (\d+)/.exec(io.out[0]!)![1])).toBeGreaterThanOrEqual(10);
    // Each instance generated its own domain for the organisation: not a difference.
    const domains = async (s: OidcTestServer) => (await s.api('POST', '/management/v1/orgs/me/domains/_search', {}, undefined, inOrg())).body.result.map((d: { domainName: string }) => d.domainName);
    expect(await domains(source)).toContain('verify-co.source.example');
    expect(await domains(target)).toContain('verify-co.target.example');
  }, 60_000);

  it('lists a planted difference of each kind (changed user, missing user, extra grant, changed policy, changed password hash), exit 1, no secret printed', async () => {
    // At the target only: Ann renamed, Bob removed, a grant the source lacks, the login policy changed, Carl's password set anew.
    expect((await target.api('PUT', `/management/v1/users/${users.ann}/profile`, { firstName: 'Annabel', lastName: 'Verify' }, undefined, inOrg())).status).toBe(200);
    expect((await target.api('DELETE', `/management/v1/users/${users.bob}`, undefined, undefined, inOrg())).status).toBe(200);
    const extra = await target.api('POST', `/management/v1/users/${robot}/grants`, { projectId, roleKeys: ['buyer'] }, undefined, inOrg());
    expect(extra.status, JSON.stringify(extra.body)).toBe(200);
    expect((await target.api('PUT', '/management/v1/policies/login', { ...LOGIN_POLICY, forceMfa: true }, undefined, inOrg())).status).toBe(200);
    expect((await target.api('POST', `/management/v1/users/${users.carl}/password`, { password: OTHER_PASSWORD, noChangeRequired: true }, undefined, inOrg())).status).toBe(200);

    const { code, io } = await verify('--with-passwords', '--with-keys');
    expect(code).toBe(1);
    const in_ = `in org ${orgId}`;
    expect(io.out).toEqual([
      `missing  human_user ${users.bob} ${in_}`,
      `extra    user_grant ${robot}/${projectId} ${in_}`,
      expect.stringMatching(new RegExp(`^changed  human_user ${users.ann} ${in_}: (user\\.profile\\.displayName, )?user\\.profile\\.firstName$`)),
      `changed  human_user ${users.carl} ${in_}: user.hashedPassword.value`,
      `changed  policy loginPolicy ${in_}: forceMfa`,
      expect.stringMatching(/^the instances differ: 5 difference\(s\) \(1 missing at the target, 1 extra at the target, 3 changed\); \d+ resource\(s\) of 1 organisation\(s\) compared by digest/),
    ]);

    // No secret in what verify says: neither side's hashes, token hashes, the passwords or the token.
    const secrets = new Set<string>([PASSWORD, OTHER_PASSWORD, pat]);
    for (const s of [source, target]) {
      const doc = (await s.api('POST', '/admin/v1/export', { orgIds: [orgId], withPasswords: true, withKeys: true, responseOutput: true })).body;
      const walk = (v: unknown, key = ''): void => {
        if (typeof v === 'string' && /hash|secret|value|publicKey/i.test(key)) secrets.add(v);
        else if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) walk(child, k);
      };
      walk(doc);
    }
    expect([...secrets].filter((s) => s.length >= 16).length).toBeGreaterThanOrEqual(6);
    const said = [...io.out, ...io.err].join('\n');
    for (const secret of secrets) if (secret.length >= 8) expect(said).not.toContain(secret);

    // Without --with-passwords the hashes are not exported, so not compared: Carl's change is not seen (and the summary says so).
    const plain = await verify();
    expect(plain.code).toBe(1);
    expect(plain.io.out.join('\n')).not.toContain(users.carl);
    expect(plain.io.out.at(-1)).toMatch(/4 difference\(s\).*without secrets: --with-passwords, --with-otp, --with-keys compare them too\)$/);
  }, 60_000);

  it('an organisation the target lacks is one line (missing org, with its count of resources), not an error; an unknown one at the source is refused', async () => {
    const only = (await source.api('POST', '/management/v1/orgs', { name: 'Source Only Co' })).body.id;
    const io = capture();
    expect(await main(['verify', '--from-url', source.issuer, '--from-token', source.t.adminToken, '--to-url', target.issuer, '--to-token', target.t.adminToken, '--org', only], io)).toBe(1);
    expect(io.out).toEqual([
      expect.stringMatching(new RegExp(`^missing  org ${only}: not at the target \\(\\d+ resource\\(s\\) at the source\\)$`)),
      expect.stringMatching(/^the instances differ: 1 difference\(s\) \(1 organisation\(s\) missing at the target, 0 missing at the target, 0 extra at the target, 0 changed\)/),
    ]);
    await expect(
      main(['verify', '--from-url', source.issuer, '--from-token', source.t.adminToken, '--to-url', target.issuer, '--to-token', target.t.adminToken, '--org', '999999999999999999'], capture()),
    ).rejects.toThrow(/^404: .*999999999999999999/);
  }, 60_000);
});

describe('verify holds digests, not documents', () => {
  /** An export of one organisation with `users` users, cut into pieces of `size` bytes. */
  function* pieces(users: number, size: number, renamed = -1): Generator<Uint8Array> {
    const doc = Buffer.from(
      JSON.stringify({
        orgs: [
          {
            orgId: '320000000000000000',
            org: { name: 'Pieces Co' },
            humanUsers: Array.from({ length: users }, (_, i) => ({
              userId: `32${String(i + 1).padStart(16, '0')}`,
              user: { userName: `u${i}`, profile: { firstName: i === renamed ? 'Renamed' : `F${i}`, lastName: 'L' }, email: { email: `u${i}@pieces.example.com` } },
            })),
          },
        ],
      }),
    );
    for (let at = 0; at < doc.length; at += size) yield doc.subarray(at, at + size);
  }

  it('reads the side that is behind: with chunks of 1 KiB against 64 KiB, only a few resources wait at once', async () => {
    const users = 5_000;
    const result = await compareExports(Readable.from(pieces(users, 1024)), Readable.from(pieces(users, 65536, 1234)));
    expect(result.resources).toBe(users + 1);
    expect(result.differences).toEqual([{ change: 'changed', kind: 'human_user', orgId: '320000000000000000', id: '320000000000001235', fields: ['user.profile.firstName'] }]);
    // A 64 KiB chunk holds about 500 users: the side read in 1 KiB pieces catches up before the next one is read.
    expect(result.peakWaiting).toBeLessThan(1_000);
  });

  it("a ZITADEL source's document: the client ids and grant ids the import minted at the target are no difference, anything else is", async () => {
    const org = (app: Record<string, unknown>, grant: Record<string, unknown>) =>
      Readable.from([
        Buffer.from(
          JSON.stringify({
            orgs: [
              {
                orgId: '330000000000000000',
                org: { name: 'Z Co' },
                oidcApps: [{ appId: '330000000000000001', app: { projectId: '330000000000000002', name: 'web' }, ...app }],
                userGrants: [{ userId: '330000000000000003', projectId: '330000000000000002', roleKeys: ['r'], ...grant }],
              },
            ],
          }),
        ),
      ]);
    const minted = { identityServiceClient: { clientId: '330000000000000004' } };
    expect((await compareExports(org({}, {}), org(minted, { identityServiceGrantId: '330000000000000005' }))).differences).toEqual([]);
    // Both sides have a client id, and they differ: a difference.
    expect((await compareExports(org({ identityServiceClient: { clientId: 'a' } }, {}), org(minted, {}))).differences).toEqual([
      { change: 'changed', kind: 'oidc_app', orgId: '330000000000000000', id: '330000000000000001', fields: ['identityServiceClient.clientId'] },
    ]);
  });
});
