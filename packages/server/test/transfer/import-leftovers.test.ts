/**
 * What an import writes to disk (issue 47 item 4): the request body, a Cloud Storage document and
 * the first pass's parts went to `$TMPDIR/identity-import-*` in plain text — TOTP secrets, identity
 * providers' client secrets, password hashes — and stayed there after every kill -9, never cleaned
 * at start. Now every such file is sealed under a key held in memory only (sealed-file.ts), and a
 * start removes what stopped processes left, and only that (spool.ts, removeLeftoverSpools).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSpool, removeLeftoverSpools } from '../../src/domain/transfer/spool.js';
import { DIALECTS, freshPostgresDatabase } from '../support/instance.js';
import { buildServer, type ServerProcess, startServerProcess, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';
import { BCRYPT, TOTP } from '../support/transfer-documents.js';

const CLIENT_SECRET = 'idp-client-secret-7f3a9c';
const PASSWORD = 'Leftover-Passw0rd!';

/** One organisation whose users bring plain passwords (hashed one by one after the first pass: the window to kill in), a TOTP secret, a hash, an identity provider's secret. */
function secretDocument(prefix: string, users = 40) {
  return {
    orgs: [
      {
        orgId: `${prefix}0000`,
        org: { name: `Leftovers ${prefix}` },
        humanUsers: Array.from({ length: users }, (_, u) => ({
          userId: `${prefix}${String(u + 1).padStart(4, '0')}`,
          user: {
            userName: `secret-user${u}`,
            profile: { firstName: 'Secret', lastName: `User ${u}` },
            email: { email: `user${u}@leftovers-${prefix}.example.com`, isEmailVerified: true },
            ...(u === 0 ? { hashedPassword: { value: BCRYPT }, otpCode: TOTP } : { password: PASSWORD }),
          },
        })),
        oidcIdps: [{ idpId: `${prefix}9999`, idp: { name: 'Corp OIDC', clientId: 'corp', clientSecret: CLIENT_SECRET, issuer: 'https://oidc.example.com', scopes: ['openid'] } }],
      },
    ],
  };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

const spoolsIn = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('identity-import-'));

describe.each(DIALECTS)('what an import leaves on disk when its process is killed [%s]', (dialect) => {
  const running: ServerProcess[] = [];
  beforeAll(() => buildServer(), 600_000);
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => (s.child.exitCode === null ? stopServerProcess(s) : undefined)));
  });

  async function environment() {
    const dir = tempDir('identity-leftovers-');
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const database = dialect === 'postgres' ? await freshPostgresDatabase() : `file:${join(dir, 'identity.db')}`;
    return { DATA_DIR: join(dir, 'data'), DATABASE_URL: database, ADMIN_PAT_FILE: join(dir, 'admin.pat'), TMPDIR: tmp };
  }
  async function start(env: Record<string, string>) {
    const server = await startServerProcess(env, { built: true });
    running.push(server);
    return server;
  }

  /** Waits until an import's first pass has split the document into the spool (its users' file exists). */
  async function untilSpooled(tmp: string): Promise<void> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      if (filesUnder(tmp).some((f) => f.endsWith('org-0.users.jsonl'))) return;
    }
    throw new Error('the import did not spool its document in 60 s');
  }

  for (const path of ['ImportData', 'an import job'] as const) {
    it(`killed (SIGKILL) during ${path}: no secret of the document in plain text under TMPDIR; the next start removes the folder`, async () => {
      const env = await environment();
      const server = await start(env);
      const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
      const doc = secretDocument(path === 'ImportData' ? '51' : '52');
      const request = fetch(`http://127.0.0.1:${server.port}/admin/v1/import${path === 'ImportData' ? '' : '/jobs'}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ timeout: '5m', dataOrgs: doc }),
      }).then(
        (res) => res.text(),
        () => 'connection closed',
      );
      await untilSpooled(env.TMPDIR);
      server.child.kill('SIGKILL');
      await server.exited;
      await request;

      const left = filesUnder(env.TMPDIR);
      // A job reads its request from DATA_DIR, where it waits sealed (job-documents.ts): no copy in the spool.
      const written = path === 'ImportData' ? ['request.json', 'org-0.users.jsonl', 'org-0.jsonl'] : ['org-0.users.jsonl', 'org-0.jsonl'];
      expect(left.map((f) => f.split('/').at(-1))).toEqual(expect.arrayContaining(written));
      for (const file of left) {
        const bytes = readFileSync(file);
        for (const clear of [TOTP, BCRYPT, CLIENT_SECRET, PASSWORD, 'secret-user1', 'dataOrgs']) expect(bytes.includes(clear), `${clear} in ${file}`).toBe(false);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      }

      // A folder of a process still running (this one) is not the new process's to remove.
      const running = await createSpool(env.TMPDIR);
      await start(env);
      expect(spoolsIn(env.TMPDIR)).toEqual([running.dir.split('/').at(-1)]);
      await running.remove();
    }, 180_000);
  }
});

describe('removing what stopped imports left (removeLeftoverSpools)', () => {
  /** A spool folder with an owner record, as createSpool writes it. */
  function folder(parent: string, name: string, owner?: Record<string, unknown>) {
    const dir = join(parent, `identity-import-${name}`);
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'request.json'), 'sealed bytes');
    if (owner) writeFileSync(join(dir, 'owner.json'), JSON.stringify(owner));
    return dir;
  }
  const proc = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { host: hostname(), boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), pid, started: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] };
  };

  it('removes the folders of processes that are gone, and no other', async () => {
    const parent = mkdtempSync(join(tempDir('identity-leftover-unit-'), 'tmp-'));
    // A process that ran and ended: its record, taken while it ran.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const ended = proc(child.pid!);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const self = proc(process.pid);

    const gone = [
      folder(parent, 'ended', ended),
      folder(parent, 'reused-pid', { ...self, started: String(Number(self.started) - 1) }),
      folder(parent, 'earlier-boot', { ...self, boot: '00000000-0000-0000-0000-000000000000' }),
      folder(parent, 'unowned-old'),
    ];
    const day = 25 * 60 * 60;
    for (const path of [join(gone[3], 'request.json'), gone[3]]) utimesSync(path, Date.now() / 1000 - day, Date.now() / 1000 - day);
    const kept = [folder(parent, 'running', self), folder(parent, 'other-host', { ...ended, host: 'another-container' }), folder(parent, 'unowned-new'), (await createSpool(parent)).dir];
    // Not followed: a link named as a spool, to a folder that is not one.
    const target = mkdtempSync(join(parent, 'elsewhere-'));
    writeFileSync(join(target, 'keep.txt'), 'keep');
    symlinkSync(target, join(parent, 'identity-import-link'));

    expect((await removeLeftoverSpools(parent)).sort()).toEqual([...gone].sort());
    const names = readdirSync(parent);
    for (const dir of kept) expect(names).toContain(dir.split('/').at(-1));
    expect(names).toContain('identity-import-link');
    expect(readdirSync(target)).toEqual(['keep.txt']);
  });
});
