/**
 * `npm run bench`: the hot paths of the service, each beside what bounds it, in one run (from the repo
 * root). Each target's bench is one file under bench/targets/; this file starts the services, runs
 * the targets BENCH_TARGETS names, and prints the table and each target's verdicts (MET or MISSED).
 *
 *   target       file                                  what it measures
 *   bare, read   targets/read.ts                       a bare Hono GET beside the authenticated GET of the text
 *   floor, bounds, write
 *                targets/verify-email-put.ts           the verify-email PUT beside the floor and the two lower bounds
 *   write2       targets/write-two-processes.ts        the PUT over two server processes on one PostgreSQL
 *   tokens       targets/tokens.ts                     the same GET with a PAT and with a JWT access token
 *   oauth        targets/oauth.ts                      client-credentials token, introspection, userinfo beside a bare oidc-provider
 *   jwtprofile   targets/jwt-profile.ts                the JWT-profile grant beside client credentials, RS256 and ES256
 *   rpc          targets/rpc.ts                        4.1 over gRPC and Connect beside the REST PUT, with two RPC floors
 *   signin       targets/sign-in.ts                    the code + PKCE sign-in beside the hash floor
 *   node20       targets/node20.ts                     Node 24 beside Node 20
 *   grants       targets/grants.ts                     4.2, DELETE of user grants, every store in turns
 *
 * Shared: bench/support/turns.ts (measurement in turns, CPU per request), run-servers.ts (the
 * processes, started and stopped), run-results.ts (rows printed as measured, skipped targets, the
 * table, BENCH_JSON), run-settings.ts (the environment below).
 *
 * Environment (all optional):
 *   BENCH_DURATION=10      measured seconds per target
 *   BENCH_WARMUP=2         warm-up seconds per target, on the same connections (not counted)
 *   BENCH_CONNECTIONS=50   concurrent connections (all from 127.0.0.1: above 100 also set HTTP_MAX_CONNECTIONS_PER_ADDRESS)
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_TARGETS=bare,floor,bounds,write,write2,read,tokens,oauth,jwtprofile,rpc,grants,signin,node20   which targets to run (the table above)
 *   BENCH_SIGNIN_CONCURRENCY=4 sign-ins in flight (one person each) and floor connections (`signin`)
 *   BENCH_NODE20=/usr/bin/node   the Node 20 of target `node20`
 *   BENCH_JSON=results.json   also write the rows as JSON (target, store, req/s, p50, p99, CPU/req, errors)
 *   BENCH_LOG_LEVEL=warn   the server's LOG_LEVEL (info writes one line per request)
 *   BENCH_NODE_ARGS=""     extra node flags for the server (and the bounds, and the sign-in's hash floor), e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_KEEP=1           keep the temp folder (server logs, database) for inspection
 *   BENCH_SERVER_DIR=…     the packages/server folder to start (default: this checkout's)
 *   BENCH_BASELINE_DIR=…   `grants` only: another checkout's packages/server measured in the same turns (before/after)
 *   BENCH_VARIANTS=name=dir,…   `write` only: each named checkout's packages/server started beside this one's, on each
 *                          store, its PUT measured in the same turns (an A/B of several builds in one run; BENCHMARKS.md round 24)
 *
 * Everything listens on 127.0.0.1 only; the load generator (autocannon, in this process) shares
 * the machine with the server, as in the bare baseline.
 *
 * What issue 14's targets compare runs in turns (support/turns.ts, all processes started first):
 * the bare endpoint with the reads on each store, the floor with the writes on each store, PAT with
 * JWT, each OAuth path with its peer. A target that cannot run (a server that does not start, a
 * runtime without a build) says why and is skipped; the others go on (issue 48.6).
 *
 * Exit code 1 when any request failed (non-2xx, connection error) or a write did not append
 * exactly one event. The throughput target is reported, not asserted: it depends on the machine.
 */
import { printFailures, printMeasuredBeforeFailure, printResults, rows, runTarget, skip } from './support/run-results.js';
import { cleanup, type Service, startRunPostgres, startService, stopAll } from './support/run-servers.js';
import { logLevel, machine, SERVER_DIR, serverNodeArgs, settings, stores, targets } from './support/run-settings.js';
import { inTurns } from './support/turns.js';
import { grantRemovalRows, grantVerdicts } from './targets/grants.js';
import { benchJwtProfile, jwtProfileVerdicts } from './targets/jwt-profile.js';
import { benchNodeVersions, node20Unavailable } from './targets/node20.js';
import { benchOAuth, oauthVerdicts } from './targets/oauth.js';
import { bareRequestsPerSecond, readSides } from './targets/read.js';
import { benchRpc, rpcVerdicts } from './targets/rpc.js';
import { benchSignIn, signInVerdicts } from './targets/sign-in.js';
import { benchTokenKinds, tokenVerdicts } from './targets/tokens.js';
import { writeSides, writeVerdicts } from './targets/verify-email-put.js';
import { benchWriteTwoProcesses } from './targets/write-two-processes.js';

/** The targets' verdicts under the table, in this order. */
const VERDICTS = [tokenVerdicts, oauthVerdicts, writeVerdicts, jwtProfileVerdicts, rpcVerdicts, signInVerdicts, grantVerdicts];

/** The targets measured per store, one after the other, in this order (each compares its own sides in turns). */
async function benchPerStore(service: Service): Promise<void> {
  const { store, child, headers } = service;
  if (targets.has('write2') && store === 'postgres') await runTarget('write2', store, async () => [await benchWriteTwoProcesses(service)]);
  if (targets.has('tokens')) await runTarget('tokens', store, () => benchTokenKinds(child, headers.authorization, store));
  if (targets.has('oauth') && store === 'sqlite') await runTarget('oauth', store, () => benchOAuth(child, headers.authorization, store));
  if (targets.has('rpc')) await runTarget('rpc', store, () => benchRpc(service));
  if (targets.has('jwtprofile')) await runTarget('jwtprofile', store, () => benchJwtProfile(service));
  if (targets.has('signin')) await runTarget('signin', store, () => benchSignIn(child, headers.authorization, store));
  if (targets.has('node20') && store === 'sqlite') await runTarget('node20', store, () => benchNodeVersions(service));
}

async function main() {
  process.stdout.write(
    `identity-service bench: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s per target, ` +
      `server ${SERVER_DIR}, LOG_LEVEL=${logLevel}${serverNodeArgs.length ? `, node ${serverNodeArgs.join(' ')}` : ''}; ${machine()}\n`,
  );
  for (const store of stores) if (store !== 'sqlite' && store !== 'postgres') throw new Error(`BENCH_STORES: unknown store ${store}`);
  const node20Problem = targets.has('node20') ? node20Unavailable() : undefined;
  if (node20Problem) {
    targets.delete('node20');
    skip('node20', node20Problem);
  }
  if (stores.includes('postgres')) await startRunPostgres();
  const services: Service[] = [];
  for (const store of stores) services.push(await startService(store));

  // What the issue's targets compare is measured in turns (measureAlternating): the floor with the
  // writes, the bare endpoint with the reads, SQLite with PostgreSQL. Measured one after the other,
  // a process's CPU per request drifts by 15-30 % from minute to minute on this shared machine.
  const writes = await writeSides(services);
  const reads = await readSides(services);
  await runTarget('bare, read', '-', () => inTurns(reads));
  await runTarget('floor, bounds, write', '-', () => inTurns(writes));

  for (const service of services) await benchPerStore(service);
  if (targets.has('grants')) await runTarget('grants', stores.join(', '), () => grantRemovalRows(services));
  await stopAll();

  printResults(bareRequestsPerSecond(rows));
  for (const verdicts of VERDICTS) process.stdout.write(verdicts(rows));
  printFailures();
}

main()
  .catch((error) => {
    // What was measured before the failure is not lost.
    printMeasuredBeforeFailure(bareRequestsPerSecond(rows));
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup);
