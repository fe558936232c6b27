/**
 * Target `signin` (issue 34): the whole authorization-code + PKCE sign-in (a fresh browser, the login
 * form, the password, the code, the tokens) beside the hash floor (bench/hash-floor-server.ts), in
 * turns. Target: sign-ins/s ≥ 70 % of the floor's checks/s. BENCH_SIGNIN_CONCURRENCY (4): sign-ins in
 * flight (one person each) and the floor's connections.
 */
import * as oc from 'openid-client';
import { Browser, loginThroughForm } from '../../packages/server/test/support/browser.js';
import type { Child } from '../support/children.js';
import { measureFlows } from '../support/flows.js';
import { type LoadSettings, type Measurement, measure, pool } from '../support/load.js';
import type { Row } from '../support/report.js';
import { startHelper } from '../support/run-servers.js';
import { int, serverNodeArgs, settings, stores } from '../support/run-settings.js';
import { apiCall } from '../support/service-api.js';

const SIGNIN_TARGETS = {
  floor: 'hash floor: verifications of the default argon2id hash (the same worker pool, 1 process)',
  signin: 'sign-in: authorization code + PKCE (authorize, login page, password, code, token)',
} as const;
/** Sign-ins in flight at once, each for its own person (one account has one password check at a time), and the floor's connections. */
const SIGNIN_CONCURRENCY = int('BENCH_SIGNIN_CONCURRENCY', 4);

/** `SIGNIN_CONCURRENCY` people with one password, and a web application: a sign-in of person `i`, checked to its ID token and JWT access token. */
async function prepareSignIn(child: Child, patAuthorization: string): Promise<(i: number) => Promise<void>> {
  const redirectUri = 'http://127.0.0.1:1/callback';
  const password = 'Bench-Passw0rd!';
  const stamp = Date.now();
  const people: string[] = [];
  for (let i = 0; i < SIGNIN_CONCURRENCY; i++) {
    const userName = `signin-${stamp}-${i}`;
    await apiCall(child, patAuthorization, 'POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'Sign', lastName: 'In' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      password,
    });
    people.push(userName);
  }
  const project = await apiCall(child, patAuthorization, 'POST', '/management/v1/projects', { name: `signin-bench-${stamp}` });
  const app = await apiCall(child, patAuthorization, 'POST', `/management/v1/projects/${project.id}/apps/oidc`, {
    name: 'signin-bench',
    redirectUris: [redirectUri],
    appType: 'OIDC_APP_TYPE_WEB',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    devMode: true,
    accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
  });
  const config = await oc.discovery(new URL(child.baseUrl), app.clientId, undefined, oc.ClientSecretBasic(app.clientSecret), { execute: [oc.allowInsecureRequests] });
  return async (i: number) => {
    const verifier = oc.randomPKCECodeVerifier();
    const url = oc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      code_challenge: await oc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: oc.randomState(),
    });
    const signedIn = await loginThroughForm(new Browser(), url.href, redirectUri, people[i], password);
    if (!signedIn.callback) throw new Error(`no code: ${signedIn.page?.status} ${signedIn.page?.html.replace(/\s+/g, ' ').slice(0, 200)}`);
    const tokens = await oc.authorizationCodeGrant(config, signedIn.callback, { pkceCodeVerifier: verifier, expectedState: url.searchParams.get('state')! });
    if (!tokens.id_token || tokens.access_token.split('.').length !== 3) throw new Error('expected an ID token and a JWT access token');
  };
}

/**
 * Sign-in, the thing people wait for (issue 34): the whole authorization-code flow with PKCE as a
 * web application runs it — the authorization request, the login page, the password form (one
 * argon2id check of the default hash), the redirects to the code, the code exchanged for tokens
 * (with an ID token) — each by a fresh browser (no session), beside the hash floor
 * (bench/hash-floor-server.ts: the same hash and worker pool with nothing around it), in turns,
 * with the same number of requests in flight. Target: sign-ins/s ≥ 70 % of the floor's checks/s.
 */
export async function benchSignIn(child: Child, patAuthorization: string, store: string): Promise<Row[]> {
  const signIn = await prepareSignIn(child, patAuthorization);
  await signIn(0);

  // Like for like: the floor runs with the service's node flags (BENCH_NODE_ARGS), so that a
  // profiled run (`--cpu-prof`, which costs the profiled threads, password workers included) slows
  // both sides alike and profiles the floor's workers beside the service's. Both already share the
  // rest: one process, PasswordVerifier's default pool (2 workers, each lowering its own priority
  // to niceness 10), the same hash parameters.
  const floor = await startHelper('hash-floor-server.ts', { log: 'hash-floor.log', nodeArgs: serverNodeArgs });
  try {
    const floorTarget = { url: floor.baseUrl + '/', method: 'POST' as const, body: 'check' };
    const rounds = 4;
    const slice: LoadSettings = { connections: SIGNIN_CONCURRENCY, duration: settings.duration / rounds, warmup: 0.5 };
    await measure(floorTarget, { ...slice, duration: 0.5, warmup: settings.warmup }, floor.cpuSeconds);
    await measureFlows(signIn, SIGNIN_CONCURRENCY, { ...slice, duration: 0.5, warmup: settings.warmup }, child.cpuSeconds);
    const floorParts: Measurement[] = [];
    const signInParts: Measurement[] = [];
    for (let round = 0; round < rounds; round++) {
      floorParts.push(await measure(floorTarget, slice, floor.cpuSeconds));
      signInParts.push(await measureFlows(signIn, SIGNIN_CONCURRENCY, slice, child.cpuSeconds));
    }
    return [
      { target: SIGNIN_TARGETS.floor, store: '-', m: pool(floorParts) },
      { target: SIGNIN_TARGETS.signin, store, m: pool(signInParts) },
    ];
  } finally {
    await floor.stop();
  }
}

/** Issue 34's sign-in target, per store: sign-ins per second ≥ 70 % of the hash floor's checks per second (same run, in turns). */
export function signInVerdicts(rows: Row[]): string {
  const lines: string[] = [];
  for (const store of stores) {
    const i = rows.findIndex((r) => r.target === SIGNIN_TARGETS.signin && r.store === store);
    const floor = rows[i - 1];
    if (i < 1 || floor?.target !== SIGNIN_TARGETS.floor) continue;
    const share = (100 * rows[i].m.requestsPerSecond) / floor.m.requestsPerSecond;
    lines.push(
      `  ${store}: sign-ins/s ${rows[i].m.requestsPerSecond.toFixed(1)} = ${share.toFixed(1)} % of the hash floor's ${floor.m.requestsPerSecond.toFixed(1)} checks/s (target ≥ 70 %) → ${share >= 70 ? 'MET' : 'MISSED'}; server CPU per sign-in ${(rows[i].m.serverCpuMs ?? NaN).toFixed(1)} ms, per check ${(floor.m.serverCpuMs ?? NaN).toFixed(1)} ms`,
    );
  }
  return lines.length ? `issue 34 sign-in target (in turns in this run; reported, not asserted):\n${lines.join('\n')}\n` : '';
}
