/**
 * identity-transfer sync (issue 51): copies organisations once, then follows the source, applying
 * each change to the target within about the poll interval.
 *
 * Each round asks the source for what changed since the checkpoint (ExportData's `changedSince`,
 * an event log position: the server's domain/transfer/changes.ts), imports that document into the
 * target under the conflict policy (OVERWRITE unless told otherwise: a resource the source changed
 * takes the source's values, an unchanged one is left as it is, so a round applied twice changes
 * nothing), removes at the target what the source removed, of every kind, before the import (the
 * export's `removed`, through the target's own DELETE operations: `REMOVAL_PATHS`; what is gone already is no error, so
 * a removal applied twice removes nothing twice; an organisation removed at the source is removed
 * at the target and followed no more, and when none is left sync stops with 0), and only then
 * writes the new checkpoint to its file (a side file renamed over it: a kill at any moment leaves
 * the old checkpoint or the new one, never half of one). After a kill the next start repeats at most
 * the round that was cut off, which the import makes harmless. The first round, from no checkpoint
 * ("0"), is the whole organisations, as migrate.
 *
 * Secrets travel as in a full move: `--with-passwords`, `--with-otp`, `--with-keys` are the
 * export's options. A resource changed at the target too since the sync last wrote there (the
 * target's own incremental export from its position then, also kept in the file) is a conflict,
 * which the conflict policy decides (sync-conflicts.ts): OVERWRITE (default) the source wins, SKIP
 * the target's stays, REPORT as SKIP and each one listed, FAIL the round is not applied and sync
 * exits 1. The first copy goes to the import under the policy itself, as migrate's would.
 *
 * A round that fails on the network or a 5xx is tried again after the interval (a follower
 * outlives a restart of either side); a refusal (4xx: a wrong token, an unknown organisation)
 * ends sync with exit 1.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { answerMessage, base, bodyOf, request, streamedRequest } from './http.js';
import type { CliIo } from './identity-transfer.js';
import { completeAnswer, type ImportAnswer, readImportAnswer } from './import-answer.js';
import { Conflicts, type OrgRemovals, type Removal, Touched, unitOfEntry, unitOfRemoval } from './sync-conflicts.js';
import { type Entry, entriesOf, SealedSpool } from './sync-document.js';

/** Where a sync is: the source's position applied, and the target's position after the sync's last writes. */
export interface SyncState {
  checkpoint: string;
  targetCheckpoint?: string;
  /** Organisations removed at the source: no longer followed (removed at the target too, unless the conflict policy kept them). */
  removedOrgs?: string[];
}

/** The error id of a request in the context of an organisation that does not exist (ZITADEL's). */
const UNKNOWN_ORG = 'AUTH-Bs7Ds';

/** Beyond any log's end: an incremental export from it answers only the log's last position. */
const END_OF_LOG = '999999999999999';

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

/** A refusal: not tried again. */
class Refused extends Error {}

async function call(endpoint: SyncEndpoint, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await request(`${base(endpoint.url)}${path}`, {
    method,
    headers: { authorization: `Bearer ${endpoint.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10 * 60_000),
  });
  return res;
}

async function refusedOrRetried(res: Response, what: string): Promise<Error> {
  const error = `${what}: ${res.status} ${answerMessage(await res.text())}`;
  return res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 ? new Refused(error) : new Error(error);
}

/** The state in the file; checkpoint "0" when there is none yet (the first round copies everything). */
export function readCheckpoint(file: string): SyncState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { checkpoint: '0' };
    throw error;
  }
  const { checkpoint, targetCheckpoint, removedOrgs } = JSON.parse(text) as { checkpoint?: unknown; targetCheckpoint?: unknown; removedOrgs?: unknown };
  const position = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);
  const ids = (v: unknown) => Array.isArray(v) && v.every((id) => typeof id === 'string');
  if (!position(checkpoint) || (targetCheckpoint !== undefined && !position(targetCheckpoint)) || (removedOrgs !== undefined && !ids(removedOrgs))) throw new Refused(`${file} holds no checkpoint`);
  return {
    checkpoint: checkpoint as string,
    ...(targetCheckpoint === undefined ? {} : { targetCheckpoint: targetCheckpoint as string }),
    ...(removedOrgs === undefined ? {} : { removedOrgs: removedOrgs as string[] }),
  };
}

/** Written to a side file, flushed to disk, renamed over the file: the old checkpoint or the new one, whenever the process dies. */
export function writeCheckpoint(file: string, state: SyncState, source: string, orgs: string[]): void {
  const side = `${file}.tmp`;
  rmSync(side, { force: true });
  const fd = openSync(side, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ ...state, source: base(source), orgs, at: new Date().toISOString() })}\n`);
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

/**
 * Where each kind of removal is made (the export's `removed`, server domain/transfer/removals.ts):
 * the management API's DELETE, whose path parameters the removal names, so the target's own
 * operation removes it, with its permission checks, cascades and events.
 */
const REMOVAL_PATHS: Record<string, string> = {
  user: '/users/{userId}',
  user_grant: '/users/{userId}/grants/{grantId}',
  user_metadata: '/users/{userId}/metadata/{key}',
  machine_key: '/users/{userId}/keys/{keyId}',
  personal_access_token: '/users/{userId}/pats/{tokenId}',
  machine_secret: '/users/{userId}/secret',
  otp: '/users/{userId}/auth_factors/otp',
  idp_link: '/users/{userId}/idps/{idpId}/{linkedUserId}',
  project: '/projects/{projectId}',
  project_role: '/projects/{projectId}/roles/{roleKey}',
  project_member: '/projects/{projectId}/members/{userId}',
  app: '/projects/{projectId}/apps/{appId}',
  app_key: '/projects/{projectId}/apps/{appId}/keys/{keyId}',
  project_grant: '/projects/{projectId}/grants/{grantId}',
  project_grant_member: '/projects/{projectId}/grants/{grantId}/members/{userId}',
  org_member: '/orgs/me/members/{userId}',
  idp: '/idps/{idpId}',
  org_domain: '/orgs/me/domains/{domain}',
  login_texts: '/text/login/{language}',
  message_text: '/text/message/{messageType}/{language}',
  policy: '/policies/{policy}',
};

/** The removal's path at the target, or undefined for a kind this sync does not know (a newer source). */
function removalPath(r: Removal): string | undefined {
  const template = REMOVAL_PATHS[r.kind];
  if (!template) return undefined;
  // `policy` is a path of its own (`password/complexity`); every other id one segment.
  return `/management/v1${template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'policy' ? (r[name] ?? '').split('/').map(encodeURIComponent).join('/') : encodeURIComponent(r[name] ?? '')))}`;
}

/**
 * Removes what the source removed, in the order it was removed there (before the round's import,
 * which then brings back what was removed and added again, a role key or a member); what the
 * target no longer has (404) is already as it should be, so a round applied twice removes nothing
 * twice. An organisation removed at the source is removed at the target, with everything in it.
 */
async function applyRemovals(io: CliIo, to: SyncEndpoint, removed: OrgRemovals[]): Promise<number> {
  let count = 0;
  const remove = async (path: string, what: string, orgId: string) => {
    const res = await call(to, 'DELETE', path, undefined, { 'x-zitadel-orgid': orgId });
    if (res.ok || res.status === 404) {
      if (res.ok) count++;
      await res.body?.cancel();
      return;
    }
    const text = await res.text();
    // An organisation the target no longer has answers as ZITADEL does for any unknown one: 403 AUTH-Bs7Ds.
    if (res.status === 403 && text.includes(UNKNOWN_ORG)) return;
    throw await refusedOrRetried(new Response(text, { status: res.status }), `removing ${what} at the target`);
  };
  for (const org of removed) {
    if (org.orgRemoved) {
      await remove('/management/v1/orgs/me', `organisation ${org.orgId}`, org.orgId);
      io.stdout(`organisation ${org.orgId} was removed at the source: removed at the target, no longer followed`);
      continue;
    }
    for (const r of org.resources) {
      const path = removalPath(r);
      if (path) await remove(path, `${r.kind} ${path}`, org.orgId);
      else io.stderr(`not applied: removal of a ${r.kind}, a kind this identity-transfer does not know`);
    }
  }
  if (count) io.stdout(`removed at the target: ${count} resource(s)`);
  return count;
}

/** An instance's incremental export of the followed organisations (secrets only from the source), read as it arrives. */
async function changesAt(endpoint: SyncEndpoint, opts: SyncOptions, orgs: string[], since: string, secrets: boolean, byOthers = false): Promise<AsyncIterable<Entry>> {
  const res = await call(endpoint, 'POST', '/admin/v1/export', {
    orgIds: orgs,
    changedSince: since,
    responseOutput: true,
    timeout: opts.timeout,
    ...(byOthers ? { changedByOthers: true } : {}),
    ...(secrets ? { withPasswords: opts.withPasswords, withOtp: opts.withOtp, ...(opts.withKeys ? { withKeys: true } : {}) } : {}),
  });
  if (!res.ok) throw await refusedOrRetried(res, `the ${sideOf(opts, endpoint)} refused the export`);
  return entriesOf((res.body ?? []) as AsyncIterable<Uint8Array>);
}

const sideOf = (opts: SyncOptions, endpoint: SyncEndpoint) => (endpoint === opts.from ? 'source' : 'target');

/** An answer's top-level fields, noted as its entries go by. */
class AnswerHead {
  private checkpoint?: unknown;
  removed: OrgRemovals[] = [];

  entry(e: Entry): void {
    if (e.at !== 'root') return;
    if (e.key === 'checkpoint') this.checkpoint = e.value;
    else if (e.key === 'removed' && Array.isArray(e.value)) this.removed = e.value as OrgRemovals[];
  }

  /** The checkpoint, once the answer has been read. */
  checkpointOf(side: string): string {
    if (typeof this.checkpoint !== 'string') throw new Refused(`the ${side} answers no checkpoint: it does not offer changedSince (identity-service with issue 51 needed)`);
    return this.checkpoint;
  }
}

/** The target's position and what changed there other than by this sync since `since` (sync-conflicts.ts). */
async function localChanges(opts: SyncOptions, orgs: string[], since: string): Promise<{ checkpoint: string; touched: Touched }> {
  const head = new AnswerHead();
  const touched = new Touched();
  for await (const e of await changesAt(opts.to, opts, orgs, since, false, true)) {
    head.entry(e);
    touched.entry(e);
  }
  return { checkpoint: head.checkpointOf('target'), touched };
}

/**
 * The conflict policy on what the source and the target both changed: what is kept of the target's
 * (nothing under OVERWRITE). FAIL: a Refused error, nothing applied.
 */
function keptAtTarget(io: CliIo, opts: SyncOptions, conflicts: Conflicts): Conflicts | undefined {
  const listed = conflicts.list.map((c) => `${c.type} ${c.id}`);
  if (!listed.length) return undefined;
  if (opts.conflictPolicy === 'OVERWRITE') {
    io.stdout(`changed at the target too, overwritten with the source's: ${listed.join(', ')}`);
    return undefined;
  }
  if (opts.conflictPolicy === 'FAIL') {
    for (const line of listed) io.stderr(`changed at the target too: ${line}`);
    throw new Refused(`${listed.length} resource(s) changed at the target too; nothing of this round applied (conflict policy FAIL)`);
  }
  if (opts.conflictPolicy === 'REPORT') for (const line of listed) io.stderr(`changed at the target too, kept there: ${line}`);
  else io.stdout(`changed at the target too, kept there: ${listed.length} resource(s)`);
  return conflicts;
}

/** The import of the spooled document at the target, less what the policy keeps there; its answer reported. */
async function importSpooled(io: CliIo, opts: SyncOptions, spool: SealedSpool, policy: SyncOptions['conflictPolicy'], kept?: Conflicts): Promise<void> {
  const prefix = `${JSON.stringify({ timeout: opts.timeout, conflictPolicy: policy }).slice(0, -1)},"dataOrgs":`;
  const body = spool.body(prefix, (e) => !kept?.has(unitOfEntry(e)));
  const imported = await request(`${base(opts.to.url)}/admin/v1/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.to.token}`, 'content-type': 'application/json' },
    ...streamedRequest(body),
    signal: AbortSignal.timeout(10 * 60_000),
  });
  if (!imported.ok) {
    // FAIL: a resource the target changed stopped the import; nothing of it was written.
    throw imported.status === 409 || opts.conflictPolicy === 'FAIL'
      ? new Refused((await refusedOrRetried(imported, 'the target refused the import')).message)
      : await refusedOrRetried(imported, 'the target refused the import');
  }
  // The first copy's answer lists every id imported: read as a stream, counted (import-answer.ts).
  const answer = completeAnswer((await readImportAnswer(bodyOf(imported))) as ImportAnswer);
  if (policy === 'FAIL' && answer.errors.total) throw new Refused(`the target refused the first copy: ${answer.errors.total} error(s)`);
  const s = answer.summary;
  if (s) io.stdout(`applied ${spool.orgs} organisation(s): ${s.created} created, ${s.changed} changed, ${s.unchanged} unchanged, ${s.skipped ?? 0} skipped, ${s.refused} refused`);
  // What the target holds differently and the policy kept (REPORT), or refused: said, never silently.
  for (const e of answer.errors.first) io.stderr(`not applied: ${e.type} ${e.id}: ${e.message}`);
  if (answer.errors.total > answer.errors.first.length) io.stderr(`not applied: … and ${answer.errors.total - answer.errors.first.length} more`);
}

/** The organisations still followed: those named, less those removed at the source. */
const followed = (opts: SyncOptions, state: SyncState) => opts.orgs.filter((id) => !state.removedOrgs?.includes(id));

/**
 * One round: what changed since the state's checkpoint, applied to the target; the new state. The
 * source's answer is read as it arrives into a sealed spool (sync-document.ts), meeting the
 * target's local changes on the way; no document is held in memory.
 */
export async function syncRound(io: CliIo, opts: SyncOptions, state: SyncState): Promise<SyncState> {
  const orgs = followed(opts, state);
  // The first copy goes to the import under the policy itself, as migrate's would; later rounds meet
  // what changed at the target since the last one other than by this sync (its token's user) here,
  // and the import then takes the rest.
  const first = state.targetCheckpoint === undefined;
  const local = first ? undefined : await localChanges(opts, orgs, state.targetCheckpoint!);
  const conflicts = new Conflicts(local?.touched);
  const head = new AnswerHead();
  const spool = new SealedSpool();
  try {
    await spool.write(await changesAt(opts.from, opts, orgs, state.checkpoint, true), (e) => {
      head.entry(e);
      if (e.at !== 'root') conflicts.meet(unitOfEntry(e));
    });
    const checkpoint = head.checkpointOf('source');
    for (const r of head.removed) {
      if (r.orgRemoved) conflicts.meet({ type: 'org', id: r.orgId });
      for (const resource of r.resources) conflicts.meet(unitOfRemoval(resource, r.orgId));
    }
    const kept = keptAtTarget(io, opts, conflicts);
    const removed = head.removed
      .filter((r) => !kept?.has({ type: 'org', id: r.orgId }))
      .map((r) => ({ ...r, resources: r.resources.filter((resource) => !kept?.has(unitOfRemoval(resource, r.orgId))) }));
    // Removals first, in the source's order, then the import: each removal meets the target as the
    // source's met it (what the source removed and gave back is not reported removed, changes.ts).
    await applyRemovals(io, opts.to, removed);
    if (spool.orgs) await importSpooled(io, opts, spool, first ? opts.conflictPolicy : 'OVERWRITE', kept);
    // An organisation the source removed is followed no more, whether removed at the target too or kept there by the policy.
    const gone = head.removed.filter((r) => r.orgRemoved).map((r) => r.orgId);
    for (const orgId of gone) if (!removed.some((r) => r.orgId === orgId)) io.stdout(`organisation ${orgId} was removed at the source, kept at the target (changed there too): no longer followed`);
    const removedOrgs = [...(state.removedOrgs ?? []), ...gone];
    // After the first copy (the organisations exist there now): the target's position, from which its local changes count.
    const targetCheckpoint = local ? local.checkpoint : (await localChanges(opts, orgs, END_OF_LOG)).checkpoint;
    return { checkpoint, targetCheckpoint, ...(removedOrgs.length ? { removedOrgs } : {}) };
  } finally {
    spool.remove();
  }
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The loop: rounds until stopped (or one with `once`). Exit code: 0 stopped, 1 refused. */
export async function sync(io: CliIo, opts: SyncOptions): Promise<number> {
  let state = readCheckpoint(opts.checkpointFile);
  io.stdout(state.checkpoint === '0' ? 'sync: no checkpoint yet, copying the organisation(s) whole' : `sync: resuming after position ${state.checkpoint}`);
  for (;;) {
    if (!followed(opts, state).length) {
      io.stdout('sync: every organisation followed was removed at the source; nothing left to follow');
      return 0;
    }
    try {
      const next = await syncRound(io, opts, state);
      if (next.checkpoint !== state.checkpoint || next.targetCheckpoint !== state.targetCheckpoint || next.removedOrgs?.length !== state.removedOrgs?.length) {
        writeCheckpoint(opts.checkpointFile, next, opts.from.url, opts.orgs);
        io.stdout(`checkpoint ${next.checkpoint}`);
        state = next;
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
