/**
 * Targets `bare` and `read`: the bare Hono endpoint (bench/bare-server.ts: hono + @hono/node-server,
 * `GET /` → a small JSON, its own process like the service) beside the service's authenticated read
 * of the verify-email text (auth + one read) on each store, in turns. The bare endpoint is the
 * "vs bare" column of the table; the read separates the cost of authentication from the write's.
 */
import type { Row } from '../support/report.js';
import { type Service, startHelper } from '../support/run-servers.js';
import { targets } from '../support/run-settings.js';
import { readSide, type Side } from '../support/turns.js';
import { TEXT_PATH } from '../support/verify-email-text.js';

export const BARE_TARGET = 'bare Hono GET / (small JSON)';
export const READ_TARGET = `GET ${TEXT_PATH} (auth + read)`;

/** The bare endpoint's requests per second in this run, if it was measured (the table's "vs bare"). */
export const bareRequestsPerSecond = (rows: Row[]) => rows.find((r) => r.target === BARE_TARGET)?.m.requestsPerSecond;

/** The sides of the read's comparison, the bare endpoint started: to be measured in turns. */
export async function readSides(services: Service[]): Promise<Side[]> {
  const bare = targets.has('bare') ? await startHelper('bare-server.ts', { log: 'bare.log' }) : undefined;
  return [
    ...(bare ? [readSide(bare, { url: bare.baseUrl + '/' }, BARE_TARGET, '-')] : []),
    ...(targets.has('read') ? services.map((s) => readSide(s.child, { url: s.child.baseUrl + TEXT_PATH, headers: { authorization: s.headers.authorization } }, READ_TARGET, s.store)) : []),
  ];
}
