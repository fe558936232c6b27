/**
 * Guessing a user's authenticator code (issue 47, item 3), at the default lockout policy
 * (`maxOtpAttempts: 0`: wrong codes never lock), against the code throttle
 * (packages/server/src/domain/login/code-throttle.ts). Two measurements:
 * - real time, over HTTP: the server as its own process; an attacker who knows the password passes
 *   it and posts wrong codes to the code form as fast as they are answered, BENCH_IN_FLIGHT at once,
 *   for BENCH_SECONDS. Reported: requests answered, codes looked at (401), refused unlooked-at (429);
 * - an hour and a day, on the same database through the service's own check (`checkTotpLogin`) with
 *   a clock of the bench's own: for the first hour a guess every second of it; for a day an attacker
 *   who guesses again exactly when the refusal's `Retry-After` says. Reported: codes looked at.
 * From the steady rate: the chance to hit one of the three codes accepted at a time (10^6 possible)
 * per hour, and the time to a 50 % chance.
 *
 *   npx tsx bench/code-guessing.bench.ts        (from the repo root; SQLite, loopback only)
 *
 * Environment: BENCH_SECONDS=30, BENCH_IN_FLIGHT=4, BENCH_KEEP=1 (keep the work dir).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as oc from 'openid-client';
import { loadConfig } from '../packages/server/src/config.js';
import { checkTotpLogin, TOTP_WINDOW, totpCode } from '../packages/server/src/domain/login/totp.js';
import { loadOperatorSecretBox } from '../packages/server/src/secrets/operator-key.js';
import { openStore } from '../packages/server/src/store/store.js';
import { Browser, loginThroughForm } from '../packages/server/test/support/browser.js';
import { freePort, startChild } from './support/children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_DIR = join(HERE, '..', 'packages', 'server');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const REDIRECT = 'http://127.0.0.1:1/cb';
const PASSWORD = 'Bench-Passw0rd!';
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
/** A well-formed code that is not the current one: the attacker's guess (never right, to count them all). */
const wrongAt = (at: number) => totpCode(SECRET, at + 10 * 60_000);

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'identity-code-guessing-'));
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    EXTERNAL_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: join(work, 'identity.db'),
    ADMIN_PAT_FILE: join(work, 'admin.pat'),
    LOG_LEVEL: 'warn',
    ENCRYPTION_KEY_FILE: join(work, 'encryption.key'),
  };
  const server = await startChild({ args: ['--import', 'tsx', 'src/main.ts'], cwd: SERVER_DIR, env, port, readyPath: '/readyz', logFile: join(work, 'server.log') });
  let http: { answered: number; lookedAt: number; refused: number; other: Record<string, number> };
  let clockUser: string;
  let dayUser: string;
  try {
    const authorization = `Bearer ${readFileSync(env.ADMIN_PAT_FILE, 'utf8').trim()}`;
    const api = async (method: string, path: string, body: unknown) => {
      const res = await fetch(server.baseUrl + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, any>>;
    };
    const human = async (userName: string) =>
      (
        await api('POST', '/management/v1/users/human/_import', {
          userName,
          profile: { firstName: 'Bench', lastName: userName },
          email: { email: `${userName}@example.com`, isEmailVerified: true },
          password: PASSWORD,
          otpCode: SECRET,
        })
      ).userId as string;
    await human('victim');
    clockUser = await human('victim-clock');
    dayUser = await human('victim-day');
    const project = await api('POST', '/management/v1/projects', { name: 'guessing' });
    const app = await api('POST', `/management/v1/projects/${project.id}/apps/oidc`, {
      name: 'guessing',
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    const config = await oc.discovery(new URL(server.baseUrl), app.clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const challenge = await oc.calculatePKCECodeChallenge(oc.randomPKCECodeVerifier());
    const authorizeUrl = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' }).href;

    // The attacker passes the password, then posts wrong codes to the code form.
    const browser = new Browser();
    const step = await loginThroughForm(browser, authorizeUrl, REDIRECT, 'victim', PASSWORD);
    const action = /<form method="post" action="([^"]+\/otp)"/.exec(step.page?.html ?? '')?.[1];
    if (!action) throw new Error('no code form after the password');
    http = { answered: 0, lookedAt: 0, refused: 0, other: {} };
    const end = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (Date.now() < end) {
          const r = await browser.request(server.baseUrl + action, { form: { code: wrongAt(Date.now()) } });
          await r.arrayBuffer();
          http.answered++;
          if (r.status === 401) http.lookedAt++;
          else if (r.status === 429) http.refused++;
          else http.other[r.status] = (http.other[r.status] ?? 0) + 1;
        }
      }),
    );
  } finally {
    await server.stop();
  }

  // The same database, the service's own check, a clock of the bench's own: a guess every second.
  const store = await openStore(loadConfig({ ...process.env, ...env }).store);
  const { box } = loadOperatorSecretBox(loadConfig({ ...process.env, ...env }).encryptionKey);
  const instanceId = (await store.read.instance.get())!.id;
  const t0 = Date.now();
  const guess = async (userId: string, at: number) => {
    const outcome = await checkTotpLogin(store, box, instanceId, userId, wrongAt(at), at);
    if (!outcome.ok && outcome.reason === 'invalid_code') return 0;
    if (!outcome.ok && outcome.reason === 'throttled') return outcome.throttled.retryAfterSeconds;
    throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
  };
  let firstHour = 0;
  const day: number[] = [];
  try {
    for (let s = 0; s < 3600; s++) if ((await guess(clockUser!, t0 + s * 1000)) === 0) firstHour++;
    for (let at = t0; at < t0 + 24 * 3_600_000; ) {
      const wait = await guess(dayUser!, at);
      if (wait === 0) day.push(at - t0);
      at += Math.max(wait, 1) * 1000;
    }
  } finally {
    await store.close();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
  const lastHour = day.filter((ms) => ms >= 23 * 3_600_000).length;
  const perGuess = (2 * TOTP_WINDOW + 1) / 1e6;
  const perHour = 1 - (1 - perGuess) ** lastHour;
  const hoursTo50 = Math.log(0.5) / Math.log(1 - perHour);
  console.log(
    `\nover HTTP, ${IN_FLIGHT} in flight for ${SECONDS} s: ${http!.answered} wrong codes answered, ${http!.lookedAt} looked at (401), ${http!.refused} refused unlooked-at (429)${Object.keys(http!.other).length ? `, other: ${JSON.stringify(http!.other)}` : ''}`,
  );
  console.log(
    `a guess every second of a bench clock: ${firstHour} looked at in the first hour; guessing again as Retry-After says: ${day.filter((ms) => ms < 3_600_000).length} in the first hour, ${lastHour} in the 24th, ${day.length} in 24 hours`,
  );
  console.log(
    `steady: ${lastHour} guesses an hour, each ${2 * TOTP_WINDOW + 1} in 10^6 → ${(perHour * 100).toFixed(4)} % an hour, 50 % after ${Math.round(hoursTo50).toLocaleString('en')} hours (${(hoursTo50 / 24 / 365).toFixed(1)} years)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
