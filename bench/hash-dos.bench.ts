/**
 * Costly password hashes under attack, two scenarios; meanwhile other accounts sign in from
 * 127.0.0.1 through the whole login (authorization request → form → password → redirect with a
 * code, the tests' browser stand-in):
 * - one account (issue 33, item 5): four anonymous clients, each from its own loopback address
 *   (127.0.0.2–5), hammer the login form of one account whose stored hash sits at the cost bounds,
 *   with wrong passwords, as fast as the server answers; run once per hash kind (BENCH_HASHES);
 * - across accounts (issue 47, item 5): one address (127.0.0.2) keeps ten wrong passwords in flight,
 *   each for the next of 72 accounts whose hashes sit at the CPU bounds (bcrypt 15, sha512-crypt
 *   1,000,000 rounds, pbkdf2-sha1 5,000,000 rounds of a 64-byte key: 8–10 s each; random digests),
 *   so the per-account bound does not thin it out.
 * Reported per run: the others' sign-in times (p50/p99/max) without and during the attack, what
 * the attackers got (401 = their check ran, 429 = throttled, 503 = the pool was full), and the
 * server's RSS before and its peak (VmHWM: the server is started fresh for each run).
 *
 *   npx tsx bench/hash-dos.bench.ts        (from the repo root; SQLite, loopback only)
 *
 * Environment: BENCH_SCENARIOS=one-account,cross-account, BENCH_HASHES=argon2,scrypt,pbkdf2 (the
 * one-account runs' hashes at the bounds), BENCH_SECONDS=30 (attack length), BENCH_BASELINE_SECONDS=10,
 * BENCH_ATTACK_CONCURRENCY=4 (requests each one-account attacker keeps in flight; the cross-account
 * one keeps 10), BENCH_SIGNERS=2 (others signing in at once), BENCH_KEEP=1 (keep the work dir).
 */

import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashSync } from '@node-rs/argon2';
import * as oc from 'openid-client';
import { hashCostProblem } from '../packages/server/src/auth/hash-cost.js';
import { Browser, loginThroughForm } from '../packages/server/test/support/browser.js';
import { type Child, freePort, startChild } from './support/children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'one-account,cross-account').split(',');
const HASHES = (process.env.BENCH_HASHES ?? 'argon2,scrypt,pbkdf2').split(',');
const ATTACK_SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 10);
const ATTACK_CONCURRENCY = Number(process.env.BENCH_ATTACK_CONCURRENCY ?? 4);
const SIGNERS = Number(process.env.BENCH_SIGNERS ?? 2);
const ATTACKERS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
/** The cross-account scenario: one address, ten requests in flight, 72 accounts. */
const CROSS = { address: '127.0.0.2', inFlight: 10, accounts: 72 };
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

/** A random string of the crypt alphabet (`./0-9A-Za-z`). */
const cryptChars = (n: number) => Array.from(randomBytes(n), (b) => './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 64]).join('');

/** Hashes at the CPU bounds with random digests (the attacker's passwords are wrong anyway): 8–10 s each. */
const AT_THE_CPU_BOUNDS = [
  () => `$2b$15$${cryptChars(22)}${cryptChars(31)}`,
  () => `$6$rounds=1000000$${cryptChars(16)}$${cryptChars(86)}`,
  () => `$pbkdf2$5000000$${b64(randomBytes(16))}$${b64(randomBytes(64))}`,
];

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

/**
 * One attacker's request loop: a login form of its own, then wrong passwords to it as fast as they
 * are answered, each for the account `victim()` names.
 */
async function attackLoop(child: Child, config: oc.Configuration, address: string, until: () => boolean, statuses: Record<string, number>, victim: () => string = () => 'victim') {
  const browser = new Browser({ localAddress: address });
  let action: string | undefined;
  for (let n = 0; !until(); n++) {
    if (!action) {
      const page = await browser.follow(await authorizationUrl(config), REDIRECT);
      action = /<form method="post" action="([^"]+)"/.exec(await page.res.text())?.[1]?.replace(/&amp;/g, '&');
      if (!action) throw new Error('no login form for the attacker');
    }
    const res = await browser.request(child.baseUrl + action, { form: { loginName: victim(), password: `guess-${address}-${n}` } });
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

/** What a run attacks: its victims' hashes (one account, or many), and how the attack is made. */
interface Attack {
  label: string;
  victims: Array<{ userName: string; hash: string }>;
  /** The attackers' request loops, once the server is set up. */
  loops: (server: Child, config: oc.Configuration, over: () => boolean, statuses: Record<string, number>) => Promise<void>[];
}

function oneAccount(kind: string): Attack {
  const { label, make } = AT_THE_BOUNDS[kind];
  return {
    label,
    victims: [{ userName: 'victim', hash: make() }],
    loops: (server, config, over, statuses) => ATTACKERS.flatMap((address) => Array.from({ length: ATTACK_CONCURRENCY }, () => attackLoop(server, config, address, over, statuses))),
  };
}

function crossAccount(): Attack {
  const victims = Array.from({ length: CROSS.accounts }, (_, i) => ({ userName: `costly-${i}`, hash: AT_THE_CPU_BOUNDS[i % AT_THE_CPU_BOUNDS.length]() }));
  let next = 0;
  return {
    label: `${CROSS.accounts} accounts at the CPU bounds (bcrypt 15, sha512-crypt 1,000,000, pbkdf2-sha1 5,000,000), ${CROSS.inFlight} in flight from ${CROSS.address}`,
    victims,
    loops: (server, config, over, statuses) => Array.from({ length: CROSS.inFlight }, () => attackLoop(server, config, CROSS.address, over, statuses, () => victims[next++ % victims.length].userName)),
  };
}

async function run(work: string, name: string, attack: Attack): Promise<Run> {
  for (const { hash } of attack.victims) {
    const problem = hashCostProblem(hash);
    if (problem) throw new Error(`a victim's hash is beyond the bounds: ${problem}`);
  }
  const port = await freePort();
  const patFile = join(work, `${name}.pat`);
  const server = await startChild({
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: SERVER_DIR,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      EXTERNAL_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: join(work, `${name}.db`),
      ADMIN_PAT_FILE: patFile,
      LOG_LEVEL: 'warn',
      ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
    },
    port,
    readyPath: '/readyz',
    logFile: join(work, `server-${name}.log`),
  });
  try {
    const authorization = `Bearer ${readFileSync(patFile, 'utf8').trim()}`;
    const human = (userName: string, secret: Record<string, unknown>) =>
      api(server, authorization, 'POST', '/management/v1/users/human/_import', {
        userName,
        profile: { firstName: 'Bench', lastName: userName },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        ...secret,
      });
    for (const victim of attack.victims) await human(victim.userName, { hashedPassword: { value: victim.hash } });
    for (let i = 0; i < OTHERS; i++) await human(`other-${i}`, { password: PASSWORD });
    const project = await api(server, authorization, 'POST', '/management/v1/projects', { name: 'hash-dos' });
    const app = await api(server, authorization, 'POST', `/management/v1/projects/${project.id}/apps/oidc`, {
      name: 'hash-dos',
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
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
    const attackers = attack.loops(server, config, over, attackStatuses);
    await new Promise((r) => setTimeout(r, 1_000)); // let the attack take hold first
    await Promise.all([...attackers, ...Array.from({ length: SIGNERS }, (_, k) => signInLoop(config, over, k, attacked, failures))]);
    const rssPeak = procMiB(server.proc.pid, 'VmHWM');
    const cores = ((server.cpuSeconds() ?? NaN) - cpuBefore) / ((performance.now() - attackStarted) / 1000);
    return { hash: attack.label, baseline, attacked, failures, attackStatuses, rssBefore, rssPeak, cores };
  } finally {
    await server.stop();
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'identity-hash-dos-'));
  const runs: Run[] = [];
  try {
    const attacks: Array<[string, () => Attack]> = [
      ...(SCENARIOS.includes('one-account') ? HASHES.map((kind): [string, () => Attack] => [kind, () => oneAccount(kind)]) : []),
      ...(SCENARIOS.includes('cross-account') ? [['cross-account', crossAccount] as [string, () => Attack]] : []),
    ];
    for (const [name, attack] of attacks) {
      const r = await run(work, name, attack());
      runs.push(r);
      console.log(`  ${r.hash}: done (${r.attacked.length} sign-ins during the attack)`);
    }
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
  const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : '-');
  console.log(
    `\none account: ${ATTACKERS.length} attackers × ${ATTACK_CONCURRENCY} requests in flight; across accounts: one address, ${CROSS.inFlight} in flight; ${ATTACK_SECONDS} s each; ${SIGNERS} others signing in at once (${OTHERS} accounts)\n`,
  );
  console.log(
    '| attacked | others alone p50 / p99 ms | during the attack p50 / p99 / max ms | sign-ins during | others refused | attackers 401 / 429 / 503 | server cores busy | server RSS before / peak MiB |',
  );
  console.log('| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
  for (const r of runs) {
    const base = [...r.baseline].sort((a, b) => a - b);
    const att = [...r.attacked].sort((a, b) => a - b);
    const refused =
      Object.entries(r.failures)
        .map(([s, n]) => `${n}× ${s}`)
        .join(', ') || 'none';
    const a = r.attackStatuses;
    console.log(
      `| ${r.hash} | ${ms(quantile(base, 0.5))} / ${ms(quantile(base, 0.99))} | ${ms(quantile(att, 0.5))} / ${ms(quantile(att, 0.99))} / ${ms(att[att.length - 1])} | ${att.length} | ${refused} | ${a[401] ?? 0} / ${a[429] ?? 0} / ${a[503] ?? 0} | ${r.cores.toFixed(2)} | ${r.rssBefore.toFixed(0)} / ${r.rssPeak.toFixed(0)} |`,
    );
  }
  const worstP99 = Math.max(
    ...runs.map((r) =>
      quantile(
        [...r.attacked].sort((a, b) => a - b),
        0.99,
      ),
    ),
  );
  const worstPeak = Math.max(...runs.map((r) => r.rssPeak));
  console.log(`\ntarget (others' p99 during the attack ≤ 2,000 ms): ${worstP99 <= 2000 ? 'met' : 'NOT met'} (worst ${ms(worstP99)} ms); server peak RSS ${worstPeak.toFixed(0)} MiB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
