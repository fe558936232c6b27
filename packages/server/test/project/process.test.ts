/**
 * The server as a user starts it: `src/main.ts` in its own process, configured by the
 * environment, bootstrapping on first start, stopping gracefully on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { generateKeyText } from '../../src/secrets/secret-box.js';
import { freshPostgresDatabase } from '../support/instance.js';
import { startSmtpSink } from '../support/mail.js';
import { startServerProcess, stopServerProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';

const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');
const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Whether something listens on the port (a connection is accepted). */
function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const start = startServerProcess;
const stop = stopServerProcess;

describe('the server process', () => {
  it('first start bootstraps and writes the admin token (0600); later starts create nothing; SIGTERM stops it cleanly', async () => {
    const dir = tempDir('identity-proc-');
    const env = { DATABASE_URL: `file:${join(dir, 'data', 'identity.db')}`, ADMIN_PAT_FILE: join(dir, 'data', 'admin.pat') };
    const first = await start(env);
    const token = readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim();
    expect(statSync(env.ADMIN_PAT_FILE).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(token);

    const base = `http://127.0.0.1:${first.port}`;
    const put = await fetch(`${base}/admin/v1/text/message/verifyemail/en`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hi' }),
    });
    expect(put.status).toBe(200);
    expect(typeof (await put.json()).details.sequence).toBe('string');
    expect(first.output()).toMatch(/"msg":"request".*"requestId":".+".*"status":200/);
    expect(await stop(first)).toBe(0);

    const second = await start(env);
    expect(second.output()).not.toContain('First start');
    expect(readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim()).toBe(token);
    const get = await fetch(`http://127.0.0.1:${second.port}/admin/v1/text/message/verifyemail/en`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get.json()).customText.title).toBe('Hi');
    expect(await stop(second)).toBe(0);
  });

  it('`npm start` runs the compiled server under node, and SIGTERM to the npm process stops it within 5 s and frees the port', async () => {
    const dir = tempDir('identity-proc-');
    // Exactly what a user or a supervisor runs: npm (which runs `prestart`, then sh → node).
    const child = spawn('npm', ['start', '--silent'], {
      cwd: REPO,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATABASE_URL: `file:${join(dir, 'identity.db')}`,
        ADMIN_PAT_FILE: join(dir, 'admin.pat'),
        ENCRYPTION_KEY_FILE: join(dir, 'encryption.key'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const { port, pid } = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${out}`)), 150_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const match = /"msg":"listening".*?"port":(\d+),"pid":(\d+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve({ port: Number(match[1]), pid: Number(match[2]) });
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then(() => reject(new Error(`npm start exited:\n${out}`)));
    });
    try {
      // The server is node running the compiled JavaScript (no tsx between npm and it).
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(
        cmdline.some((arg) => arg.endsWith('packages/server/dist/main.js')),
        cmdline.join(' '),
      ).toBe(true);
      expect(cmdline.join(' ')).not.toMatch(/tsx/);
      expect(await portInUse(port)).toBe(true);
      // The compiled server finds the spec (openapi/) and applied its migrations (the token works).
      expect((await fetch(`http://127.0.0.1:${port}/openapi.json`)).status).toBe(200);
      const token = readFileSync(join(dir, 'admin.pat'), 'utf8').trim();
      expect((await fetch(`http://127.0.0.1:${port}/admin/v1/languages`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

      const signalledAt = Date.now();
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5000))]);
      expect(stopped, out).not.toBe('timeout');
      expect(Date.now() - signalledAt).toBeLessThan(5000);
      expect(out).toMatch(/"msg":"stopped"/);
      expect(await portInUse(port)).toBe(false);
    } finally {
      // Whatever happened, leave no server behind (the one npm started may have been orphaned).
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 180_000);

  // Issue 33.12: every `npm start` ran tsc (about 12 s) even when nothing had changed.
  it('`npm start` does not recompile when no source changed since the last build', async () => {
    const prestart = () =>
      new Promise<{ ms: number; out: string; code: number | null }>((resolve) => {
        const started = Date.now();
        const child = spawn('npm', ['run', 'prestart', '--silent'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
        child.on('exit', (code) => resolve({ ms: Date.now() - started, out, code }));
      });
    const first = await prestart(); // builds if anything is newer than the last build
    expect(first.code, first.out).toBe(0);
    const main = statSync(join(REPO, 'packages/server/dist/main.js')).mtimeMs;
    const second = await prestart();
    expect(second.code, second.out).toBe(0);
    expect(second.out).not.toMatch(/building the server/);
    expect(statSync(join(REPO, 'packages/server/dist/main.js')).mtimeMs).toBe(main);
    expect(second.ms, 'npm and a check of file times, not tsc').toBeLessThan(4000);
  }, 180_000);

  it('the signing keys are sealed with the operator key: a start with another key stops, naming both key ids', async () => {
    const dir = tempDir('identity-proc-');
    const env = { DATABASE_URL: `file:${join(dir, 'identity.db')}`, ADMIN_PAT_FILE: join(dir, 'admin.pat'), ENCRYPTION_KEY_FILE: join(dir, 'encryption.key') };
    const first = await start(env);
    expect(statSync(env.ENCRYPTION_KEY_FILE).mode & 0o777).toBe(0o600);
    expect(await stop(first)).toBe(0);
    await expect(start({ ...env, ENCRYPTION_KEY: generateKeyText() })).rejects.toThrow(/exited with 2[\s\S]*sealed with encryption key [0-9a-f]{8}, but this process has key [0-9a-f]{8}/);
  });

  it("a second instance started with the first one's DATA_DIR on an empty store stops (exit 2), naming the token file, DATA_DIR and ADMIN_PAT_FILE; the file is untouched and the store still empty", async () => {
    const dir = tempDir('identity-proc-');
    // As docs/postgresql.md shows: the first instance on SQLite in ./data, the second with only DATABASE_URL changed.
    const data = join(dir, 'data');
    const first = await start({ DATA_DIR: data, ENCRYPTION_KEY_FILE: join(data, 'encryption.key') });
    expect(await stop(first)).toBe(0);
    expect(readdirSync(data)).toEqual(expect.arrayContaining(['admin.pat', 'encryption.key', 'identity.db']));
    const patFile = join(data, 'admin.pat');
    const token = readFileSync(patFile, 'utf8');
    const before = statSync(patFile);

    const url = await freshPostgresDatabase();
    const refused = await start({ DATA_DIR: data, ENCRYPTION_KEY_FILE: join(data, 'encryption.key'), DATABASE_URL: url }).then(
      async (running) => void (await stop(running)), // started after all: stopped, and the test fails below
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/^server exited with 2:/);
    expect(refused).toContain(`admin token file ${patFile} already exists`);
    expect(refused).toMatch(/DATA_DIR[\s\S]*ADMIN_PAT_FILE/);
    expect(refused).not.toContain('First start');
    expect(readFileSync(patFile, 'utf8')).toBe(token);
    expect(statSync(patFile).mtimeMs).toBe(before.mtimeMs);

    // Nothing was created in the store: started with its own DATA_DIR, the instance bootstraps now.
    const own = join(dir, 'second');
    const second = await start({ DATA_DIR: own, ENCRYPTION_KEY_FILE: join(own, 'encryption.key'), DATABASE_URL: url });
    expect(second.output()).toContain('First start');
    const secondToken = readFileSync(join(own, 'admin.pat'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${second.port}/admin/v1/languages`, { headers: { authorization: `Bearer ${secondToken}` } });
    expect(res.status).toBe(200);
    expect(await stop(second)).toBe(0);
    expect(readFileSync(patFile, 'utf8')).toBe(token);
  });

  it('an ADMIN_PAT_FILE that exists when a new instance bootstraps is never overwritten: the start stops (exit 2)', async () => {
    const dir = tempDir('identity-proc-');
    const patFile = join(dir, 'admin.pat');
    writeFileSync(patFile, 'the token of another instance\n', { mode: 0o600 });
    const refused = await start({ DATABASE_URL: `file:${join(dir, 'new.db')}`, ADMIN_PAT_FILE: patFile }).then(
      async (running) => void (await stop(running)), // started after all: stopped, and the test fails below
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/^server exited with 2:/);
    expect(refused).toContain(`admin token file ${patFile} already exists`);
    expect(readFileSync(patFile, 'utf8')).toBe('the token of another instance\n');
  });

  it('an invalid configuration stops the start with a message naming the variable', async () => {
    await expect(start({ PORT: 'eighty' })).rejects.toThrow(/PORT/);
  });

  it('a DATABASE_URL of an unsupported scheme stops the start (exit 2) before anything is created', async () => {
    const dir = tempDir('identity-proc-');
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), MAIN], {
      cwd: dir,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'mysql://x/y', ADMIN_PAT_FILE: join(dir, 'admin.pat'), ENCRYPTION_KEY_FILE: join(dir, 'k') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/DATABASE_URL: .*mysql/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('two processes starting at once on one SQLite file bootstrap exactly one instance', async () => {
    const dir = tempDir('identity-proc-');
    const db = `file:${join(dir, 'identity.db')}`;
    const servers = await Promise.all([1, 2].map((n) => start({ DATABASE_URL: db, ADMIN_PAT_FILE: join(dir, `admin-${n}.pat`) })));
    expect(servers.filter((s) => s.output().includes('First start'))).toHaveLength(1);
    await Promise.all(servers.map(stop));
  });

  it('two processes starting at once on one PostgreSQL database bootstrap exactly one instance', async () => {
    const url = await freshPostgresDatabase();
    const dir = tempDir('identity-proc-');
    const servers = await Promise.all([1, 2].map((n) => start({ DATABASE_URL: url, ADMIN_PAT_FILE: join(dir, `admin-${n}.pat`) })));
    expect(servers.filter((s) => s.output().includes('First start'))).toHaveLength(1);
    const token = readFileSync(join(dir, `admin-${servers.findIndex((s) => s.output().includes('First start')) + 1}.pat`), 'utf8').trim();
    // The token made by one process works on the other: both serve the same instance.
    for (const s of servers) {
      const res = await fetch(`http://127.0.0.1:${s.port}/admin/v1/languages`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    }
    await Promise.all(servers.map(stop));
  });
  it("two server processes on one PostgreSQL database take writes at once: every one answered, every aggregate's sequences unique and gapless", async () => {
    const url = await freshPostgresDatabase();
    const dir = tempDir('identity-proc-');
    const env = (n: number) => ({ DATABASE_URL: url, ADMIN_PAT_FILE: join(dir, `admin-${n}.pat`) });
    const first = await start(env(1));
    const second = await start(env(2));
    const token = readFileSync(join(dir, 'admin-1.pat'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const ports = [first.port, second.port];
    try {
      // Every write goes to the instance's aggregate (its verify-email text), half through each
      // process, 40 at a time: the processes' transactions queue on one aggregate's sequence.
      const WRITES = 400;
      const statuses: number[] = [];
      const sequences: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          while (next < WRITES) {
            const i = next++;
            const res = await fetch(`http://127.0.0.1:${ports[i % 2]}/admin/v1/text/message/verifyemail/en`, { method: 'PUT', headers, body: JSON.stringify({ title: `Write ${i}` }) });
            statuses.push(res.status);
            if (res.ok) sequences.push(Number((await res.json()).details.sequence));
            else await res.body?.cancel();
          }
        }),
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(new Set(sequences).size).toBe(WRITES);
      // In the event log: per aggregate, sequences 1…n without a gap or a repeat.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string; distinct_n: string; lowest: string; highest: string }>(
          'select count(*) as n, count(distinct sequence) as distinct_n, min(sequence) as lowest, max(sequence) as highest from events group by aggregate_type, aggregate_id',
        );
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) expect([row.distinct_n, row.lowest, row.highest]).toEqual([row.n, '1', row.n]);
        const {
          rows: [texts],
        } = await client.query<{ n: string }>("select count(*) as n from events where type = 'instance.customtext.set'");
        expect(Number(texts.n)).toBeGreaterThanOrEqual(WRITES);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all([stop(first), stop(second)]);
    }
  }, 120_000);

  it('two server processes on one PostgreSQL database deliver 1,000 queued mails exactly once, counted at the SMTP server', async () => {
    const sink = await startSmtpSink();
    const url = await freshPostgresDatabase();
    const dir = tempDir('identity-proc-');
    const env = (n: number) => ({ DATABASE_URL: url, ADMIN_PAT_FILE: join(dir, `admin-${n}.pat`), MAIL_DROP_DIR: join(dir, 'mail') });
    const first = await start(env(1));
    const token = readFileSync(join(dir, 'admin-1.pat'), 'utf8').trim();
    const call = (path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${first.port}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
    const provider = await (await call('/admin/v1/smtp', { senderAddress: 'noreply@example.com', senderName: 'Two', host: `127.0.0.1:${sink.port}` })).json();
    expect((await call(`/admin/v1/smtp/${provider.id}/_activate`)).status).toBe(200);
    const second = await start(env(2));
    try {
      // One import of 1,000 humans with an unverified email, asking for their mails: 1,000 queued at once.
      const humanUsers = Array.from({ length: 1000 }, (_, i) => ({
        userId: `9${String(i).padStart(6, '0')}`,
        user: { userName: `p${i}`, profile: { firstName: 'P', lastName: String(i) }, email: { email: `p${i}@example.com` }, hashedPassword: { value: BCRYPT } },
      }));
      const imported = await call('/admin/v1/import', { timeout: '5m', notifyUsers: true, dataOrgs: { orgs: [{ orgId: '8000001', org: { name: 'Two processes' }, humanUsers }] } });
      expect(imported.status).toBe(200);
      const deadline = Date.now() + 90_000;
      while (sink.messages.length < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 1500)); // a duplicate would arrive by now (both poll every second)
      const ids = sink.messages.map((m) => String(m.headers.get('x-outbox-id')));
      expect(ids).toHaveLength(1000);
      expect(new Set(ids).size).toBe(1000);
      expect(new Set(sink.envelopes.flatMap((e) => e.to)).size).toBe(1000);
      // Both processes took part, and each says so in its log.
      for (const server of [first, second]) expect(server.output()).toMatch(/"msg":"mail sent"/);
      const outbox = await (await call('/admin/v1/notifications/_search', { query: { limit: 1 } })).json();
      expect(outbox.counts).toEqual({ pending: 0, sent: 1000, failed: 0 });
    } finally {
      await Promise.all([stop(first), stop(second)]);
      await sink.close();
    }
  }, 180_000);
});
