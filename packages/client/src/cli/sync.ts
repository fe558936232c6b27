/**
 * identity-transfer sync (issue 51): copies organisations once, then follows the source, applying
 * each change to the target within about the poll interval.
 *
 * Each round asks the source for what changed since the checkpoint (ExportData's `changedSince`,
 * an event log position: the server's domain/transfer/changes.ts), imports that document into the
 * target under the conflict policy (OVERWRITE unless told otherwise: a resource the source changed
 * takes the source's values, an unchanged one is left as it is, so a round applied twice changes
 * nothing), removes at the target the users and user grants the source removed, and only then
 * writes the new checkpoint to its file (a side file renamed over it: a kill at any moment leaves
 * the old checkpoint or the new one, never half of one). After a kill the next start repeats at most
 * the round that was cut off, which the import makes harmless. The first round, from no checkpoint
 * ("0"), is the whole organisations, as migrate.
 *
 * Secrets travel as in a full move: `--with-passwords`, `--with-otp`, `--with-keys` are the
 * export's options. What a local change at the target becomes is the import's conflict policy:
 * OVERWRITE (the source wins), SKIP (a resource that exists at the target is left, so only new
 * ones arrive), REPORT (as SKIP, each one listed), FAIL (the round stops, nothing of it written,
 * and sync exits 1).
 *
 * A round that fails on the network or a 5xx is tried again after the interval (a follower
 * outlives a restart of either side); a refusal (4xx: a wrong token, an unknown organisation)
 * ends sync with exit 1.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CliIo } from './identity-transfer.js';

export interface SyncEndpoint {
  url: string;
  token: string;
}

export interface SyncOptions {
  from: SyncEndpoint;
  to: SyncEndpoint;
  orgs: string[];
  withPasswords: boolean;
  withOtp: boolean;
  withKeys: boolean;
  conflictPolicy: 'REPORT' | 'SKIP' | 'OVERWRITE' | 'FAIL';
  /** The checkpoint's file. */
  checkpointFile: string;
  intervalMs: number;
  /** One round and stop (a cron job, or a test). */
  once: boolean;
  /** Each request's time limit at the services (a Go duration). */
  timeout: string;
  /** Ends the loop after the round under way (SIGINT, SIGTERM). */
  signal?: AbortSignal;
}

interface ChangesAnswer {
  checkpoint: string;
  removed: { orgId: string; userIds: string[]; userGrants: { userId: string; userGrantId: string }[] }[];
  orgs: { orgId: string }[];
}

interface ImportAnswer {
  errors?: { type: string; id: string; message: string }[];
  summary?: { created: number; changed: number; unchanged: number; skipped?: number; refused: number };
}

/** A refusal: not tried again. */
class Refused extends Error {}

const base = (url: string) => url.replace(/\/+$/, '');

async function call(endpoint: SyncEndpoint, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${base(endpoint.url)}${path}`, {
    method,
    headers: { authorization: `Bearer ${endpoint.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10 * 60_000),
  });
  return res;
}

async function refusedOrRetried(res: Response, what: string): Promise<Error> {
  const text = await res.text();
  let message = text.slice(0, 500);
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? message;
  } catch {
    // not JSON: the text as it is
  }
  const error = `${what}: ${res.status} ${message}`;
  return res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 ? new Refused(error) : new Error(error);
}

/** The checkpoint in the file, "0" when there is none yet (the first round copies everything). */
export function readCheckpoint(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '0';
    throw error;
  }
  const checkpoint = (JSON.parse(text) as { checkpoint?: unknown }).checkpoint;
  if (typeof checkpoint !== 'string' || !/^\d+$/.test(checkpoint)) throw new Refused(`${file} holds no checkpoint`);
  return checkpoint;
}

/** Written to a side file, flushed to disk, renamed over the file: the old checkpoint or the new one, whenever the process dies. */
export function writeCheckpoint(file: string, checkpoint: string, source: string, orgs: string[]): void {
  const side = `${file}.tmp`;
  rmSync(side, { force: true });
  const fd = openSync(side, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ checkpoint, source: base(source), orgs, at: new Date().toISOString() })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(side, file);
  // The rename itself reaches the disk with the directory's entry.
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Removes what the source removed; what the target no longer has is already as it should be. */
async function applyRemovals(io: CliIo, to: SyncEndpoint, removed: ChangesAnswer['removed']): Promise<{ users: number; grants: number }> {
  let users = 0;
  let grants = 0;
  for (const org of removed) {
    const inOrg = { 'x-zitadel-orgid': org.orgId };
    const gone = new Set(org.userIds);
    for (const g of org.userGrants) {
      if (gone.has(g.userId)) continue; // goes with its user
      const res = await call(to, 'DELETE', `/management/v1/users/${encodeURIComponent(g.userId)}/grants/${encodeURIComponent(g.userGrantId)}`, undefined, inOrg);
      if (res.ok) grants++;
      else if (res.status !== 404) throw await refusedOrRetried(res, `removing user grant ${g.userGrantId} at the target`);
      else await res.body?.cancel();
    }
    for (const userId of org.userIds) {
      const res = await call(to, 'DELETE', `/management/v1/users/${encodeURIComponent(userId)}`, undefined, inOrg);
      if (res.ok) users++;
      else if (res.status !== 404) throw await refusedOrRetried(res, `removing user ${userId} at the target`);
      else await res.body?.cancel();
    }
  }
  if (users || grants) io.stdout(`removed at the target: ${users} user(s), ${grants} user grant(s)`);
  return { users, grants };
}

/** One round: what changed since `since`, applied to the target; the new checkpoint. */
export async function syncRound(io: CliIo, opts: SyncOptions, since: string): Promise<string> {
  const res = await call(opts.from, 'POST', '/admin/v1/export', {
    orgIds: opts.orgs, changedSince: since, responseOutput: true, timeout: opts.timeout,
    withPasswords: opts.withPasswords, withOtp: opts.withOtp, ...(opts.withKeys ? { withKeys: true } : {}),
  });
  if (!res.ok) throw await refusedOrRetried(res, 'the source refused the export');
  const changes = (await res.json()) as ChangesAnswer;
  if (typeof changes.checkpoint !== 'string') throw new Refused('the source answers no checkpoint: it does not offer changedSince (identity-service with issue 51 needed)');
  if (changes.orgs.length) {
    const imported = await call(opts.to, 'POST', '/admin/v1/import', { timeout: opts.timeout, conflictPolicy: opts.conflictPolicy, dataOrgs: { orgs: changes.orgs } });
    if (!imported.ok) {
      // FAIL: a resource the target changed stopped the import; nothing of it was written.
      throw imported.status === 409 || opts.conflictPolicy === 'FAIL' ? new Refused((await refusedOrRetried(imported, 'the target refused the import')).message) : await refusedOrRetried(imported, 'the target refused the import');
    }
    const answer = (await imported.json()) as ImportAnswer;
    const s = answer.summary;
    if (s) io.stdout(`applied ${changes.orgs.length} organisation(s): ${s.created} created, ${s.changed} changed, ${s.unchanged} unchanged, ${s.skipped ?? 0} skipped, ${s.refused} refused`);
    // What the target holds differently and the policy kept (REPORT), or refused: said, never silently.
    for (const e of answer.errors ?? []) io.stderr(`not applied: ${e.type} ${e.id}: ${e.message}`);
  }
  await applyRemovals(io, opts.to, changes.removed);
  return changes.checkpoint;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The loop: rounds until stopped (or one with `once`). Exit code: 0 stopped, 1 refused. */
export async function sync(io: CliIo, opts: SyncOptions): Promise<number> {
  let checkpoint = readCheckpoint(opts.checkpointFile);
  io.stdout(checkpoint === '0' ? 'sync: no checkpoint yet, copying the organisation(s) whole' : `sync: resuming after position ${checkpoint}`);
  for (;;) {
    try {
      const next = await syncRound(io, opts, checkpoint);
      if (next !== checkpoint) {
        writeCheckpoint(opts.checkpointFile, next, opts.from.url, opts.orgs);
        io.stdout(`checkpoint ${next}`);
        checkpoint = next;
      }
    } catch (error) {
      if (error instanceof Refused) {
        io.stderr(`sync: ${error.message}`);
        return 1;
      }
      // The network or a 5xx: the same round again after the interval, from the same checkpoint.
      io.stderr(`sync: ${error instanceof Error ? error.message : String(error)}; trying again`);
      if (opts.once) return 1;
    }
    if (opts.once || opts.signal?.aborted) return 0;
    await pause(opts.intervalMs, opts.signal);
    if (opts.signal?.aborted) return 0;
  }
}
