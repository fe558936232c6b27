/**
 * Target `tokens`: one cheap authenticated read, `GET /admin/v1/languages`, with the admin's PAT and
 * with a JWT access token of a machine user (client credentials, the API's audience scope), in
 * turns: the difference is what verifying each kind of token costs per request (issue 34: ≤ 1.5×).
 */
import type { Child } from '../support/children.js';
import type { Row } from '../support/report.js';
import { apiCall, basicAuth } from '../support/service-api.js';
import { inTurns, readSide } from '../support/turns.js';

export async function benchTokenKinds(child: Child, patAuthorization: string, store: string): Promise<Row[]> {
  const robot = await apiCall(child, patAuthorization, 'POST', '/management/v1/users/machine', { userName: `bench-robot-${Date.now()}`, name: 'bench', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
  const secret = await apiCall(child, patAuthorization, 'PUT', `/management/v1/users/${robot.userId}/secret`, {});
  const tokenRes = await fetch(child.baseUrl + '/oauth/v2/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(secret.clientId, secret.clientSecret) },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid urn:zitadel:iam:org:project:id:zitadel:aud' }),
  });
  if (!tokenRes.ok) throw new Error(`client credentials answered ${tokenRes.status}: ${await tokenRes.text()}`);
  const jwt = ((await tokenRes.json()) as { access_token: string }).access_token;
  if (jwt.split('.').length !== 3) throw new Error('the machine user did not get a JWT access token');
  // In turns: their ratio is the target.
  return inTurns(
    (
      [
        ['PAT', patAuthorization],
        ['JWT access token', `Bearer ${jwt}`],
      ] as const
    ).map(([kind, authorization]) => readSide(child, { url: `${child.baseUrl}/admin/v1/languages`, headers: { authorization } }, `GET /admin/v1/languages with a ${kind}`, store)),
  );
}

/** The JWT access token's CPU per request ÷ the PAT's (reported against issue 34's ≤ 1.5×). */
export function tokenVerdicts(rows: Row[]): string {
  const patRead = rows.find((r) => r.target.endsWith('with a PAT'));
  const jwtRead = rows.find((r) => r.target.endsWith('with a JWT access token'));
  if (patRead?.m.serverCpuMs && jwtRead?.m.serverCpuMs) {
    return `JWT access token vs PAT, server CPU per request: ${(jwtRead.m.serverCpuMs / patRead.m.serverCpuMs).toFixed(2)}× (target ≤ 1.5×)\n`;
  }
  return '';
}
