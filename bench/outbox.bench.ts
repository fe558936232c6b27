/**
 * Queue-to-delivery throughput of the outbox (issue 10): N users are imported with an unverified
 * email (each import queues a verification mail in its transaction), then outbox workers deliver
 * them to an SMTP server on loopback (smtp-server, in this process) through an activated SMTP
 * provider. Measured: seconds from the workers' start until the SMTP server has received all N,
 * and messages/s. Each message costs a leased outbox row, a new code and its event (one
 * transaction, locking the user), the text lookup and rendering, and one SMTP transaction on a
 * pooled connection.
 *
 *   npx tsx bench/outbox.bench.ts      (from the repo root; appends to BENCHMARKS.md)
 *
 * Environment: BENCH_MESSAGES=2000, BENCH_STORES=sqlite,postgres, BENCH_NO_APPEND=1.
 * Cases: one worker; on PostgreSQL also two workers on two stores (connection pools) on the same
 * database, as two processes would run.
 */
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

async function sink() {
  let received = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return { port: (server.server.address() as AddressInfo).port, received: () => received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

interface Result {
  store: string;
  workers: number;
  messages: number;
  seconds: number;
  perSecond: number;
  cpuMsPerMessage: number;
}

async function runCase(dialect: 'sqlite' | 'postgres', target: string, workers: number): Promise<Result> {
  const { openStore } = await import('../packages/server/src/store/store.js');
  const { bootstrapInstance } = await import('../packages/server/src/domain/instance/bootstrap.js');
  const { authenticate, personalAccessTokenVerifier } = await import('../packages/server/src/auth/authenticate.js');
  const { importHumanUser } = await import('../packages/server/src/domain/users/commands.js');
  const { addSmtpProvider, activateSmtpProvider } = await import('../packages/server/src/domain/notifications/smtp-providers.js');
  const { OutboxWorker } = await import('../packages/server/src/background/outbox-worker.js');
  const { processSecretBox } = await import('../packages/server/src/secrets/secret-box.js');
  const store = await openStore({ dialect, target });
  const boot = await bootstrapInstance(store, 'localhost');
  const ctx = await authenticate(store, [personalAccessTokenVerifier(store)], boot.instanceId, `Bearer ${boot.created!.token}`, undefined);
  const smtp = await sink();
  const secrets = processSecretBox();
  const { id } = await addSmtpProvider(store, secrets, ctx, { senderAddress: 'noreply@bench.example', senderName: 'Bench', host: `127.0.0.1:${smtp.port}` });
  await activateSmtpProvider(store, ctx, id);
  for (let i = 0; i < MESSAGES; i++) {
    await importHumanUser(store, ctx, { userName: `u${i}`, profile: { firstName: 'U', lastName: String(i) }, email: { email: `u${i}@bench.example` }, hashedPassword: { value: BCRYPT } }, secrets);
  }
  const stores = [store, ...(await Promise.all(Array.from({ length: workers - 1 }, () => openStore({ dialect, target }))))];
  const ws = stores.map((s) => new OutboxWorker({ store: s, secrets, instanceId: boot.instanceId, externalUrl: 'http://localhost:8080', mailDropDir: '/nonexistent', pollMs: 20 }));
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const w of ws) w.start();
  while (smtp.received() < MESSAGES) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await Promise.all(ws.map((w) => w.stop()));
  for (const s of stores) await s.close();
  await smtp.close();
  return { store: dialect, workers, messages: MESSAGES, seconds, perSecond: MESSAGES / seconds, cpuMsPerMessage: (used.user + used.system) / 1000 / MESSAGES };
}

const results: Result[] = [];
let pg: Awaited<ReturnType<typeof import('./support/postgres.js')['startPostgres']>> | undefined;
try {
  for (const store of (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[]) {
    // SQLite is the single-process store: several processes on one file would queue on its write lock.
    for (const workers of store === 'postgres' ? [1, 2] : [1]) {
      let target: string;
      let dir: string | undefined;
      if (store === 'postgres') {
        pg ??= await (await import('./support/postgres.js')).startPostgres();
        target = await pg.createDatabase(`outbox_${workers}_${Date.now()}`);
      } else {
        dir = mkdtempSync(join(tmpdir(), 'outbox-bench-'));
        target = join(dir, 'identity.db');
      }
      const r = await runCase(store, target, workers);
      results.push(r);
      process.stderr.write(`${JSON.stringify(r)}\n`);
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await pg?.stop();
}
const table = [
  '',
  `## Outbox: queue to delivery over SMTP (bench/outbox.bench.ts)`,
  '',
  `${new Date().toISOString().slice(0, 10)}, ${process.platform}/${process.arch}, Node ${process.version}, ${MESSAGES.toLocaleString('en')} verification mails queued by`,
  "imports, delivered through an activated SMTP provider to smtp-server on loopback (same process). Time from the workers' start",
  'until the server has received every mail; CPU is the whole process (workers, store client, SMTP server) per message.',
  '',
  '| store | workers | messages | seconds | messages/s | CPU ms/message |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...results.map((r) => `| ${r.store} | ${r.workers} | ${r.messages} | ${r.seconds.toFixed(1)} | ${r.perSecond.toFixed(0)} | ${r.cpuMsPerMessage.toFixed(2)} |`),
  '',
].join('\n');
process.stdout.write(table);
if (!process.env.BENCH_NO_APPEND) {
  const file = join(fileURLToPath(new URL('..', import.meta.url)), 'BENCHMARKS.md');
  appendFileSync(file, `${existsSync(file) ? '' : '# Benchmarks\n'}${table}`);
}
process.exit(0);
