/**
 * Costly password hashes under attack (issue 33, item 5): four anonymous clients, each from its own
 * loopback address (127.0.0.2–5), hammer the login form of one account whose stored hash sits at
 * the cost bounds, with wrong passwords, as fast as the server answers; meanwhile other accounts
 * sign in from 127.0.0.1 through the whole login (authorization request → form → password →
 * redirect with a code, the tests' browser stand-in). Reported per hash: the others' sign-in
 * times (p50/p99/max) without and during the attack, what the attackers got (401 = their check
 * ran, 429 = throttled, 503 = the pool was full), and the server's RSS before and its peak
 * (VmHWM: the server is started fresh for each hash, so the peak is that run's).
 *
 *   npx tsx bench/hash-dos.bench.ts        (from the repo root; SQLite, loopback only)
 *
 * Environment: BENCH_HASHES=argon2,scrypt,pbkdf2 (which hashes at the bounds), BENCH_SECONDS=30
 * (attack length), BENCH_BASELINE_SECONDS=10, BENCH_ATTACK_CONCURRENCY=4 (requests each attacker
 * keeps in flight), BENCH_SIGNERS=2 (others signing in at once), BENCH_KEEP=1 (keep the work dir).
 */
import { hashSync } from '@node-rs/argon2';
import { pbkdf2Sync, scryptSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as oc from 'openid-client';
import { Browser, loginThroughForm } from '../packages/server/test/support/browser.js';
import { hashCostProblem } from '../packages/server/src/auth/hash-cost.js';
import { freePort, startChild, type Child } from './support/children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const HASHES = (process.env.BENCH_HASHES ?? 'argon2,scrypt,pbkdf2').split(',');
const ATTACK_SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 10);
const ATTACK_CONCURRENCY = Number(process.env.BENCH_ATTACK_CONCURRENCY ?? 4);
const SIGNERS = Number(process.env.BENCH_SIGNERS ?? 2);
const ATTACKERS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const OTHERS = 20;
const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Bench-Passw0rd!';

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
const SALT = Buffer.from('5a17c0ffee5a17c0ffee5a17c0ffee00', 'hex');

/** Each hash at the bounds of hash-cost.ts (of the victim's password, which the attackers do not send). */
const AT_THE_BOUNDS: Record<string, { label: string; make: () => string }> = {
  // Every argon2 bound at once: 64 MiB, 20 passes, 16 lanes.
  argon2: { label: 'argon2id m=65536 t=20 p=16 (64 MiB)', make: () => hashSync(PASSWORD, { algorithm: 2 as never, memoryCost: 65_536, timeCost: 20, parallelism: 16 }) },
  // The memory bound: 128·2^16·8·1 = 64 MiB.
  scrypt: { label: 'scrypt ln=16 r=8 p=1 (64 MiB)', make: () => `$scrypt$ln=16,r=8,p=1$${b64(SALT)}$${b64(scryptSync(PASSWORD, SALT, 32, { N: 2 ** 16, r: 8, p: 1, maxmem: 80 * 1024 * 1024 }))}` },
  // The costliest CPU bound: 5,000,000 rounds for each of the four sha1 blocks of a 64-byte key.
  pbkdf2: { label: 'pbkdf2-sha1 5,000,000 rounds, 64-byte key', make: () => `$pbkdf2$5000000$${b64(SALT)}$${b64(pbkdf2Sync(PASSWORD, SALT, 5_000_000, 64, 'sha1'))}` },
};

function procMiB(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);

async function api(child: Child, authorization: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(child.baseUrl + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<Record<string, any>>;
}

async function authorizationUrl(config: oc.Configuration): Promise<string> {
  const challenge = await oc.calculatePKCECodeChallenge(oc.randomPKCECodeVerifier());
  return oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' }).href;
}

/** Someone else signing in, over and over until `until`: each sign-in's milliseconds, and what failed. */
async function signInLoop(config: oc.Configuration, until: () => boolean, first: number, times: number[], failures: Record<string, number>) {
  for (let i = first; !until(); i += SIGNERS) {
    const started = performance.now();
    const result = await loginThroughForm(new Browser({ localAddress: '127.0.0.1' }), await authorizationUrl(config), REDIRECT, `other-${i % OTHERS}`, PASSWORD);
    if (result.callback?.searchParams.get('code')) times.push(performance.now() - started);
    else failures[String(result.page?.status)] = (failures[String(result.page?.status)] ?? 0) + 1;
  }
}

/** One attacker's request loop: a login form of its own, then wrong passwords to it as fast as they are answered. */
async function attackLoop(child: Child, config: oc.Configuration, address: string, until: () => boolean, statuses: Record<string, number>) {
  const browser = new Browser({ localAddress: address });
  let action: string | undefined;
  for (let n = 0; !until(); n++) {
    if (!action) {
      const page = await browser.follow(await authorizationUrl(config), REDIRECT);
      action = /<form method="post" action="([^"]+)"/.exec(await page.res.text())?.[1]?.replace(/&amp;/g, '&');
      if (!action) throw new Error('no login form for the attacker');
    }
    const res = await browser.request(child.baseUrl + action, { form: { loginName: 'victim', password: `guess-${address}-${n}` } });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 400) action = undefined; // the attempt expired: a new one
  }
}

interface Run {
  hash: string;
  baseline: number[];
  attacked: number[];
  failures: Record<string, number>;
  attackStatuses: Record<string, number>;
  rssBefore: number;
  rssPeak: number;
  /** The server's CPU seconds during the attack, per second of it. */
  cores: number;
}

async function run(work: string, kind: string): Promise<Run> {
  const { label, make } = AT_THE_BOUNDS[kind];
  const victimHash = make();
  const problem = hashCostProblem(victimHash);
  if (problem) throw new Error(`the victim's hash is beyond the bounds: ${problem}`);
  const port = await freePort();
  const patFile = join(work, `${kind}.pat`);
  const server = await startChild({
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: SERVER_DIR,
    env: {
      PORT: String(port), HOST: '127.0.0.1', EXTERNAL_URL: `http://127.0.0.1:${port}`, DATABASE_URL: join(work, `${kind}.db`),
      ADMIN_PAT_FILE: patFile, LOG_LEVEL: 'warn', ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
    },
    port,
    readyPath: '/readyz',
    logFile: join(work, `server-${kind}.log`),
  });
  try {
    const authorization = `Bearer ${readFileSync(patFile, 'utf8').trim()}`;
    const human = (userName: string, secret: Record<string, unknown>) => api(server, authorization, 'POST', '/management/v1/users/human/_import', {
      userName, profile: { firstName: 'Bench', lastName: userName }, email: { email: `${userName}@example.com`, isEmailVerified: true }, ...secret,
    });
    await human('victim', { hashedPassword: { value: victimHash } });
    for (let i = 0; i < OTHERS; i++) await human(`other-${i}`, { password: PASSWORD });
    const project = await api(server, authorization, 'POST', '/management/v1/projects', { name: 'hash-dos' });
    const app = await api(server, authorization, 'POST', `/management/v1/projects/${project.id}/apps/oidc`, {
      name: 'hash-dos', redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true,
    });
    const config = await oc.discovery(new URL(server.baseUrl), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });

    const failures: Record<string, number> = {};
    // Warm-up (routes, statements, the first workers), then the others alone.
    let end = Date.now() + 2_000;
    await Promise.all(Array.from({ length: SIGNERS }, (_, k) => signInLoop(config, () => Date.now() > end, k, [], failures)));
    const baseline: number[] = [];
    end = Date.now() + BASELINE_SECONDS * 1000;
    await Promise.all(Array.from({ length: SIGNERS }, (_, k) => signInLoop(config, () => Date.now() > end, k, baseline, failures)));
    const rssBefore = procMiB(server.proc.pid, 'VmRSS');

    // The attack, and the others signing in during it.
    const attackStatuses: Record<string, number> = {};
    const attacked: number[] = [];
    end = Date.now() + ATTACK_SECONDS * 1000;
    const cpuBefore = server.cpuSeconds() ?? NaN;
    const attackStarted = performance.now();
    const over = () => Date.now() > end;
    const attackers = ATTACKERS.flatMap((address) => Array.from({ length: ATTACK_CONCURRENCY }, () => attackLoop(server, config, address, over, attackStatuses)));
    await new Promise((r) => setTimeout(r, 1_000)); // let the attack take hold first
    await Promise.all([...attackers, ...Array.from({ length: SIGNERS }, (_, k) => signInLoop(config, over, k, attacked, failures))]);
    const rssPeak = procMiB(server.proc.pid, 'VmHWM');
    const cores = ((server.cpuSeconds() ?? NaN) - cpuBefore) / ((performance.now() - attackStarted) / 1000);
    return { hash: label, baseline, attacked, failures, attackStatuses, rssBefore, rssPeak, cores };
  } finally {
    await server.stop();
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'identity-hash-dos-'));
  const runs: Run[] = [];
  try {
    for (const kind of HASHES) {
      const r = await run(work, kind);
      runs.push(r);
      console.log(`  ${r.hash}: done (${r.attacked.length} sign-ins during the attack)`);
    }
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
  const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : '-');
  console.log(`\n${ATTACKERS.length} attackers × ${ATTACK_CONCURRENCY} requests in flight for ${ATTACK_SECONDS} s; ${SIGNERS} others signing in at once (${OTHERS} accounts)\n`);
  console.log('| victim\'s hash | others alone p50 / p99 ms | during the attack p50 / p99 / max ms | sign-ins during | others refused | attackers 401 / 429 / 503 | server cores busy | server RSS before / peak MiB |');
  console.log('| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
  for (const r of runs) {
    const base = [...r.baseline].sort((a, b) => a - b);
    const att = [...r.attacked].sort((a, b) => a - b);
    const refused = Object.entries(r.failures).map(([s, n]) => `${n}× ${s}`).join(', ') || 'none';
    const a = r.attackStatuses;
    console.log(`| ${r.hash} | ${ms(quantile(base, 0.5))} / ${ms(quantile(base, 0.99))} | ${ms(quantile(att, 0.5))} / ${ms(quantile(att, 0.99))} / ${ms(att[att.length - 1])} | ${att.length} | ${refused} | ${a[401] ?? 0} / ${a[429] ?? 0} / ${a[503] ?? 0} | ${r.cores.toFixed(2)} | ${r.rssBefore.toFixed(0)} / ${r.rssPeak.toFixed(0)} |`);
  }
  const worstP99 = Math.max(...runs.map((r) => quantile([...r.attacked].sort((a, b) => a - b), 0.99)));
  const worstPeak = Math.max(...runs.map((r) => r.rssPeak));
  console.log(`\ntarget (others' p99 during the attack ≤ 2,000 ms): ${worstP99 <= 2000 ? 'met' : 'NOT met'} (worst ${ms(worstP99)} ms); server peak RSS ${worstPeak.toFixed(0)} MiB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
