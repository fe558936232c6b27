/**
 * Import jobs: ImportData run in the background, watched and cancelled through the API
 * (openapi/paths/admin/import-jobs.yaml). Starting one spools the request to a private file
 * (job-documents.ts) and answers with the job's id as soon as the body has arrived; a worker
 * (background/import-job-worker.ts) runs the same importData with the job's phase and progress
 * written as it goes, and its end — ImportData's answer, or why it failed — kept on the job.
 * Starting and cancelling are the caller's changes and append events; the worker's updates are
 * working state, like the outbox's, and the import appends its own events.
 */
import type { ImportJobRow } from '../../../store/repositories/import-jobs.js';
import { RUNNING_IMPORT_PHASES } from '../../../store/repositories/import-jobs.js';
import type { Store } from '../../../store/store.js';
import { type RequestContext, requirePermission } from '../../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../../details.js';
import { failedPrecondition, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { type ListQueryInput, listDetails, toPage } from '../../list.js';
import { RawJson } from '../answer-lists.js';
import { type JobDocuments, removeJobDocument, writeJobDocument } from './job-documents.js';
import { type LiveJobProgress, readLiveProgress } from './job-progress.js';

export const IMPORT_JOB_AGGREGATE = 'import_job';
export const IMPORT_JOB_ADDED = 'import.job.added';
/** A queued job, cancelled before it began. */
export const IMPORT_JOB_CANCELLED = 'import.job.cancelled';
/** A running job asked to stop: its worker stops at its next step, rolling back the organisation in progress. */
export const IMPORT_JOB_CANCEL_REQUESTED = 'import.job.cancel.requested';

export type ImportJobPhase = 'queued' | 'reading' | 'validating' | 'importing' | 'done' | 'failed' | 'cancelled';
export const ENDED_IMPORT_PHASES: readonly ImportJobPhase[] = ['done', 'failed', 'cancelled'];

/** The API's ImportJob. */
export interface ImportJobView {
  id: string;
  phase: ImportJobPhase;
  cancelRequested: boolean;
  progress: { orgsDone: number; orgsTotal?: number; usersDone: number; usersTotal?: number };
  committedOrgIds: string[];
  documentBytes: string;
  creatorId: string;
  attempts: number;
  /** ImportData's answer, read from where the job keeps it as the view is written (import_job_results). */
  result?: RawJson;
  error?: { code: number; id: string; message: string };
  startDate?: string;
  endDate?: string;
  details: ObjectDetails;
}

/** `live`: the progress the running job keeps beside its document (job-progress.ts), used while the lease that wrote it holds the job. */
export function importJobView(store: Store, row: ImportJobRow, instanceId: string, live?: LiveJobProgress): ImportJobView {
  const current = live && live.owner === row.leaseOwner && (RUNNING_IMPORT_PHASES as readonly string[]).includes(row.phase) ? live : row;
  return {
    id: row.id,
    phase: row.phase as ImportJobPhase,
    cancelRequested: row.cancelRequested,
    progress: {
      orgsDone: current.orgsDone,
      ...(row.orgsTotal !== null ? { orgsTotal: row.orgsTotal } : {}),
      usersDone: current.usersDone,
      ...(row.usersTotal !== null ? { usersTotal: row.usersTotal } : {}),
    },
    committedOrgIds: row.committedOrgIds,
    documentBytes: String(row.documentBytes),
    creatorId: row.creatorId,
    attempts: row.attempts,
    // Written by the worker from importData's answer, with the job's end.
    ...(row.phase === 'done' ? { result: new RawJson(() => store.read.importJobs.resultText(row.id)) } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...(row.startedAt ? { startDate: row.startedAt.toISOString() } : {}),
    ...(row.finishedAt ? { endDate: row.finishedAt.toISOString() } : {}),
    details: viewDetails(row, instanceId),
  };
}

export interface StartImportJobOptions {
  documents: JobDocuments;
  /** The largest request taken (MAX_IMPORT_BODY_BYTES, as ImportData's). */
  maxBytes: number;
}

/**
 * StartImportJob: the request (ImportData's body, unread until the job runs) spooled to the job's
 * file, then the job queued. Validation is the job's: its errors end it as failed, with ImportData's
 * error (400 naming the path) as its `error`.
 */
export async function startImportJob(store: Store, ctx: RequestContext, body: AsyncIterable<Uint8Array>, options: StartImportJobOptions): Promise<{ id: string; details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  const id = newId();
  const { file, bytes } = await writeJobDocument(options.documents, id, body, options.maxBytes);
  try {
    const event = await store.transaction(async (tx) => {
      const appended = await tx.events.append({
        aggregateType: IMPORT_JOB_AGGREGATE,
        aggregateId: id,
        type: IMPORT_JOB_ADDED,
        payload: { documentBytes: bytes },
        creator: ctx.caller.userId,
        resourceOwner: ctx.instanceId,
      });
      await tx.importJobs.insert({
        id,
        creatorId: ctx.caller.userId,
        creatorOrgId: ctx.caller.orgId,
        phase: 'queued',
        cancelRequested: false,
        node: options.documents.node,
        documentFile: file,
        documentBytes: bytes,
        orgsDone: 0,
        orgsTotal: null,
        usersDone: 0,
        usersTotal: null,
        committedOrgIds: [],
        error: null,
        attempts: 0,
        leaseOwner: null,
        leaseUntil: null,
        sequence: appended.sequence,
        createdAt: appended.createdAt,
        changedAt: appended.createdAt,
        startedAt: null,
        finishedAt: null,
      });
      return appended;
    });
    return { id, details: addedDetails(event) };
  } catch (error) {
    removeJobDocument(options.documents, file);
    throw error;
  }
}

async function existingJob(store: Store, id: string): Promise<ImportJobRow> {
  const row = await store.read.importJobs.get(id);
  if (!row) throw notFound('IMPORT-j0b04', `import job ${id} not found`);
  return row;
}

/** The job as the API shows it: with the progress its run keeps beside its document, when it runs on this node (`documents`). */
async function viewOf(store: Store, row: ImportJobRow, instanceId: string, documents?: JobDocuments): Promise<ImportJobView> {
  const running = documents && row.node === documents.node && (RUNNING_IMPORT_PHASES as readonly string[]).includes(row.phase);
  return importJobView(store, row, instanceId, running ? await readLiveProgress(documents, row.id) : undefined);
}

export async function getImportJob(store: Store, ctx: RequestContext, id: string, documents?: JobDocuments): Promise<{ job: ImportJobView }> {
  requirePermission(ctx, 'iam.write');
  return { job: await viewOf(store, await existingJob(store, id), ctx.instanceId, documents) };
}

/** ListImportJobs: oldest first (or newest with `asc: false`). */
export async function listImportJobs(store: Store, ctx: RequestContext, input: { query?: ListQueryInput }, documents?: JobDocuments) {
  requirePermission(ctx, 'iam.write');
  const at = new Date();
  const { total, rows } = await store.read.importJobs.search(toPage(input.query));
  return { details: listDetails(total, at), result: await Promise.all(rows.map((row) => viewOf(store, row, ctx.instanceId, documents))) };
}

/**
 * CancelImportJob: a queued job ends at once (its file removed); a running one is asked to stop,
 * which its worker sees within a second and ends it as `cancelled` once the organisation in
 * progress has rolled back (the committed ones stay, whole, and are listed). Asking again is a
 * no-op; a job that has ended cannot be cancelled (400).
 */
export async function cancelImportJob(store: Store, ctx: RequestContext, id: string, documents?: JobDocuments): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.write');
  const outcome = await store.transaction(
    async (tx) => {
      const row = await tx.importJobs.get(id);
      if (!row) throw notFound('IMPORT-j0b04', `import job ${id} not found`);
      if (ENDED_IMPORT_PHASES.includes(row.phase as ImportJobPhase)) throw failedPrecondition('IMPORT-j0b09', `import job ${id} has ended (${row.phase}): there is nothing to cancel`);
      if (row.cancelRequested) return { details: viewDetails(row, ctx.instanceId) };
      const queued = row.phase === 'queued';
      const event = await tx.events.append({
        aggregateType: IMPORT_JOB_AGGREGATE,
        aggregateId: id,
        type: queued ? IMPORT_JOB_CANCELLED : IMPORT_JOB_CANCEL_REQUESTED,
        payload: {},
        creator: ctx.caller.userId,
        resourceOwner: ctx.instanceId,
      });
      const stamp = { sequence: event.sequence, changedAt: event.createdAt };
      // A worker may lease the queued job meanwhile (the lease does not change its phase; its first
      // write, `reading`, is refused once the phase has ended): only a job still queued is ended here.
      const ended =
        queued &&
        (await tx.importJobs.changeIfPhase(id, 'queued', {
          ...stamp,
          phase: 'cancelled',
          cancelRequested: true,
          finishedAt: event.createdAt,
          documentFile: null,
          error: { code: 1, id: 'IMPORT-j0bc1', message: 'cancelled before it began; nothing was imported' },
        }));
      if (!ended) await tx.importJobs.change(id, { ...stamp, cancelRequested: true });
      return { details: changedDetails(event), removeFile: ended && row.node === documents?.node ? row.documentFile : undefined };
    },
    [[IMPORT_JOB_AGGREGATE, id]],
  );
  if (outcome.removeFile && documents) removeJobDocument(documents, outcome.removeFile);
  return { details: outcome.details };
}

export { RUNNING_IMPORT_PHASES };
