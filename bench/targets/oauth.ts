/**
 * Target `oauth` (SQLite): the OAuth hot paths, each beside a bare oidc-provider doing the same
 * (bench/bare-oidc-provider.ts: its in-memory adapter, one client), in turns (issue 34): a
 * client-credentials token (RS256 JWT, ≤ 1.5×), introspection of an opaque token and of a JWT
 * (≤ 1.3×), and userinfo with a person's JWT access token (reported).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oc from 'openid-client';
import { Browser, loginThroughForm } from '../../packages/server/test/support/browser.js';
import type { Child } from '../support/children.js';
import { type measure, measureAlternating } from '../support/load.js';
import type { Row } from '../support/report.js';
import { startHelper, work } from '../support/run-servers.js';
import { settings } from '../support/run-settings.js';
import { apiCall, basicAuth } from '../support/service-api.js';

const PEER_CC_TARGET = 'client-credentials token (RS256 JWT): bare oidc-provider';
const OUR_CC_TARGET = 'client-credentials token (RS256 JWT): the service';

/**
 * OAuth hot paths, each beside the bare oidc-provider doing the same (its in-memory adapter, one
 * client): a client-credentials token (RS256 JWT), and introspecting an opaque client-credentials
 * token (oidc-provider introspects only tokens it stores; here by an API application, there by the
 * client); userinfo with a person's JWT access token (signed in through the login form, as a
 * browser would) beside the peer's userinfo with its own opaque token (it answers userinfo for no other).
 */
export async function benchOAuth(child: Child, patAuthorization: string, store: string): Promise<Row[]> {
  const robot = await apiCall(child, patAuthorization, 'POST', '/management/v1/users/machine', { userName: `oauth-robot-${Date.now()}`, name: 'bench', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
  const secret = await apiCall(child, patAuthorization, 'PUT', `/management/v1/users/${robot.userId}/secret`, {});
  const project = await apiCall(child, patAuthorization, 'POST', '/management/v1/projects', { name: `oauth-bench-${Date.now()}` });
  const api = await apiCall(child, patAuthorization, 'POST', `/management/v1/projects/${project.id}/apps/api`, { name: 'introspector' });
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const ours = { token: `${child.baseUrl}/oauth/v2/token`, introspect: `${child.baseUrl}/oauth/v2/introspect` };
  // Like for like with the peer's (scope `api`): one JWT access token. With `openid` the service also
  // signs an ID token, as ZITADEL does (oidc/machine-id-token.ts), which the peer never does.
  const tokenBody = new URLSearchParams({ grant_type: 'client_credentials', scope: 'urn:zitadel:iam:org:project:id:zitadel:aud' }).toString();
  const ourToken = (
    (await (await fetch(ours.token, { method: 'POST', headers: { ...form, authorization: basicAuth(secret.clientId, secret.clientSecret) }, body: tokenBody })).json()) as { access_token: string }
  ).access_token;
  const bearerRobot = await apiCall(child, patAuthorization, 'POST', '/management/v1/users/machine', {
    userName: `oauth-opaque-${Date.now()}`,
    name: 'bench',
    accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
  });
  const bearerSecret = await apiCall(child, patAuthorization, 'PUT', `/management/v1/users/${bearerRobot.userId}/secret`, {});
  const ourOpaque = (
    (await (await fetch(ours.token, { method: 'POST', headers: { ...form, authorization: basicAuth(bearerSecret.clientId, bearerSecret.clientSecret) }, body: tokenBody })).json()) as {
      access_token: string;
    }
  ).access_token;

  const peerTokenFile = join(work, 'bare-oidc-userinfo.token');
  const peer = await startHelper('bare-oidc-provider.ts', { log: 'bare-oidc.log', env: { USERINFO_TOKEN_FILE: peerTokenFile }, readyPath: '/.well-known/openid-configuration' });
  try {
    const peerAuth = basicAuth('bench', 'bench-secret');
    const peerTokenBody = new URLSearchParams({ grant_type: 'client_credentials', scope: 'api' }).toString();
    const peerToken = ((await (await fetch(`${peer.baseUrl}/token`, { method: 'POST', headers: { ...form, authorization: peerAuth }, body: peerTokenBody })).json()) as { access_token: string })
      .access_token;
    const peerOpaque = (
      (await (await fetch(`${peer.baseUrl}/token`, { method: 'POST', headers: { ...form, authorization: peerAuth }, body: `${peerTokenBody}&resource=urn%3Abench%3Aopaque` })).json()) as {
        access_token: string;
      }
    ).access_token;
    if (ourToken.split('.').length !== 3 || peerToken.split('.').length !== 3) throw new Error('expected JWT access tokens from both');
    if (ourOpaque.includes('.') || peerOpaque.includes('.')) throw new Error('expected opaque access tokens from both');
    const post = (url: string, authorization: string, body: string) => ({ url, method: 'POST' as const, headers: { ...form, authorization }, body });
    // Each peer and the service in turns (measureAlternating): their ratio is what the targets are.
    const peerSide = (target: Parameters<typeof measure>[0]) => ({ target, serverCpuSeconds: peer.cpuSeconds });
    const ourSide = (target: Parameters<typeof measure>[0]) => ({ target, serverCpuSeconds: child.cpuSeconds });
    const [peerCc, ourCc] = await measureAlternating(
      [peerSide(post(`${peer.baseUrl}/token`, peerAuth, peerTokenBody)), ourSide(post(ours.token, basicAuth(secret.clientId, secret.clientSecret), tokenBody))],
      settings,
    );
    const [peerIntro, ourIntro, ourJwtIntro] = await measureAlternating(
      [
        peerSide(post(`${peer.baseUrl}/token/introspection`, peerAuth, new URLSearchParams({ token: peerOpaque }).toString())),
        ourSide(post(ours.introspect, basicAuth(api.clientId, api.clientSecret), new URLSearchParams({ token: ourOpaque }).toString())),
        ourSide(post(ours.introspect, basicAuth(api.clientId, api.clientSecret), new URLSearchParams({ token: ourToken }).toString())),
      ],
      settings,
    );
    // Signed in only now: the login (password hashing in worker threads, sessions) is not part of the rows above.
    const personToken = await signInPerson(child, patAuthorization);
    const peerPersonToken = readFileSync(peerTokenFile, 'utf8');
    const peerInfo = await fetch(`${peer.baseUrl}/me`, { headers: { authorization: `Bearer ${peerPersonToken}` } });
    if (!peerInfo.ok) throw new Error(`the bare oidc-provider's userinfo answered ${peerInfo.status}: ${await peerInfo.text()}`);
    const [peerUserinfo, ourUserinfo] = await measureAlternating(
      [
        peerSide({ url: `${peer.baseUrl}/me`, headers: { authorization: `Bearer ${peerPersonToken}` } }),
        ourSide({ url: `${child.baseUrl}/oidc/v1/userinfo`, headers: { authorization: `Bearer ${personToken}` } }),
      ],
      settings,
    );
    return [
      { target: PEER_CC_TARGET, store: '-', m: peerCc },
      { target: OUR_CC_TARGET, store, m: ourCc },
      { target: 'introspection of an opaque token: bare oidc-provider', store: '-', m: peerIntro },
      { target: 'introspection of an opaque token: the service (an API application)', store, m: ourIntro },
      { target: 'introspection of a JWT: the service (oidc-provider does not introspect JWTs)', store, m: ourJwtIntro },
      { target: 'userinfo (openid profile email), an opaque token: bare oidc-provider', store: '-', m: peerUserinfo },
      { target: "userinfo (openid profile email), a person's JWT access token: the service", store, m: ourUserinfo },
    ];
  } finally {
    await peer.stop();
  }
}

/**
 * A person's JWT access token (scope `openid profile email`) from the service's code flow: a human
 * user and a web application with JWT access tokens, signed in through the login form by the
 * tests' browser stand-in, the code exchanged by openid-client. Checked once through userinfo.
 */
async function signInPerson(child: Child, patAuthorization: string): Promise<string> {
  const redirectUri = 'http://127.0.0.1:1/callback';
  const userName = `bench-person-${Date.now()}`;
  const password = 'Bench-Passw0rd!';
  await apiCall(child, patAuthorization, 'POST', '/management/v1/users/human/_import', {
    userName,
    profile: { firstName: 'Bench', lastName: 'Person' },
    email: { email: `${userName}@example.com`, isEmailVerified: true },
    password,
  });
  const project = await apiCall(child, patAuthorization, 'POST', '/management/v1/projects', { name: `userinfo-bench-${Date.now()}` });
  const app = await apiCall(child, patAuthorization, 'POST', `/management/v1/projects/${project.id}/apps/oidc`, {
    name: 'userinfo-bench',
    redirectUris: [redirectUri],
    appType: 'OIDC_APP_TYPE_WEB',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    devMode: true,
    accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
  });
  const config = await oc.discovery(new URL(child.baseUrl), app.clientId, undefined, oc.ClientSecretBasic(app.clientSecret), { execute: [oc.allowInsecureRequests] });
  const verifier = oc.randomPKCECodeVerifier();
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid profile email',
    code_challenge: await oc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const signedIn = await loginThroughForm(new Browser(), url.href, redirectUri, userName, password);
  if (!signedIn.callback) throw new Error(`the sign-in did not reach the redirect URI: ${signedIn.page?.status} ${signedIn.page?.html.slice(0, 300)}`);
  const tokens = await oc.authorizationCodeGrant(config, signedIn.callback, { pkceCodeVerifier: verifier });
  if (tokens.access_token.split('.').length !== 3) throw new Error('expected a JWT access token for the person');
  const info = await fetch(`${child.baseUrl}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  const claims = (await info.json()) as { preferred_username?: string };
  if (!info.ok || claims.preferred_username === undefined) throw new Error(`the service's userinfo answered ${info.status}: ${JSON.stringify(claims)}`);
  return tokens.access_token;
}

/** The service's client-credentials token ÷ the bare oidc-provider's, server CPU per request (issue 34: ≤ 1.5×). */
export function oauthVerdicts(rows: Row[]): string {
  const peerCc = rows.find((r) => r.target === PEER_CC_TARGET);
  const ourCc = rows.find((r) => r.target === OUR_CC_TARGET);
  if (peerCc?.m.serverCpuMs && ourCc?.m.serverCpuMs) {
    return `client-credentials token vs the bare oidc-provider, server CPU per request: ${(ourCc.m.serverCpuMs / peerCc.m.serverCpuMs).toFixed(2)}× (target ≤ 1.5×; measured in turns)\n`;
  }
  return '';
}
