/**
 * Target `write2` (PostgreSQL only): the verify-email PUT spread over two server processes on one
 * PostgreSQL database (issue 14: several processes behind a load balancer): half the connections to
 * each, the same event checks over both (verify-email-put.ts writeSide), server CPU summed over both.
 */
import type { Row } from '../support/report.js';
import { type Service, startServer } from '../support/run-servers.js';
import { inTurns } from '../support/turns.js';
import { writeSide, writeTargetName } from './verify-email-put.js';

export async function benchWriteTwoProcesses(service: Service): Promise<Row> {
  const second = await startServer(service.databaseUrl, service.patFile, `server-${service.store}-2.log`);
  try {
    const [row] = await inTurns([await writeSide([service.child, second], service.headers, service.store, writeTargetName(2))]);
    return row;
  } finally {
    await second.stop();
  }
}
