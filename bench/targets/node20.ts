/**
 * Target `node20` (SQLite, issue 34): the same service on the project's Node 24 and on Node 20
 * (BENCH_NODE20, default /usr/bin/node), each on a SQLite file of its own, in turns. Skipped, saying
 * why, before anything starts, while there is no such Node or better-sqlite3 has no build for it
 * (`/usr/bin/node scripts/sqlite-for-this-node.mjs` builds it once).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqliteBuildFor } from '../../packages/server/src/store/sqlite-native.js';
import type { Row } from '../support/report.js';
import { type Service, startServer, work } from '../support/run-servers.js';
import { SERVER_DIR } from '../support/run-settings.js';
import { apiCall, basicAuth } from '../support/service-api.js';
import { inTurns, readSide, type Side } from '../support/turns.js';

/** The system's Node 20 for target `node20` (BENCH_NODE20, default /usr/bin/node). */
const NODE20 = process.env.BENCH_NODE20 || '/usr/bin/node';

/** Why target `node20` cannot run here, known before anything starts: no such Node, or no better-sqlite3 build for it. */
export function node20Unavailable(): string | undefined {
  if (!existsSync(NODE20)) return `no Node at ${NODE20} (BENCH_NODE20)`;
  let version: string;
  let abi: string;
  try {
    [version, abi] = execFileSync(NODE20, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split(' ');
  } catch (error) {
    return `${NODE20} (BENCH_NODE20) does not run as a Node: ${String((error as Error).message).split('\n')[0]}`;
  }
  if (abi === process.versions.modules || existsSync(sqliteBuildFor(join(SERVER_DIR, '..', '..', 'node_modules'), abi))) return undefined;
  return `better-sqlite3 has no build for Node ${version} (${NODE20}): run \`${NODE20} scripts/sqlite-for-this-node.mjs\` once (about a minute)`;
}

/**
 * Node 20 against the project's Node 24 (issue 34): the same service, each runtime on a fresh
 * SQLite file of its own (one process per SQLite file), in turns — an authenticated API GET with a
 * PAT (after a token has been issued on both, the state a running service is in) and a
 * client-credentials token (RS256 JWT). Node 20 needs better-sqlite3 compiled for it once:
 * `/usr/bin/node scripts/sqlite-for-this-node.mjs`.
 */
export async function benchNodeVersions(service: Service): Promise<Row[]> {
  const dir = join(work, 'sqlite-node20');
  const patFile = join(dir, 'admin.pat');
  const old = await startServer(join(dir, 'identity.db'), patFile, 'server-sqlite-node20.log', NODE20);
  try {
    const runtimes = [
      { node: process.version, child: service.child, pat: service.headers.authorization },
      { node: execFileSync(NODE20, ['--version'], { encoding: 'utf8' }).trim(), child: old, pat: `Bearer ${readFileSync(patFile, 'utf8').trim()}` },
    ];
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const tokenBody = new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid urn:zitadel:iam:org:project:id:zitadel:aud' }).toString();
    const sides: Side[] = [];
    const names: string[] = [];
    for (const { node, child, pat } of runtimes) {
      const robot = await apiCall(child, pat, 'POST', '/management/v1/users/machine', { userName: `node-robot-${Date.now()}`, name: 'bench', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' });
      const secret = await apiCall(child, pat, 'PUT', `/management/v1/users/${robot.userId}/secret`, {});
      const auth = basicAuth(secret.clientId, secret.clientSecret);
      const first = await fetch(`${child.baseUrl}/oauth/v2/token`, { method: 'POST', headers: { ...form, authorization: auth }, body: tokenBody });
      if (!first.ok) throw new Error(`client credentials on ${node} answered ${first.status}`);
      sides.push(readSide(child, { url: `${child.baseUrl}/admin/v1/languages`, headers: { authorization: pat } }, '', 'sqlite'));
      names.push(`GET /admin/v1/languages with a PAT, Node ${node}`);
      sides.push(readSide(child, { url: `${child.baseUrl}/oauth/v2/token`, method: 'POST', headers: { ...form, authorization: auth }, body: tokenBody }, '', 'sqlite'));
      names.push(`client-credentials token (RS256 JWT), Node ${node}`);
    }
    // In turns: each path on Node 24 beside the same path on Node 20.
    const order = [0, 2, 1, 3];
    const measured = await inTurns(order.map((i) => sides[i]));
    return order.map((i, k) => ({ ...measured[k], target: names[i] }));
  } finally {
    await old.stop();
  }
}
