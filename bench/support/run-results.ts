/**
 * The rows of one `npm run bench` run: each target's rows printed as soon as they are measured (a run
 * that fails later loses none), a target that cannot run said and skipped (issue 48.6), and at the end
 * the table, the skipped targets, BENCH_JSON and the failed requests.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type Row, renderTable } from './report.js';
import { work } from './run-servers.js';
import { machine, settings } from './run-settings.js';

/** Every row measured so far: the table is printed from them even when the run fails later. */
export const rows: Row[] = [];
/** The targets that could not run, each with its reason (printed when met and again under the table). */
const skipped: string[] = [];

/** One row's figures, printed as soon as they are measured. */
function printRow(r: Row): void {
  const cpu = r.m.serverCpuMs === undefined ? '' : `, server CPU ${Math.round(r.m.serverCpuMs * 1000)} µs/req`;
  const failures = r.m.non2xx + r.m.errors > 0 ? `, ${r.m.non2xx} non-2xx, ${r.m.errors} errors` : '';
  process.stdout.write(`  ${r.store}: ${r.target}: ${Math.round(r.m.requestsPerSecond)} req/s, p50 ${r.m.p50.toFixed(1)} ms, p99 ${r.m.p99.toFixed(1)} ms${cpu}${failures}\n`);
}

export function skip(target: string, reason: string): void {
  skipped.push(`${target}: ${reason}`);
  process.stdout.write(`  target ${target} skipped: ${reason}\n`);
}

/** Why a measurement could not run, in one line: the error's first line, and what the server log it names says last (a server that did not start says why there). */
function reasonOf(error: unknown): string {
  const message = String((error as Error)?.message ?? error).split('\n')[0];
  const log = /see (\S+)$/.exec(message)?.[1];
  // Its last line of its own: not a stack frame, not node's closing version line.
  const said =
    log && existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.trim() && !/^\s+at |^Node\.js v/.test(line))
          .at(-1)
      : undefined;
  return said ? `${message}: ${said}` : message;
}

/**
 * One target's measurement: its rows kept and printed at once. A target that cannot run (a server
 * that does not start, a runtime without a build) says why and is skipped; the others go on.
 */
export async function runTarget(target: string, store: string, measureRows: () => Promise<Row[]>): Promise<void> {
  try {
    const measured = await measureRows();
    rows.push(...measured);
    measured.forEach(printRow);
  } catch (error) {
    skip(`${target} (${store})`, reasonOf(error));
  }
}

/** The table of every row (`bareRps`: the bare endpoint's, for the "vs bare" column), the skipped targets, and BENCH_JSON's file. */
export function printResults(bareRps: number | undefined): void {
  process.stdout.write(`\n${renderTable(rows, bareRps)}\n\n`);
  if (skipped.length) process.stdout.write(`skipped targets (they could not run):\n${skipped.map((line) => `  ${line}`).join('\n')}\n\n`);
  if (process.env.BENCH_JSON) {
    const json = rows.map((r) => ({
      target: r.target,
      store: r.store,
      requestsPerSecond: r.m.requestsPerSecond,
      p50Ms: r.m.p50,
      p99Ms: r.m.p99,
      serverCpuMicrosPerRequest: r.m.serverCpuMs === undefined ? null : r.m.serverCpuMs * 1000,
      non2xx: r.m.non2xx,
      errors: r.m.errors,
      ...(r.eventsOk === undefined ? {} : { eventsOk: r.eventsOk }),
    }));
    writeFileSync(process.env.BENCH_JSON, `${JSON.stringify({ machine: machine(), settings, rows: json }, null, 2)}\n`);
    process.stdout.write(`results written to ${process.env.BENCH_JSON}\n`);
  }
}

/** Exit code 1 when any request failed (non-2xx, connection error) or a write did not append exactly one event. */
export function printFailures(): void {
  const failed = rows.reduce((sum, r) => sum + r.m.non2xx + r.m.errors, 0);
  const badEvents = rows.filter((r) => r.eventsOk === false);
  for (const r of rows.filter((x) => x.m.non2xx > 0)) {
    process.stdout.write(`failed responses on ${r.store} ${r.target}: ${JSON.stringify(r.m.statusCodes)}\n`);
  }
  if (failed > 0 || badEvents.length > 0) {
    process.stdout.write(`FAILED: ${failed} failed requests, ${badEvents.length} event-count mismatches (logs in ${work})\n`);
    process.exitCode = 1;
  }
}

/** On a failure of the run itself: what was measured before it is not lost. */
export function printMeasuredBeforeFailure(bareRps: number | undefined): void {
  if (rows.length) process.stdout.write(`\nmeasured before the failure:\n${renderTable(rows, bareRps)}\n\n`);
}
