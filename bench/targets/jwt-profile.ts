/**
 * Target `jwtprofile` (issue 29): the JWT-profile grant (RFC 7523 §2.1, a machine key's assertion as
 * @zitadel/node sends it) beside the same user's client-credentials grant and the bare
 * oidc-provider's, in turns, on the default RS256 key and on a second server of the same store with
 * SIGNING_KEY_ALGORITHM=ES256. Target: ≤ 1.3× the client-credentials grant of the same scopes.
 */
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Child } from '../support/children.js';
import { measureAlternating } from '../support/load.js';
import type { Row } from '../support/report.js';
import { type Service, startHelper, startService } from '../support/run-servers.js';
import { SERVER_DIR, settings, stores } from '../support/run-settings.js';
import { apiCall, basicAuth } from '../support/service-api.js';

const JWT_PROFILE_TARGETS = {
  peerCc: 'client-credentials grant (RS256 JWT): bare oidc-provider',
  cc: 'client-credentials grant (RS256 JWT, scope API audience): the service',
  ccOpenid: 'client-credentials grant (RS256 JWT, scope openid + API audience, + ID token): the service',
  jwtProfile: 'JWT-profile grant (RS256 JWT, scope API audience): the service',
  jwtProfileOpenid: 'JWT-profile grant (RS256 JWT, scope openid + API audience, + ID token): the service',
  ccEs256: 'client-credentials grant (ES256 JWT, scope API audience): the service, SIGNING_KEY_ALGORITHM=ES256',
  ccOpenidEs256: 'client-credentials grant (ES256 JWT, scope openid + API audience, + ID token): the service, SIGNING_KEY_ALGORITHM=ES256',
  jwtProfileEs256: 'JWT-profile grant (ES256 JWT, scope API audience): the service, SIGNING_KEY_ALGORITHM=ES256',
  jwtProfileOpenidEs256: 'JWT-profile grant (ES256 JWT, scope openid + API audience, + ID token): the service, SIGNING_KEY_ALGORITHM=ES256',
} as const;

/** The requests of one service's grants: client credentials and JWT-profile, each without and with `openid`. */
async function grantRequests(child: Child, patAuthorization: string) {
  const robot = await apiCall(child, patAuthorization, 'POST', '/management/v1/users/machine', {
    userName: `jwt-profile-robot-${Date.now()}`,
    name: 'bench',
    accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
  });
  const secret = await apiCall(child, patAuthorization, 'PUT', `/management/v1/users/${robot.userId}/secret`, {});
  const key = await apiCall(child, patAuthorization, 'POST', `/management/v1/users/${robot.userId}/keys`, { type: 'KEY_TYPE_JSON' });
  const file = JSON.parse(Buffer.from(key.keyDetails, 'base64').toString('utf8')) as { keyId: string; key: string; userId: string };
  // One assertion, reused as @zitadel/node's ServiceAccount may (the server keeps no jti).
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: file.keyId })
    .setIssuer(file.userId)
    .setSubject(file.userId)
    .setAudience(child.baseUrl)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(createPrivateKey(file.key));
  const api = 'urn:zitadel:iam:org:project:id:zitadel:aud';
  const post = (body: string, authorization?: string) => ({
    url: `${child.baseUrl}/oauth/v2/token`,
    method: 'POST' as const,
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
  });
  const jwtBody = (scope: string) => new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, scope }).toString();
  const requests = {
    cc: post(new URLSearchParams({ grant_type: 'client_credentials', scope: api }).toString(), basicAuth(secret.clientId, secret.clientSecret)),
    ccOpenid: post(new URLSearchParams({ grant_type: 'client_credentials', scope: `openid ${api}` }).toString(), basicAuth(secret.clientId, secret.clientSecret)),
    jwtProfile: post(jwtBody(api)),
    jwtProfileOpenid: post(jwtBody(`openid ${api}`)),
  };
  for (const request of Object.values(requests)) {
    const res = await fetch(request.url, request);
    const answer = (await res.json()) as { access_token?: string; scope?: string; id_token?: string };
    if (!res.ok || answer.access_token?.split('.').length !== 3) throw new Error(`the service's token endpoint answered ${res.status}: ${JSON.stringify(answer)}`);
    // Like for like: each grant signs an ID token exactly when `openid` was granted.
    if (answer.scope?.split(' ').includes('openid') !== Boolean(answer.id_token)) throw new Error(`an ID token ${answer.id_token ? 'without' : 'missing with'} openid: ${JSON.stringify(answer)}`);
  }
  return requests;
}

/**
 * The JWT-profile grant (RFC 7523 §2.1) of a machine user with JWT access tokens, with one
 * assertion signed as @zitadel/node's ServiceAccount signs it, beside the same user's
 * client-credentials grant and the bare oidc-provider's, in turns. Each grant without and with
 * `openid` (what the SDK asks for): with it, both answer an ID token too (a second signature), as
 * ZITADEL's do, so each JWT-profile row is compared with the client-credentials row of the same
 * scopes. The same on a second server of the same store whose key is ES256 (SIGNING_KEY_ALGORITHM):
 * its signatures cost ~44 µs where RS256's cost ~300.
 */
export async function benchJwtProfile(service: Service): Promise<Row[]> {
  const { child, store } = service;
  const rs256 = await grantRequests(child, service.headers.authorization);
  const es256Service = await startService(store, SERVER_DIR, `${store}-es256`, { SIGNING_KEY_ALGORITHM: 'ES256' });
  const es256 = await grantRequests(es256Service.child, es256Service.headers.authorization);

  const peer = await startHelper('bare-oidc-provider.ts', { log: `bare-oidc-jwt-profile-${store}.log`, readyPath: '/.well-known/openid-configuration' });
  try {
    const peerCc = {
      url: `${peer.baseUrl}/token`,
      method: 'POST' as const,
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'api' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('bench', 'bench-secret') },
    };
    const sides = [
      [JWT_PROFILE_TARGETS.peerCc, peerCc, peer],
      [JWT_PROFILE_TARGETS.cc, rs256.cc, child],
      [JWT_PROFILE_TARGETS.ccOpenid, rs256.ccOpenid, child],
      [JWT_PROFILE_TARGETS.jwtProfile, rs256.jwtProfile, child],
      [JWT_PROFILE_TARGETS.jwtProfileOpenid, rs256.jwtProfileOpenid, child],
      [JWT_PROFILE_TARGETS.ccEs256, es256.cc, es256Service.child],
      [JWT_PROFILE_TARGETS.ccOpenidEs256, es256.ccOpenid, es256Service.child],
      [JWT_PROFILE_TARGETS.jwtProfileEs256, es256.jwtProfile, es256Service.child],
      [JWT_PROFILE_TARGETS.jwtProfileOpenidEs256, es256.jwtProfileOpenid, es256Service.child],
    ] as const;
    const measured = await measureAlternating(
      sides.map(([, target, server]) => ({ target, serverCpuSeconds: server.cpuSeconds })),
      settings,
    );
    return sides.map(([name], i) => ({ target: name, store: name === JWT_PROFILE_TARGETS.peerCc ? '-' : store, m: measured[i] }));
  } finally {
    await peer.stop();
    await es256Service.child.stop();
  }
}

/** The JWT-profile grant's target (issue 29), per store and key, from the rows measured in turns: each beside the client-credentials grant of the same scopes. */
export function jwtProfileVerdicts(rows: Row[]): string {
  const lines: string[] = [];
  const cpu = (target: string, store: string) => rows.find((r) => r.target === target && r.store === store)?.m.serverCpuMs;
  const T = JWT_PROFILE_TARGETS;
  for (const store of stores) {
    const cc = cpu(T.cc, store);
    if (!cc) continue;
    // The peer measured in the same turns: the row benchJwtProfile put just before this store's.
    const before = rows[rows.findIndex((r) => r.target === T.cc && r.store === store) - 1];
    const peer = before?.target === T.peerCc ? before.m.serverCpuMs : undefined;
    const pairs = [
      ['RS256 key, without openid', T.jwtProfile, T.cc],
      ['RS256 key, with openid and its ID token (as @zitadel/node asks)', T.jwtProfileOpenid, T.ccOpenid],
      ['ES256 key, without openid', T.jwtProfileEs256, T.ccEs256],
      ['ES256 key, with openid and its ID token', T.jwtProfileOpenidEs256, T.ccOpenidEs256],
    ] as const;
    for (const [name, jwtTarget, ccTarget] of pairs) {
      const ours = cpu(jwtTarget, store);
      const theirs = cpu(ccTarget, store);
      if (!ours || !theirs) continue;
      lines.push(
        `  ${store}, ${name}: JWT-profile grant ÷ the client-credentials grant of the same scopes, server CPU per grant: ${(ours / theirs).toFixed(2)}× (target ≤ 1.3×) → ${ours / theirs <= 1.3 ? 'MET' : 'MISSED'}` +
          (peer ? `; ÷ the bare oidc-provider's client credentials: ${(ours / peer).toFixed(2)}×` : ''),
      );
    }
    if (peer) lines.push(`  ${store}: the service's client-credentials grant (without openid) ÷ the bare oidc-provider's: ${(cc / peer).toFixed(2)}×`);
  }
  return lines.length ? `issue 29 target (measured in turns in this run; reported, not asserted):\n${lines.join('\n')}\n` : '';
}
