/**
 * The CLI against two real HTTP servers (the service built in-process on SQLite, listening on
 * loopback ports), as a migration between two instances runs.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { ImportJobWorker } from '@identity-service/server/src/background/import-job-worker.js';
import { jobDocuments } from '@identity-service/server/src/domain/transfer/import/job-documents.js';
import { processSecretBox } from '@identity-service/server/src/secrets/secret-box.js';
import { createTestInstance, type TestInstance } from '@identity-service/server/test/support/instance.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../src/cli/identity-transfer.js';

interface Running {
  instance: TestInstance;
  server: ServerType;
  url: string;
}

/** A service on a loopback port; with import jobs (a folder and a worker, as main.ts starts them) unless `jobs: false`. */
async function start({ jobs = true } = {}): Promise<Running> {
  const documents = jobDocuments(mkdtempSync(join(tmpdir(), 'identity-transfer-jobs-')), processSecretBox());
  let worker: ImportJobWorker | undefined;
  // Without jobs: no folder for their documents, as a service (or ZITADEL) that has none.
  const instance = await createTestInstance('sqlite', jobs ? { importJobs: { documents, onStarted: () => worker?.poke() } } : { importJobs: undefined });
  if (jobs) {
    worker = new ImportJobWorker({ store: instance.store, secrets: processSecretBox(), instanceId: instance.instanceId, documents });
    worker.start();
    const close = instance.close;
    instance.close = async () => {
      await worker!.stop();
      await close();
    };
  }
  return new Promise((resolve) => {
    const server = serve({ fetch: instance.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve({ instance, server, url: `http://127.0.0.1:${info.port}` }));
  });
}

function capture(tty = false): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, tty, stdout: (l) => out.push(l), stderr: (l) => err.push(l) };
}

const org = (n: string) => ({
  orgId: `cli-${n}`,
  org: { name: `CLI ${n}` },
  humanUsers: [
    {
      userId: `cli-${n}-u`,
      user: {
        userName: 'h',
        profile: { firstName: 'H', lastName: 'U' },
        email: { email: `h${n}@example.com`, isEmailVerified: true },
        hashedPassword: { value: '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy' },
        otpCode: 'JBSWY3DPEHPK3PXP',
      },
    },
  ],
  machineUsers: [{ userId: `cli-${n}-m`, user: { userName: 'm', name: 'M' } }],
  projects: [{ projectId: `cli-${n}-p`, project: { name: 'P' } }],
  projectRoles: [{ projectId: `cli-${n}-p`, roleKey: 'r', displayName: 'R' }],
  userGrants: [{ userId: `cli-${n}-u`, projectId: `cli-${n}-p`, roleKeys: ['r'] }],
});

describe('identity-transfer CLI', () => {
  let a: Running;
  let b: Running;
  let dir: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([start(), start()]);
    dir = mkdtempSync(join(tmpdir(), 'identity-transfer-'));
    const res = await a.instance.call('POST', '/admin/v1/import', { body: { dataOrgs: { orgs: [org('1'), org('2')] } } });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    for (const r of [a, b]) {
      await new Promise((done) => r?.server.close(done));
      await r?.instance.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates two organisations between running instances, with progress and a summary', async () => {
    const io = capture(true);
    const code = await main(
      [
        'migrate',
        '--from-url',
        a.url,
        '--from-token',
        a.instance.adminToken,
        '--to-url',
        b.url,
        '--to-token',
        b.instance.adminToken,
        '--org',
        'cli-1',
        '--org',
        'cli-2',
        '--with-passwords',
        '--with-otp',
      ],
      io,
    );
    expect(code).toBe(0);
    // A line per kind of resource; the domain each source organisation has is the one the source generated (skipped: the target has its own).
    expect(io.out[0]).toMatch(/^\s+created {2}updated {2}unchanged {2}skipped {2}failed$/);
    expect(io.out).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^human_user\s+2\s+0\s+0\s+0\s+0$/),
        expect.stringMatching(/^user_grant\s+2\s+0\s+0\s+0\s+0$/),
        expect.stringMatching(/^domain\s+0\s+0\s+0\s+2\s+0$/),
      ]),
    );
    expect(io.out.at(-1)).toMatch(/^imported into 2 organisation\(s\) \(cli-1, cli-2\): \d+ created, 0 updated, 0 unchanged, 2 skipped, 0 failed$/);
    const user = await b.instance.store.read.users.get('cli-2-u');
    expect(user?.passwordHash).toMatch(/^\$2a\$10\$/);
  });

  it('runs the migration example of docs/migration.md between two fresh instances with no errors', async () => {
    // As a new user does it: an organisation created through the API on the source (its creator, the
    // source's administrator, becomes ORG_OWNER), a user and a grant; then the guide's commands.
    const source = await start();
    const target = await start();
    try {
      const api = (r: Running, method: string, path: string, body?: unknown, orgId?: string) =>
        fetch(r.url + path, {
          method,
          headers: { authorization: `Bearer ${r.instance.adminToken}`, 'content-type': 'application/json', ...(orgId ? { 'x-service-orgid': orgId } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (res) => ({ status: res.status, body: await res.json() }));
      const created = await api(source, 'POST', '/management/v1/orgs', { name: 'Moving Co' });
      expect(created.status).toBe(200);
      const orgId = created.body.id;
      const project = await api(source, 'POST', '/management/v1/projects', { name: 'shop' }, orgId);
      await api(source, 'POST', `/management/v1/projects/${project.body.id}/roles`, { roleKey: 'buyer', displayName: 'Buyer' }, orgId);
      const user = await api(
        source,
        'POST',
        '/management/v1/users/human/_import',
        { userName: 'ann', profile: { firstName: 'Ann', lastName: 'A' }, email: { email: 'ann@example.com', isEmailVerified: true } },
        orgId,
      );
      expect((await api(source, 'POST', `/management/v1/users/${user.body.userId}/grants`, { projectId: project.body.id, roleKeys: ['buyer'] }, orgId)).status).toBe(200);

      // The guide's curl example: export the organisations to move, import the document.
      const exported = await api(source, 'POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, with_otp: true, timeout: '10m', response_output: true });
      const imported = await api(target, 'POST', '/admin/v1/import', { timeout: '10m', data_orgs: exported.body });
      expect(imported.status).toBe(200);
      expect(imported.body.errors ?? []).toEqual([]);
      expect(imported.body.success.orgs[0]).toMatchObject({ orgId, humanUserIds: [user.body.userId], userGrants: [{ projectId: project.body.id, userId: user.body.userId }] });

      // Everything at once (org_ids: []) also carries the source's default organisation: the target has
      // its own of that name, so that one is reported and skipped, and the source administrator's
      // membership of it names a user the target does not have: a warning, not a not-found error.
      const all = await api(source, 'POST', '/admin/v1/export', { org_ids: [], with_passwords: true, timeout: '10m', response_output: true });
      const fresh = await start();
      try {
        const whole = await api(fresh, 'POST', '/admin/v1/import', { timeout: '10m', data_orgs: all.body });
        expect(whole.status).toBe(200);
        expect(whole.body.errors).toEqual([expect.objectContaining({ type: 'org', id: source.instance.defaultOrgId, message: expect.stringContaining('ORG-3M9f2') })]);
        expect(whole.body.success.orgs.map((o: { orgId: string }) => o.orgId)).toContain(orgId);
        expect(whole.body.warnings).toEqual([expect.objectContaining({ type: 'user', id: source.instance.adminUserId, message: expect.stringContaining('IMPORT-usr0t') })]);
      } finally {
        fresh.server.close();
        await fresh.instance.close();
      }

      // The guide's CLI example, into a third fresh instance.
      const third = await start();
      try {
        const io = capture();
        const code = await main(['migrate', '--from-url', source.url, '--from-token', source.instance.adminToken, '--to-url', third.url, '--to-token', third.instance.adminToken, '--org', orgId], io);
        expect(code).toBe(0);
        expect(io.out.at(-1)).toMatch(new RegExp(`^imported into 1 organisation\\(s\\) \\(${orgId}\\): \\d+ created, 0 updated, 0 unchanged, 1 skipped, 0 failed$`));
      } finally {
        third.server.close();
        await third.instance.close();
      }
    } finally {
      source.server.close();
      target.server.close();
      await source.instance.close();
      await target.instance.close();
    }
    // Four instances made and three imports run in one test: more than the default 5 s on a busy machine.
  }, 30_000);

  it('exports to a file and imports it; a second import reports everything as existing', async () => {
    const file = join(dir, 'export.json');
    const io = capture();
    expect(await main(['export', '--url', a.url, '--token', a.instance.adminToken, '--org', 'cli-1', '--with-passwords', '--out', file], io)).toBe(0);
    expect(io.out.at(-1)).toMatch(/^exported 1 organisation\(s\), \d+ bytes/);
    expect(JSON.parse(readFileSync(file, 'utf8')).orgs[0].humanUsers[0].user.hashedPassword.value).toMatch(/^\$2a\$/);

    const again = capture();
    expect(await main(['import', '--url', b.url, '--token', b.instance.adminToken, file], again)).toBe(1);
    expect(again.out).toContainEqual(expect.stringMatching(/^org\s+0\s+0\s+0\s+0\s+1$/));
    expect(again.out.at(-1)).toMatch(/^nothing was written: every resource of the document failed, or was there already \(0 created, 0 updated, 0 unchanged, 1 skipped, \d+ failed\)$/);
  });

  it('writes the export 0600 (it holds password hashes and TOTP secrets), also over a wider existing file and side file', async () => {
    const fresh = join(dir, 'secret.json');
    expect(await main(['export', '--url', a.url, '--token', a.instance.adminToken, '--org', 'cli-1', '--with-passwords', '--with-otp', '--out', fresh], capture())).toBe(0);
    expect(JSON.parse(readFileSync(fresh, 'utf8')).orgs[0].humanUsers[0].user.otpCode).toBeTruthy();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);

    // An earlier export and a side file left by an interrupted one, both readable by everyone.
    const again = join(dir, 'again.json');
    writeFileSync(again, 'old', { mode: 0o644 });
    writeFileSync(`${again}.partial`, 'left over', { mode: 0o666 });
    chmodSync(`${again}.partial`, 0o666);
    expect(await main(['export', '--url', a.url, '--token', a.instance.adminToken, '--org', 'cli-1', '--with-passwords', '--with-otp', '--out', again], capture())).toBe(0);
    expect(statSync(again).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(again, 'utf8')).orgs[0].orgId).toBe('cli-1');
    expect(existsSync(`${again}.partial`)).toBe(false);
  });

  it('an export cut off mid-stream fails and leaves no file (a truncated document must not be imported later)', async () => {
    // A service that starts answering, then drops the connection, as an export failing mid-way does.
    const dropping = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"orgs":[{"orgId":"cut-1","humanUsers":[');
      setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((done) => dropping.listen(0, '127.0.0.1', done));
    const file = join(dir, 'cut.json');
    try {
      const url = `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`;
      await expect(main(['export', '--url', url, '--token', 't', '--out', file], capture())).rejects.toThrow(/^export interrupted: .*cut\.json was not written/);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.partial`)).toBe(false);

      // migrate streams the export into the import: the upload is aborted and the target writes nothing.
      const orgsOfB = async () => (await (await b.instance.call('POST', '/admin/v1/orgs/_search', { body: {} })).json()).details.totalResult;
      const before = await orgsOfB();
      expect(Number(before)).toBeGreaterThan(0);
      await expect(main(['migrate', '--from-url', url, '--from-token', 't', '--to-url', b.url, '--to-token', b.instance.adminToken], capture())).rejects.toThrow();
      expect(await orgsOfB()).toBe(before);
    } finally {
      dropping.closeAllConnections();
      await new Promise((done) => dropping.close(done));
    }
  });

  it('imports a whole request file such as the ZITADEL docs fixture, as a job whose phases are printed a line each', async () => {
    const io = capture();
    const fixture = new URL('./fixtures/zitadel-docs-bulk-import.json', import.meta.url).pathname;
    expect(await main(['import', '--url', b.url, '--token', b.instance.adminToken, fixture], io)).toBe(0);
    expect(io.out).toContainEqual(expect.stringMatching(/^human_user\s+3\s+0\s+0\s+0\s+0$/));
    expect(io.err[0]).toMatch(/^import job \d+ started$/);
    expect(io.err.at(-1)).toMatch(/^import job \d+: done: \d+\/\d+ organisations, 3\/3 users$/);
    // A line per change, never the same twice in a row.
    expect(io.err.every((line, i) => i === 0 || line !== io.err[i - 1])).toBe(true);
  });

  it('imports through ImportData into a service without import jobs', async () => {
    const plain = await start({ jobs: false });
    try {
      const io = capture();
      const fixture = new URL('./fixtures/zitadel-docs-bulk-import.json', import.meta.url).pathname;
      expect(await main(['import', '--url', plain.url, '--token', plain.instance.adminToken, fixture], io)).toBe(0);
      expect(io.out).toContainEqual(expect.stringMatching(/^human_user\s+3\s+0\s+0\s+0\s+0$/));
      expect(io.err.filter((line) => line.startsWith('import job'))).toEqual([]);
    } finally {
      plain.server.close();
      await plain.instance.close();
    }
  });

  it('an unknown --org fails (exit ≠ 0) naming it, and writes no file; migrate imports nothing', async () => {
    // Before issue 30 the service answered 200 with no organisation, and the CLI exited 0.
    const file = join(dir, 'typo.json');
    await expect(main(['export', '--url', a.url, '--token', a.instance.adminToken, '--org', 'cli-1', '--org', 'cli-typo', '--out', file], capture())).rejects.toThrow(/^404: .*cli-typo/);
    expect(existsSync(file)).toBe(false);
    await expect(main(['migrate', '--from-url', a.url, '--from-token', a.instance.adminToken, '--to-url', b.url, '--to-token', b.instance.adminToken, '--org', 'cli-typo'], capture())).rejects.toThrow(
      /^404: .*cli-typo/,
    );
  });

  it('reports refusals and usage errors', async () => {
    await expect(main(['export', '--url', a.url, '--token', 'wrong', '--out', join(dir, 'x.json')], capture())).rejects.toThrow(/^401/);
    await expect(main(['export', '--url', a.url], capture())).rejects.toThrow(/--token is required/);
    // A token may begin with "-" (base64url): it is taken as the value, and here refused by the server, not by the parser.
    await expect(main(['export', '--url', a.url, '--token', '-Wx_9', '--out', join(dir, 'x.json')], capture())).rejects.toThrow(/^401/);
    await expect(main(['migrate', '--from-url', a.url, '--from-token', '-a', '--to-url', b.url, '--to-token', '-b'], capture())).rejects.toThrow(/^401/);
    await expect(main(['frobnicate'], capture())).rejects.toThrow(/unknown command/);
    const help = capture();
    expect(await main(['--help'], help)).toBe(0);
    expect(help.out.join('\n')).toMatch(/identity-transfer migrate --from-url/);
    expect(await main([], capture())).toBe(2);
  });
});
