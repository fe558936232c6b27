/**
 * Targets `floor`, `bounds` and `write`: the hot write path, `PUT /admin/v1/text/message/verifyemail/en`
 * with a PAT, on each store, measured in turns with what bounds it on SQLite:
 * - the floor (bench/floor-server.ts): node:http, JSON.parse and the write's SQLite statements with
 *   group commit; what this machine allows the write at all, whatever the framework;
 * - two lower bounds made of the service's own authentication and write (issue 34):
 *   without an HTTP framework (bench/without-framework-server.ts) and on a minimal Hono route
 *   (bench/minimal-hono-server.ts): how much of the write's cost is the service's logic, how much
 *   the design's HTTP stack, how much everything else HTTP does;
 * - with BENCH_VARIANTS=name=dir,… other builds of packages/server, each on each store, their PUT in
 *   the same turns (an A/B of several builds in one run; BENCHMARKS.md round 24).
 * Every PUT is a change (a new title) and must append exactly one event (writeSide checks it).
 * The verdicts: issue 14's targets as issue 34 restated them, and round 1's retired one.
 */
import { join } from 'node:path';
import type { Child } from '../support/children.js';
import type { Measurement } from '../support/load.js';
import type { Row } from '../support/report.js';
import { patHeaders, type Service, startHelper, startService, work } from '../support/run-servers.js';
import { serverNodeArgs, stores, targets } from '../support/run-settings.js';
import { type Side, sumCpu } from '../support/turns.js';
import { setText, TEXT_PATH, textBody } from '../support/verify-email-text.js';
import { BARE_TARGET, bareRequestsPerSecond, READ_TARGET } from './read.js';

/** The target from the task: the write path keeps a third of the bare stack's throughput. */
const TARGET_RATIO = 0.33;
const TARGET_P99_MS = 10;

const FLOOR_TARGET = 'floor: node:http + the same SQLite write, no framework/auth/validation';
const WITHOUT_FRAMEWORK_TARGET = "bound: node:http + the service's authentication and write, no framework/validation";
const MINIMAL_HONO_TARGET = "bound: Hono + the service's auth middleware and write, no validation/request id/limits";
export const writeTargetName = (processes = 1) => `PUT ${TEXT_PATH} (write + event)${processes > 1 ? `, ${processes} processes` : ''}`;

/**
 * Authenticated PUTs, each with a new title, so each one changes the text and appends an event.
 * Checked: every 2xx answer carries a sequence no other answer carries (one event each), and
 * the aggregate grew by at least the 2xx count and at most the requests sent (requests still in
 * flight when autocannon stops are processed by the server but never counted as answered).
 * `servers` share one database; the connections are split between them, CPU summed over them.
 */
export async function writeSide(servers: Child[], headers: Record<string, string>, store: string, target: string): Promise<Side> {
  const { baseUrl } = servers[0];
  const runId = Date.now().toString(36);
  const before = await setText(baseUrl, headers, `bench ${runId} before`);
  const sequences = new Set<string>();
  let okAnswers = 0;
  let n = 0;
  return {
    target: servers.map((server) => ({
      url: server.baseUrl,
      requests: [
        {
          method: 'PUT',
          path: TEXT_PATH,
          headers,
          setupRequest: (req) => ({ ...req, body: textBody(`bench ${runId} #${n++}`) }),
          onResponse: (status, body) => {
            if (status !== 200) return;
            okAnswers++;
            const sequence = /"sequence":"(\d+)"/.exec(body)?.[1];
            if (sequence) sequences.add(sequence);
          },
        },
      ],
    })),
    serverCpuSeconds: sumCpu(servers),
    row: async (m) => {
      const after = await setText(baseUrl, headers, `bench ${runId} after`);
      const appended = after - before - 1;
      const answered = m.ok;
      const eventsOk = sequences.size === okAnswers && appended >= answered && appended <= m.sent;
      return {
        target,
        store,
        m,
        eventsOk,
        eventsNote: `${appended} appended, ${answered} 2xx, ${m.sent} sent, ${sequences.size === okAnswers ? 'sequences unique' : `${sequences.size} sequences in ${okAnswers} answers`}`,
      };
    },
  };
}

/**
 * BENCH_VARIANTS: `name=dir,…`, other builds of packages/server whose PUT is measured in the same
 * turns as this checkout's (e.g. one without a mechanism whose worth is in question).
 */
const VARIANTS = (process.env.BENCH_VARIANTS ?? '')
  .split(',')
  .filter(Boolean)
  .map((entry) => {
    const [name, dir] = entry.split('=');
    if (!name || !dir) throw new Error(`BENCH_VARIANTS: expected name=dir, got ${entry}`);
    return { name, dir };
  });

/**
 * One of the lower-bound servers (bench/without-framework-server.ts, bench/minimal-hono-server.ts):
 * the service's own authentication and text write on a SQLite file of its own, with less or no
 * HTTP stack around them; with the admin's PAT they bootstrapped.
 */
async function startBound(file: string, name: string): Promise<{ child: Child; headers: Record<string, string> }> {
  const patFile = join(work, `${name}.pat`);
  // BENCH_NODE_ARGS too, so a profile of the PUT has its bounds' beside it.
  const child = await startHelper(file, { log: `${name}.log`, env: { DATABASE_URL: join(work, `${name}.db`), ADMIN_PAT_FILE: patFile }, nodeArgs: serverNodeArgs });
  return { child, headers: patHeaders(patFile) };
}

/**
 * The sides of the write's comparison, every process started: the floor, the bounds, and the PUT of
 * each service and each BENCH_VARIANTS build (as BENCH_TARGETS asks), to be measured in turns.
 */
export async function writeSides(services: Service[]): Promise<Side[]> {
  const variants: Service[] = [];
  if (targets.has('write')) {
    for (const { name, dir } of VARIANTS) for (const store of stores) variants.push({ ...(await startService(store, dir, `${store}-${name}`)), variant: name });
  }
  const floor = targets.has('floor') && stores.includes('sqlite') ? await startHelper('floor-server.ts', { log: 'floor.log', env: { DATABASE_FILE: join(work, 'floor.db') } }) : undefined;
  const bounds =
    targets.has('bounds') && stores.includes('sqlite')
      ? ([
          [await startBound('without-framework-server.ts', 'without-framework'), WITHOUT_FRAMEWORK_TARGET],
          [await startBound('minimal-hono-server.ts', 'minimal-hono'), MINIMAL_HONO_TARGET],
        ] as const)
      : [];
  return [
    ...(floor ? [await writeSide([floor], { authorization: 'Bearer not-checked', 'content-type': 'application/json' }, 'sqlite', FLOOR_TARGET)] : []),
    ...(await Promise.all(bounds.map(([bound, name]) => writeSide([bound.child], bound.headers, 'sqlite', name)))),
    ...(targets.has('write') ? await Promise.all([...services, ...variants].map((s) => writeSide([s.child], s.headers, s.store, writeTargetName() + (s.variant ? `, ${s.variant}` : '')))) : []),
  ];
}

/** The floor's share of the bare endpoint, round 1's retired target, and issue 14's targets, from this run's rows. */
export function writeVerdicts(rows: Row[]): string {
  const bareRps = bareRequestsPerSecond(rows);
  let out = '';
  const floorRow = rows.find((r) => r.target.startsWith('floor'));
  if (floorRow && bareRps) {
    out += `floor (the write without framework, authentication or validation): ${((floorRow.m.requestsPerSecond / bareRps) * 100).toFixed(1)} % of bare, p99 ${floorRow.m.p99.toFixed(1)} ms\n`;
  }
  const sqliteWrite = rows.find((r) => r.store === 'sqlite' && r.target === writeTargetName());
  if (sqliteWrite && bareRps) {
    const ratio = sqliteWrite.m.requestsPerSecond / bareRps;
    const met = ratio >= TARGET_RATIO && sqliteWrite.m.p99 <= TARGET_P99_MS;
    out +=
      `round 1's target, retired (issue 34 restated it against the bounds below) (SQLite write ≥ ${TARGET_RATIO * 100} % of bare, p99 ≤ ${TARGET_P99_MS} ms): ` +
      `${(ratio * 100).toFixed(1)} %, p99 ${sqliteWrite.m.p99.toFixed(1)} ms → ${met ? 'would be met' : 'would be missed'} (reported, not asserted)\n`;
  }
  return out + issue14Targets(rows);
}

/** Issue 14's targets (the SQLite PUT's as issue 34 restated them), each from rows measured in turns in this run: one line each, MET or MISSED. */
function issue14Targets(rows: Row[]): string {
  const cpu = (target: string, store: string) => rows.find((r) => r.target === target && r.store === store)?.m;
  const lines: string[] = [];
  const check = (name: string, value: number | undefined, limit: number, unit: string, atLeast = false) => {
    if (value === undefined || !Number.isFinite(value)) return;
    const met = atLeast ? value >= limit : value <= limit;
    lines.push(`  ${name}: ${value.toFixed(unit === '×' ? 2 : 1)}${unit} (target ${atLeast ? '≥' : '≤'} ${limit}${unit}) → ${met ? 'MET' : 'MISSED'}`);
  };
  const ratio = (a?: Measurement, b?: Measurement) => (a?.serverCpuMs && b?.serverCpuMs ? a.serverCpuMs / b.serverCpuMs : undefined);
  const floor = cpu(FLOOR_TARGET, 'sqlite');
  const sqlitePut = cpu(writeTargetName(), 'sqlite');
  const postgresPut = cpu(writeTargetName(), 'postgres');
  // Issue 34 restated the SQLite PUT's targets (the ≤ 1.4× floor's CPU and ≤ 10 ms p99 retired): its
  // CPU against the minimal Hono route carrying the same authentication and write (the bound the
  // design's HTTP stack allows), its p99 against the floor's in the same run.
  const minimalHono = cpu(MINIMAL_HONO_TARGET, 'sqlite');
  check("SQLite PUT, server CPU per request ÷ the minimal Hono route's", ratio(sqlitePut, minimalHono), 1.2, '×');
  if (sqlitePut && minimalHono?.serverCpuMs) lines.push(`    (${Math.round(sqlitePut.serverCpuMs! * 1000)} ÷ ${Math.round(minimalHono.serverCpuMs * 1000)} µs)`);
  if (sqlitePut && floor?.p99) check("SQLite PUT, p99 ÷ the floor's p99", sqlitePut.p99 / floor.p99, 1.5, '×');
  if (sqlitePut && floor?.p99) lines.push(`    (${sqlitePut.p99.toFixed(1)} ÷ ${floor.p99.toFixed(1)} ms)`);
  // Not targets: the bounds and the PUT against the floor's CPU.
  for (const [name, target] of [
    ['without an HTTP framework', WITHOUT_FRAMEWORK_TARGET],
    ['on a minimal Hono route', MINIMAL_HONO_TARGET],
    ['(the PUT itself)', writeTargetName()],
  ]) {
    const bound = ratio(cpu(target, 'sqlite'), floor);
    if (bound !== undefined)
      lines.push(`    (${target === writeTargetName() ? "the service's PUT" : `lower bound: the service's authentication and write ${name}`}: ${bound.toFixed(2)}× the floor's CPU per request)`);
  }
  check("SQLite authenticated GET, server CPU per request ÷ bare Hono's", ratio(cpu(READ_TARGET, 'sqlite'), cpu(BARE_TARGET, '-')), 3, '×');
  if (postgresPut && sqlitePut) check("PostgreSQL PUT, requests/s as % of SQLite's", (100 * postgresPut.requestsPerSecond) / sqlitePut.requestsPerSecond, 35, ' %', true);
  check("PostgreSQL PUT, server CPU per request ÷ SQLite's", ratio(postgresPut, sqlitePut), 2, '×');
  check('PostgreSQL PUT, p99', postgresPut?.p99, 25, ' ms');
  return lines.length ? `issue 14 targets, the SQLite PUT's as issue 34 restated them (measured in turns in this run; reported, not asserted):\n${lines.join('\n')}\n` : '';
}
