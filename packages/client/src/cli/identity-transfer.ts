/**
 * identity-transfer: move organisations between identity-service (or ZITADEL) instances.
 *
 *   identity-transfer export  --url URL --token PAT [--org ID…] [--with-passwords] [--with-otp] [--with-keys] [--with-history] --out FILE
 *   identity-transfer import  --url URL --token PAT [--dry-run] [--conflict-policy P] [--timeout 30m] FILE
 *   identity-transfer migrate --from-url URL --from-token PAT --to-url URL --to-token PAT [--org ID…]
 *                             [--with-passwords] [--with-otp] [--with-keys] [--with-history] [--dry-run] [--conflict-policy P] [--timeout 30m]
 *   identity-transfer verify  --from-url URL --from-token PAT --to-url URL --to-token PAT [--org ID…]
 *                             [--with-passwords] [--with-otp] [--with-keys] [--timeout 30m]
 *   identity-transfer sync    --from-url URL --from-token PAT --to-url URL --to-token PAT --org ID… --checkpoint FILE
 *                             [--with-passwords] [--with-otp] [--with-keys] [--conflict-policy P] [--interval 1s] [--once]
 *
 * The options are the API's (ExportData's withPasswords, withOtp, withKeys, withHistory; ImportData's dryRun and
 * conflictPolicy). Documents are streamed (never held whole in memory): export writes the response
 * body to the file as it arrives; import and migrate send `{"timeout":…,"dataOrgs":<document>}` as
 * a streamed request body, as an import job where the target runs them (its phase and counts shown
 * until it ends: redrawn on a terminal, else a line when the phase or the organisations done
 * change, and every few seconds while users advance), else to ImportData. Progress (bytes) is shown
 * on a terminal; every import ends with a summary per kind of resource (created, updated,
 * unchanged, skipped, failed) and a last line that says plainly whether anything was written.
 * verify compares the two instances' exports resource by resource (verify.ts) and lists every
 * difference; exit 0 when they agree, 1 when they differ. sync copies organisations once and then
 * follows the source, round after round, from a checkpoint kept in a file (sync.ts).
 * Exit codes: 0 done, 1 the service refused, a job failed, or any resource failed (a dry run's too), 2 usage.
 */
import { closeSync, createReadStream, createWriteStream, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { base, bodyOf, failure, request, streamedRequest } from './http.js';
import { type Counts, completeAnswer, type ImportAnswer, readImportAnswer } from './import-answer.js';
import { requestBody, scanRequestFile } from './import-request-file.js';
import { countItems, readJsonWithSinks } from './json-tokens.js';
import { sync } from './sync.js';
import { compareExports, describeComparison } from './verify.js';

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Whether to draw a progress line (a terminal). */
  tty: boolean;
  /** Off a terminal, how often at most a line says that users advanced (LOG_PROGRESS_MS unless given). */
  progressEveryMs?: number;
}

const defaultIo: CliIo = {
  stdout: (l) => process.stdout.write(`${l}\n`),
  stderr: (l) => process.stderr.write(`${l}\n`),
  tty: Boolean(process.stderr.isTTY),
};

class UsageError extends Error {}

function progress(io: CliIo, label: string, total?: number) {
  let bytes = 0;
  let last = 0;
  const draw = (final = false) => {
    if (!io.tty) return;
    const mib = (bytes / 1048576).toFixed(1);
    const pct = total ? ` ${Math.min(100, Math.floor((bytes / total) * 100))}%` : '';
    process.stderr.write(`\r${label}: ${mib} MiB${pct}${final ? '\n' : ''}`);
  };
  return {
    add(n: number) {
      bytes += n;
      if (Date.now() - last > 100) {
        last = Date.now();
        draw();
      }
    },
    done() {
      draw(true);
      return bytes;
    },
  };
}

/**
 * The organisations of an exported document with the lengths of their lists, read from the file as
 * a stream: a million users' document (346 MiB) parsed whole would take gigabytes.
 */
export async function exportedOrgs(file: string): Promise<({ orgId: string } & Record<string, unknown>)[]> {
  const doc = (await readJsonWithSinks(createReadStream(file), (path) => (path.length === 3 && path[0] === 'orgs' ? countItems() : undefined))) as {
    orgs: ({ orgId: string } & Record<string, unknown>)[];
  };
  return doc.orgs;
}

/** Counts bytes through an async iterable of chunks. */
async function* counted(source: AsyncIterable<Uint8Array | string>, onBytes: (n: number) => void) {
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    onBytes(buf.length);
    yield buf;
  }
}

interface ExportOptions {
  orgs: string[];
  withPasswords: boolean;
  withOtp: boolean;
  /** Machine and application keys, and machine users' token and secret hashes: service accounts keep working after a move. */
  withKeys: boolean;
  /** Each user's, project's, user grant's and organisation's events: the target's change lists show the source's history, then the import. */
  withHistory?: boolean;
  timeout?: string;
}

async function startExport(url: string, token: string, opts: ExportOptions) {
  const res = await request(`${base(url)}/admin/v1/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      orgIds: opts.orgs,
      withPasswords: opts.withPasswords,
      withOtp: opts.withOtp,
      ...(opts.withKeys ? { withKeys: true } : {}),
      ...(opts.withHistory ? { withHistory: true } : {}),
      responseOutput: true,
      ...(opts.timeout ? { timeout: opts.timeout } : {}),
    }),
  });
  if (!res.ok || !res.body) throw await failure(res);
  return res.body as unknown as AsyncIterable<Uint8Array>;
}

/** What the import request says besides its document: ImportData's fields. */
interface ImportOptions {
  timeout: string;
  dryRun: boolean;
  conflictPolicy?: ConflictPolicy;
}

export const CONFLICT_POLICIES = ['REPORT', 'SKIP', 'OVERWRITE', 'FAIL'] as const;
type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

/** The request's fields, in the API's names (given ones only: the service's defaults otherwise). */
const requestFields = (o: ImportOptions) => ({ timeout: o.timeout, ...(o.dryRun ? { dryRun: true } : {}), ...(o.conflictPolicy ? { conflictPolicy: o.conflictPolicy } : {}) });

interface ImportJob {
  id: string;
  phase: string;
  progress: { orgsDone: number; orgsTotal?: number; usersDone: number; usersTotal?: number };
  committedOrgIds: string[];
  result?: ImportAnswer;
  error?: { code: number; id: string; message: string };
}

/** How often a running import job is asked how far it is: soon at first (small imports end in a moment), then every half second. */
const POLL_MS = [50, 100, 200, 500];
/** Off a terminal, how often at most a line says that users advanced (a phase or an organisation done is said at once). */
const LOG_PROGRESS_MS = 5_000;

/**
 * Whether the target runs imports as jobs (StartImportJob). An older service or ZITADEL answers
 * 404/405 for the path, a process without a folder for them 503: those get ImportData, which
 * answers only at the end.
 */
async function offersImportJobs(url: string, token: string): Promise<boolean> {
  const res = await request(`${base(url)}/admin/v1/import/jobs/_search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: { limit: 1 } }),
  });
  await res.body?.cancel();
  if (res.status === 404 || res.status === 405 || res.status === 503) return false;
  if (!res.ok) throw await failure(res);
  return true;
}

/**
 * Sends an import request (its body as a stream) and returns ImportData's answer: through an import
 * job whose progress is shown while it runs where the target has jobs, else through ImportData.
 */
async function sendImportRequest(io: CliIo, url: string, token: string, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, onSent: () => void): Promise<ImportAnswer> {
  const jobs = await offersImportJobs(url, token);
  const res = await request(`${base(url)}/admin/v1/import${jobs ? '/jobs' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...streamedRequest(body),
  });
  onSent();
  if (!res.ok) throw await failure(res);
  if (!jobs) return completeAnswer((await readImportAnswer(bodyOf(res))) as ImportAnswer);
  const { id } = (await res.json()) as { id: string };
  return followImportJob(io, url, token, id);
}

/** `importing: 3/10 organisations, 1200/5000 users` */
function describeJob(job: ImportJob): string {
  const { orgsDone, orgsTotal, usersDone, usersTotal } = job.progress;
  const counts = orgsTotal === undefined ? '' : `: ${orgsDone}/${orgsTotal} organisations, ${usersDone}/${usersTotal ?? '?'} users`;
  return `${job.phase}${counts}`;
}

/**
 * Polls the job until it ends, showing its phase and counts: redrawn in place on a terminal, a
 * line per change otherwise (a log). Done → its answer; failed or cancelled → an error naming
 * what was committed (each of those organisations is whole).
 */
async function followImportJob(io: CliIo, url: string, token: string, id: string): Promise<ImportJob['result'] & object> {
  io.stderr(`import job ${id} started`);
  let shown = '';
  let shownStep = '';
  let shownAt = 0;
  for (let round = 0; ; round++) {
    const res = await request(`${base(url)}/admin/v1/import/jobs/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw await failure(res);
    // Its answer, once done, lists every imported id: read as a stream, counted (import-answer.ts).
    const { job } = (await readImportAnswer(bodyOf(res), ['job', 'result'])) as { job: ImportJob };
    const line = describeJob(job);
    const ended = job.phase === 'done' || job.phase === 'failed' || job.phase === 'cancelled';
    // In a log, users advancing within an organisation make a line every few seconds, not every poll.
    const step = `${job.phase} ${job.progress.orgsDone}`;
    if (line !== shown && (io.tty || ended || step !== shownStep || Date.now() - shownAt >= (io.progressEveryMs ?? LOG_PROGRESS_MS))) {
      if (io.tty) process.stderr.write(`\r\x1b[2Kimport job ${id}: ${line}`);
      else io.stderr(`import job ${id}: ${line}`);
      shown = line;
      shownStep = step;
      shownAt = Date.now();
    }
    if (ended) {
      if (io.tty) process.stderr.write('\n');
      if (job.phase === 'done' && job.result) return completeAnswer(job.result);
      throw new Error(`import job ${id} ${job.phase}: ${job.error?.message ?? 'no reason given'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS[Math.min(round, POLL_MS.length - 1)]));
  }
}

async function sendImport(io: CliIo, url: string, token: string, document: AsyncIterable<Uint8Array>, options: ImportOptions, onSent: () => void): Promise<ImportAnswer> {
  const fields = JSON.stringify(requestFields(options));
  async function* body() {
    yield Buffer.from(`${fields.slice(0, -1)},"dataOrgs":`);
    yield* document;
    yield Buffer.from('}');
  }
  return sendImportRequest(io, url, token, body(), onSent);
}

/** The columns of the summary: the API's outcomes in a user's words. */
const OUTCOME_COLUMNS = [
  ['created', 'created'],
  ['changed', 'updated'],
  ['unchanged', 'unchanged'],
  ['skipped', 'skipped'],
  ['refused', 'failed'],
] as const;

/**
 * The outcomes per kind of resource: the service's `summaryByType`, or for a service without it
 * (ZITADEL, an older identity-service) what its answer lists: the success lists as created, the
 * errors as failed.
 */
function outcomesByType(result: ImportAnswer): Map<string, Required<Counts>> {
  const out = new Map<string, Required<Counts>>();
  const row = (type: string) => out.get(type) ?? out.set(type, { created: 0, unchanged: 0, changed: 0, skipped: 0, refused: 0 }).get(type)!;
  if (result.summaryByType) {
    for (const [type, counts] of Object.entries(result.summaryByType)) Object.assign(row(type), { skipped: 0, ...counts });
    return out;
  }
  for (const org of result.success.orgs) {
    for (const [list, count] of Object.entries(org)) if (list !== 'orgId' && typeof count === 'number') row(list).created += count;
  }
  for (const [type, count] of Object.entries(result.errors.byType)) row(type).refused += count;
  return out;
}

/**
 * The summary of an import: a line per kind of resource with its outcomes, their total, and a last
 * line saying what was written — nothing for a dry run or an import that found everything there.
 * Failures are listed (the first 20) on stderr; warnings (what was left out on purpose) as notes.
 * Exit code: 1 when any resource failed, else 0.
 */
function summarise(io: CliIo, result: ImportAnswer, dryRun: boolean): number {
  const byType = outcomesByType(result);
  const total: Required<Counts> = { created: 0, unchanged: 0, changed: 0, skipped: 0, refused: 0 };
  for (const counts of byType.values()) for (const [key] of OUTCOME_COLUMNS) total[key] += counts[key];
  const width = Math.max(5, ...[...byType.keys()].map((type) => type.length));
  const cells = (counts: Required<Counts>) => OUTCOME_COLUMNS.map(([key, title]) => String(counts[key]).padStart(title.length)).join('  ');
  io.stdout(`${''.padEnd(width)}  ${OUTCOME_COLUMNS.map(([, title]) => title).join('  ')}`);
  for (const [type, counts] of [...byType].sort(([a], [b]) => a.localeCompare(b))) io.stdout(`${type.padEnd(width)}  ${cells(counts)}`);
  io.stdout(`${'total'.padEnd(width)}  ${cells(total)}`);

  const orgs = result.success.orgs.map((o) => String(o.orgId));
  const outcomes = OUTCOME_COLUMNS.map(([key, title]) => `${total[key]} ${title}`).join(', ');
  const written = total.created + total.changed;
  if (dryRun || result.dryRun) io.stdout(`dry run: nothing was written; the import would give ${outcomes}`);
  else if (written === 0)
    io.stdout(`nothing was written: ${total.refused ? 'every resource of the document failed, or was there already' : 'every resource of the document was there already'} (${outcomes})`);
  else io.stdout(`imported into ${orgs.length} organisation(s) (${orgs.length <= 5 ? orgs.join(', ') : `${orgs.slice(0, 5).join(', ')}, …`}): ${outcomes}`);

  const { errors, warnings } = result;
  for (const e of errors.first) io.stderr(`  failed: ${e.type} ${e.id}: ${e.message}`);
  if (errors.total > errors.first.length) io.stderr(`  … and ${errors.total - errors.first.length} more`);
  // Left out on purpose (e.g. the source's administrator named as owner): said, not a failure.
  for (const w of warnings.first) io.stderr(`  note: ${w.message}`);
  if (warnings.total > warnings.first.length) io.stderr(`  … and ${warnings.total - warnings.first.length} more notes`);
  return errors.total || total.refused ? 1 : 0;
}

/** The import's own options, shared by import and migrate. */
const IMPORT_OPTIONS = [
  ['--dry-run', 'import in a transaction that is rolled back: say what would happen, write nothing'],
  ['--conflict-policy POLICY', 'what becomes of what the target has already: REPORT (default: a failure), SKIP, OVERWRITE, or FAIL (import nothing at all if anything conflicts)'],
] as const;

const COMMANDS = {
  export: {
    synopsis: ['export --url URL --token PAT [--org ID…] [--with-passwords] [--with-otp] [--with-keys] [--with-history] --out FILE'],
    about: 'Writes the organisations of one instance to FILE (a ZITADEL import document).',
    options: [
      ['--url URL', 'the source service (e.g. http://source:8080)'],
      ['--token PAT', 'a token with iam.read (the admin token)'],
      ['--org ID', 'an organisation to export (repeat for several; all when omitted)'],
      ['--with-passwords', "include users' password hashes (and client secrets' hashes)"],
      ['--with-otp', "include users' TOTP secrets"],
      ['--with-keys', "include machine and application public keys, and machine users' token and client secret hashes"],
      ['--with-history', 'include the events of each user, project (its apps and roles), user grant and the organisation (its identity providers), no secrets; an import puts them before its own'],
      ['--timeout DURATION', "the service's time limit for the export (e.g. 10m)"],
      ['--out FILE', 'where to write the document, readable by you only (FILE.partial until it is complete)'],
    ],
  },
  import: {
    synopsis: ['import --url URL --token PAT [--dry-run] [--conflict-policy POLICY] [--timeout 30m] FILE'],
    about: 'Imports the document in FILE (or a whole import request, {"dataOrgs": …}) into an instance.',
    options: [
      ['--url URL', 'the target service'],
      ['--token PAT', 'a token with iam.write (the admin token)'],
      ...IMPORT_OPTIONS,
      ['--timeout DURATION', "the service's time limit for the import (default 30m)"],
      ['FILE', 'the document to import'],
    ],
  },
  migrate: {
    synopsis: [
      'migrate --from-url URL --from-token PAT --to-url URL --to-token PAT [--org ID…]',
      '[--with-passwords] [--with-otp] [--with-keys] [--with-history] [--dry-run] [--conflict-policy POLICY] [--timeout 30m]',
    ],
    about: 'Streams an export of one instance into an import of another (nothing is written to disk).',
    options: [
      ['--from-url URL', 'the source service'],
      ['--from-token PAT', 'a token of the source with iam.read'],
      ['--to-url URL', 'the target service'],
      ['--to-token PAT', 'a token of the target with iam.write'],
      ['--org ID', 'an organisation to move (repeat for several; all when omitted)'],
      ['--with-passwords', "move users' password hashes (and client secrets' hashes)"],
      ['--with-otp', "move users' TOTP secrets"],
      ['--with-keys', "move machine and application keys and machine users' tokens and client secrets: service accounts keep working"],
      [
        '--with-history',
        "move the events of users, projects (apps, roles), user grants and the organisation (identity providers): the target's change lists show the source's history, then the import",
      ],
      ...IMPORT_OPTIONS,
      ['--timeout DURATION', "the target's time limit for the import (default 30m)"],
    ],
  },
  verify: {
    synopsis: ['verify --from-url URL --from-token PAT --to-url URL --to-token PAT [--org ID…]', '[--with-passwords] [--with-otp] [--with-keys] [--timeout DURATION]'],
    about: 'Compares the organisations of two instances resource by resource (a digest of each) and lists every difference; exit 0 when they agree, 1 when not.',
    options: [
      ['--from-url URL', 'the source service'],
      ['--from-token PAT', 'a token of the source with iam.read'],
      ['--to-url URL', 'the target service'],
      ['--to-token PAT', 'a token of the target with iam.read'],
      ['--org ID', 'an organisation to compare (repeat for several; all when omitted)'],
      ['--with-passwords', "also compare password hashes and client secrets' hashes (never printed)"],
      ['--with-otp', 'also compare TOTP secrets (never printed)'],
      ['--with-keys', "also compare machine and application keys, and machine users' token and secret hashes (never printed)"],
      ['--timeout DURATION', "each service's time limit for its export (e.g. 10m)"],
    ],
  },
  sync: {
    synopsis: [
      'sync --from-url URL --from-token PAT --to-url URL --to-token PAT --org ID… --checkpoint FILE',
      '[--with-passwords] [--with-otp] [--with-keys] [--conflict-policy POLICY] [--interval 1s] [--once] [--timeout 30m]',
    ],
    about:
      'Copies organisations once, then follows the source: each change, removals of every kind included, applied to the target within about the interval, resumable from the checkpoint in FILE. An organisation removed at the source is removed at the target and followed no more.',
    options: [
      ['--from-url URL', 'the source service'],
      ['--from-token PAT', 'a token of the source with iam.read'],
      ['--to-url URL', 'the target service'],
      ['--to-token PAT', 'a token of the target with iam.write'],
      ['--org ID', 'an organisation to follow (repeat for several)'],
      ['--checkpoint FILE', 'where the position reached is kept (written atomically); absent: start with a whole copy'],
      ['--with-passwords', "carry users' password hashes (and client secrets' hashes)"],
      ['--with-otp', "carry users' TOTP secrets"],
      ['--with-keys', "carry machine and application keys and machine users' tokens and client secrets"],
      ['--conflict-policy POLICY', 'a resource changed at the target too: OVERWRITE (default: the source wins), SKIP (kept), REPORT (kept and listed), FAIL (stop, exit 1)'],
      ['--interval DURATION', 'the pause between rounds (default 1s; ms, s or m)'],
      ['--once', 'one round, then exit'],
      ['--timeout DURATION', "each service's time limit for a round's export and import (default 30m)"],
    ],
  },
} as const;

type Command = keyof typeof COMMANDS;
const isCommand = (name: string | undefined): name is Command => name !== undefined && Object.hasOwn(COMMANDS, name);

/** A command's synopsis after `prefix`, continuation lines aligned under its first option. */
function synopsis(command: Command, prefix: string): string {
  const [first, ...more] = COMMANDS[command].synopsis;
  const indent = ' '.repeat(prefix.length + command.length + 1);
  return [`${prefix}${first}`, ...more.map((line) => `${indent}${line}`)].join('\n');
}

export const USAGE = `usage:
${(Object.keys(COMMANDS) as Command[]).map((c) => synopsis(c, '  identity-transfer ')).join('\n')}

identity-transfer COMMAND --help shows a command's options.`;

/** One command's usage, with a line per option. */
export function commandUsage(command: Command): string {
  const c = COMMANDS[command];
  const width = Math.max(...c.options.map(([name]) => name.length));
  return [synopsis(command, 'usage: identity-transfer '), '', c.about, '', ...c.options.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`)].join('\n');
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'help' && isCommand(rest[0])) {
    io.stdout(commandUsage(rest[0]));
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (!isCommand(command)) throw new UsageError(`unknown command ${command}; use export, import, migrate, verify or sync (identity-transfer --help)`);
  const args = attachTokenValues(rest);
  // Help wins over everything else on the line (also over missing or unknown options).
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(commandUsage(command));
    return 0;
  }
  let parsed;
  try {
    parsed = parseCommandArgs(args);
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) {
      const reason = (error as Error).message.split('. ')[0]!.replace(/^Unknown option/, 'unknown option');
      throw new UsageError(`${reason}\n\n${commandUsage(command)}`);
    }
    throw error;
  }
  const { values, positionals } = parsed;
  const need = (name: keyof typeof values) => {
    const v = values[name];
    if (typeof v !== 'string' || !v) throw new UsageError(`--${String(name)} is required`);
    return v;
  };
  const exportOpts: ExportOptions = {
    orgs: values.org ?? [],
    withPasswords: Boolean(values['with-passwords']),
    withOtp: Boolean(values['with-otp']),
    withKeys: Boolean(values['with-keys']),
    withHistory: Boolean(values['with-history']),
    timeout: values.timeout,
  };
  const importOpts: ImportOptions = { timeout: values.timeout ?? '30m', dryRun: Boolean(values['dry-run']), conflictPolicy: conflictPolicy(values['conflict-policy']) };
  const notFor = (options: string[]) => {
    for (const option of options) if (values[option as keyof typeof values] !== undefined) throw new UsageError(`--${option} is not an option of ${command}\n\n${commandUsage(command)}`);
  };

  if (command === 'export') {
    notFor(['dry-run', 'conflict-policy']);
    const url = need('url');
    const token = need('token');
    const out = need('out');
    const bar = progress(io, 'exporting');
    // Into a side file, renamed when complete: an export cut off mid-stream (the service can only
    // drop the connection once it has started answering) must not leave a truncated document
    // under the name the user will import from.
    const partial = `${out}.partial`;
    const document = await startExport(url, token, exportOpts); // a refusal (401, 400, …) surfaces as it is
    try {
      // The document may hold password hashes and TOTP secrets: readable by its owner only. A side
      // file left by an earlier run is removed and a new one created (`wx`: never an existing file
      // or a symlink's target), so the mode is set at creation and there is no moment where the
      // content is readable by others; the rename then replaces any earlier `out` with this file.
      rmSync(partial, { force: true });
      await pipeline(Readable.from(counted(document, bar.add)), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    } catch (error) {
      bar.done();
      rmSync(partial, { force: true });
      throw new Error(`export interrupted: ${error instanceof Error ? error.message : String(error)}; ${out} was not written`);
    }
    renameSync(partial, out);
    const bytes = bar.done();
    const orgs = await exportedOrgs(out);
    for (const o of orgs) io.stdout(`org ${o.orgId}: ${o.humanUsers ?? 0} human users, ${o.machineUsers ?? 0} machine users`);
    io.stdout(`exported ${orgs.length} organisation(s), ${bytes} bytes → ${out}`);
    return 0;
  }
  if (command === 'import') {
    notFor(['with-passwords', 'with-otp', 'with-keys', 'with-history', 'org']);
    const url = need('url');
    const token = need('token');
    const file = positionals[0];
    if (!file) throw new UsageError('the document file is required');
    const bar = progress(io, 'uploading', statSync(file).size);
    // A file may be a bare document or a whole import request (`{"dataOrgs": …}`, as the fixtures are):
    // its head tells (only the head is read: a document of a million users is hundreds of MiB).
    const head = readHead(file, 4096);
    if (/"(data_orgs|dataOrgs|data_orgsv1|dataOrgsv1)"\s*:/.test(head) && !/^\s*\{\s*"orgs"/.test(head)) {
      // Read in two passes, the document never held (import-request-file.ts); the command line's
      // options win over the file's fields (under either spelling).
      const scanned = await scanRequestFile(file);
      const given = requestFields({ ...importOpts, timeout: values.timeout ?? String(scanned.fields.timeout ?? importOpts.timeout) });
      // A dry run asked for in the file is said by the answer (`dryRun: true`).
      return summarise(io, await sendImportRequest(io, url, token, counted(requestBody(file, scanned, given), bar.add), () => bar.done()), importOpts.dryRun);
    }
    return summarise(io, await sendImport(io, url, token, counted(createReadStream(file), bar.add), importOpts, () => bar.done()), importOpts.dryRun);
  }
  if (command === 'migrate') {
    const from = need('from-url');
    const fromToken = need('from-token');
    const to = need('to-url');
    const toToken = need('to-token');
    const bar = progress(io, 'migrating');
    return summarise(io, await sendImport(io, to, toToken, counted(await startExport(from, fromToken, exportOpts), bar.add), importOpts, () => bar.done()), importOpts.dryRun);
  }
  if (command === 'sync') {
    notFor(['dry-run', 'out']);
    if (!exportOpts.orgs.length) throw new UsageError('--org is required: sync follows the organisations named');
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      return await sync(io, {
        from: { url: need('from-url'), token: need('from-token') },
        to: { url: need('to-url'), token: need('to-token') },
        orgs: exportOpts.orgs,
        withPasswords: exportOpts.withPasswords,
        withOtp: exportOpts.withOtp,
        withKeys: exportOpts.withKeys,
        conflictPolicy: importOpts.conflictPolicy ?? 'OVERWRITE',
        checkpointFile: need('checkpoint'),
        intervalMs: interval(values.interval),
        once: Boolean(values.once),
        timeout: values.timeout ?? '30m',
        signal: stop.signal,
      });
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    }
  }
  if (command === 'verify') {
    // A history differs at the target by the import's own event: verify compares the objects, not their trails.
    notFor(['dry-run', 'conflict-policy', 'out', 'with-history']);
    return verify(io, { url: need('from-url'), token: need('from-token') }, { url: need('to-url'), token: need('to-token') }, exportOpts);
  }
  throw new UsageError(`unknown command ${String(command)}; use export, import, migrate, verify or sync`);
}

/** Which of the organisations asked for the target does not have (GetOrgByID answers 404): its export would refuse them all. */
async function orgsNotAt(url: string, token: string, orgIds: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const id of new Set(orgIds)) {
    const res = await request(`${base(url)}/admin/v1/orgs/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 404) missing.push(id);
    else if (!res.ok) throw await failure(res);
    await res.body?.cancel();
  }
  return missing;
}

/** What the exports carry besides the resources' plain fields, as the summary says it. */
function comparedSecrets(opts: ExportOptions): string {
  const secrets = [opts.withPasswords && 'password and client secret hashes', opts.withOtp && 'TOTP secrets', opts.withKeys && 'keys, token and machine secret hashes'].filter(Boolean);
  return secrets.length ? `with ${secrets.join(', ')}` : 'without secrets: --with-passwords, --with-otp, --with-keys compare them too';
}

/**
 * verify: the same export asked of both instances, compared as they stream in (verify.ts). An
 * organisation the target lacks is reported as missing (its export would refuse it), not an error;
 * one the source lacks is a usage mistake and refused as export refuses it.
 */
async function verify(io: CliIo, from: { url: string; token: string }, to: { url: string; token: string }, opts: ExportOptions): Promise<number> {
  const missingOrgs = await orgsNotAt(to.url, to.token, opts.orgs);
  const source = await startExport(from.url, from.token, opts);
  const present = opts.orgs.filter((id) => !missingOrgs.includes(id));
  let target: AsyncIterable<Uint8Array>;
  try {
    // Every organisation asked for is missing at the target: nothing to ask it for (no --org would mean all of them).
    target = opts.orgs.length && !present.length ? Readable.from([Buffer.from('{"orgs":[]}')]) : await startExport(to.url, to.token, { ...opts, orgs: present });
  } catch (error) {
    // The target refused (a wrong token, say): the source's answer, started already, is not read.
    await (source as unknown as ReadableStream).cancel().catch(() => {});
    throw error;
  }
  const bar = progress(io, 'comparing');
  const comparison = await compareExports(counted(source, bar.add), target, missingOrgs);
  bar.done();
  const { lines, agree } = describeComparison(comparison, comparedSecrets(opts));
  for (const line of lines) io.stdout(line);
  return agree ? 0 : 1;
}

/** The first `bytes` of a file, as text. */
function readHead(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function parseCommandArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      'from-url': { type: 'string' },
      'from-token': { type: 'string' },
      'to-url': { type: 'string' },
      'to-token': { type: 'string' },
      org: { type: 'string', multiple: true },
      'with-passwords': { type: 'boolean' },
      'with-otp': { type: 'boolean' },
      'with-keys': { type: 'boolean' },
      'with-history': { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      'conflict-policy': { type: 'string' },
      out: { type: 'string' },
      timeout: { type: 'string' },
      checkpoint: { type: 'string' },
      interval: { type: 'string' },
      once: { type: 'boolean' },
    },
  });
}

/** `--conflict-policy`'s value, in any letter case; a usage error naming the policies otherwise. */
function conflictPolicy(value: string | undefined): ConflictPolicy | undefined {
  if (value === undefined) return undefined;
  const policy = value.toUpperCase();
  if (!(CONFLICT_POLICIES as readonly string[]).includes(policy)) throw new UsageError(`--conflict-policy ${value}: use one of ${CONFLICT_POLICIES.join(', ')}`);
  return policy as ConflictPolicy;
}

/** `--interval`: "500ms", "2s", "1m" (default 1s). */
function interval(value: string | undefined): number {
  if (value === undefined) return 1000;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
  if (!m) throw new UsageError(`--interval ${value}: a duration such as 500ms, 1s or 1m`);
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

/** Options whose value is a secret the user pastes as it is. */
const TOKEN_OPTIONS = new Set(['--token', '--from-token', '--to-token']);

/**
 * `--token VALUE` → `--token=VALUE`. A token may begin with "-" (base64url does); parseArgs
 * refuses such a separate value as ambiguous ("did you forget the value?"), which for an opaque
 * secret is never the right reading.
 */
function attachTokenValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (TOKEN_OPTIONS.has(args[i]) && i + 1 < args.length) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

/** The process entry (bin/identity-transfer.mjs): exit code 2 for usage errors, 1 for failures. */
export function run(): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`identity-transfer: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
