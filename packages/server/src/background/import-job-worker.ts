/**
 * Runs import jobs (domain/transfer/import/jobs.ts), one at a time per process, with several
 * processes on one database. A round leases the oldest job of this node (the processes sharing
 * this DATA_DIR, where the jobs' files are) that is queued, or whose lease ran out; the lease is
 * renewed every `pollMs`, which is also when a cancel is seen. Run once: on PostgreSQL the
 * candidate is taken `for update skip locked`, and every write of the worker names its lease —
 * above all the record of each committed organisation, written in that organisation's own
 * transaction, so a worker that lost its lease (paused past it, another process took over) can
 * commit no further organisation: that transaction rolls back.
 *
 * A job found with its lease run out was interrupted (its process stopped). If no organisation
 * had committed, nothing was written and it runs again from the start (at most `maxAttempts`
 * runs, IMPORT_JOB_MAX_ATTEMPTS); otherwise it ends `failed`, listing the committed organisations,
 * each whole (the one in progress rolled back with its transaction). Running it again would report
 * every committed resource as existing; a new job with the same document does exactly that, on
 * purpose. A lease whose holder is known to be gone (a killed process of this host: lease-holders.ts)
 * is ended at once rather than waited out, so a restarted process takes its job up, and the job
 * shows the new run's phase, as soon as it looks.
 *
 * Progress: organisations done and users done are written to the job's row at each organisation's
 * end, and users done also as each batch of users is imported, into the file beside the job's
 * document (job-progress.ts): the row cannot be written while the organisation's transaction holds
 * SQLite's writer.
 */
import type { RequestContext } from '../domain/context.js';
import { DomainError, GrpcCode, permissionDenied } from '../domain/errors.js';
import { Permissions } from '../domain/permissions.js';
import { jsonText } from '../domain/transfer/answer-lists.js';
import { type ImportDataResponse, importData } from '../domain/transfer/import/import-data.js';
import { type JobDocuments, openJobDocument, removeJobDocument } from '../domain/transfer/import/job-documents.js';
import { liveProgressWriter } from '../domain/transfer/import/job-progress.js';
import type { ImportJobPhase } from '../domain/transfer/import/jobs.js';
import { createSpool, type Spool } from '../domain/transfer/spool.js';
import type { Logger } from '../log.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { GcsOptions } from '../storage/gcs.js';
import type { ImportJobRow } from '../store/repositories/import-jobs.js';
import type { Store } from '../store/store.js';
import { holderIsGone, newLeaseOwner } from './lease-holders.js';
import { WakeablePause } from './wakeable-pause.js';

export interface ImportJobWorkerOptions {
  store: Store;
  secrets: SecretBox;
  instanceId: string;
  documents: JobDocuments;
  gcs?: GcsOptions;
  /** Largest document read from Cloud Storage (MAX_IMPORT_BODY_BYTES). */
  maxBytes?: number;
  logger?: Logger;
  /** How often a queued job is looked for, and a running job's lease renewed and its cancel looked for. */
  pollMs?: number;
  /** How long a lease lasts without renewal: after a process stops, its job is taken up again this much later. */
  leaseMs?: number;
  /** Runs of a job interrupted before any organisation committed (IMPORT_JOB_MAX_ATTEMPTS); the next interruption fails it. */
  maxAttempts?: number;
}

export const DEFAULT_IMPORT_JOB_LEASE_MS = 30_000;
export const DEFAULT_IMPORT_JOB_MAX_ATTEMPTS = 3;

/** This worker no longer holds the job's lease: the job is another worker's (or ended by a cancel). */
class LeaseLost extends Error {}

type ErrorBody = { code: number; id: string; message: string };

export class ImportJobWorker {
  private running = false;
  private loop?: Promise<void>;
  private readonly pause = new WakeablePause();
  /** Stops the job in progress when the process stops. */
  private current?: AbortController;
  private stopping = false;
  /** This process's name on the leases it holds (lease-holders.ts). */
  readonly owner = newLeaseOwner();
  private readonly o: Required<Omit<ImportJobWorkerOptions, 'logger' | 'gcs' | 'maxBytes'>> & Pick<ImportJobWorkerOptions, 'logger' | 'gcs' | 'maxBytes'>;

  constructor(options: ImportJobWorkerOptions) {
    this.o = { pollMs: 1_000, leaseMs: DEFAULT_IMPORT_JOB_LEASE_MS, maxAttempts: DEFAULT_IMPORT_JOB_MAX_ATTEMPTS, ...options };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Started again after stop(): a job that fails now fails, rather than passing for one the stop interrupted.
    this.stopping = false;
    this.loop = (async () => {
      while (this.running) {
        let ran = false;
        try {
          ran = await this.runOnce();
        } catch (error) {
          this.o.logger?.error('import job round failed', { error: (error as Error).message });
        }
        if (!ran && this.running) {
          await this.pause.sleep(this.o.pollMs);
        }
      }
    })();
  }

  /** Looks for a job now (a job was just started in this process). */
  poke(): void {
    this.pause.wake();
  }

  /**
   * Stops the job in progress as an interrupted one (the organisation in progress rolls back) and
   * gives its lease up, so the next process to look takes it up at once, as it would after its
   * lease ran out had the process been killed.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    this.current?.abort();
    this.pause.wake();
    await this.loop;
  }

  /** One round: lease a job and run it to its end; false when there was none. */
  async runOnce(): Promise<boolean> {
    const now = new Date();
    const { store, documents } = this.o;
    await this.endLeasesOfGoneHolders(now);
    const job = await store.transaction((tx) => tx.importJobs.claim(documents.node, this.owner, now, new Date(now.getTime() + this.o.leaseMs)));
    if (!job) return false;
    try {
      await this.run(job);
    } catch (error) {
      if (!(error instanceof LeaseLost)) throw error;
      this.o.logger?.warn('import job taken over by another worker (its lease here ran out) or cancelled', { jobId: job.id });
    }
    return true;
  }

  /** Leases of this node's running jobs whose process is known to be gone end now: `claim` takes such a job at once. */
  private async endLeasesOfGoneHolders(now: Date): Promise<void> {
    const { store, documents, logger } = this.o;
    const gone = (await store.read.importJobs.leasedRunning(documents.node, now)).filter((job) => job.leaseOwner !== this.owner && holderIsGone(job.leaseOwner));
    for (const { id, leaseOwner } of gone) {
      if (await store.transaction((tx) => tx.importJobs.expireLease(id, leaseOwner, new Date(now.getTime() - 1)))) {
        logger?.warn('import job held by a process that is gone: taken up without waiting for its lease', { jobId: id, holder: leaseOwner });
      }
    }
  }

  private async run(job: ImportJobRow): Promise<void> {
    const { store, logger, documents } = this.o;
    const update = async (change: Partial<ImportJobRow>) => {
      if (!(await store.transaction((tx) => tx.importJobs.update(job.id, this.owner, { ...change, changedAt: new Date() })))) throw new LeaseLost();
    };
    // Users done as they go (job-progress.ts); gone before the job is seen ended.
    const live = liveProgressWriter(documents, job.id, this.owner);
    const end = async (phase: ImportJobPhase, outcome: { result?: ImportDataResponse; error?: ErrorBody }) => {
      await live.close();
      const { result, ...rest } = outcome;
      const at = new Date();
      const ended = await store.transaction(async (tx) => {
        if (!(await tx.importJobs.update(job.id, this.owner, { phase, ...rest, documentFile: null, leaseOwner: null, leaseUntil: null, finishedAt: at, changedAt: at }))) return false;
        // The answer with the end, whole or not at all, written from the spool a part at a time.
        if (result) await tx.importJobs.saveResult(job.id, jsonText(result));
        return true;
      });
      if (!ended) throw new LeaseLost();
      removeJobDocument(documents, job.documentFile);
      logger?.info('import job ended', { jobId: job.id, phase, ...(outcome.error ? { error: outcome.error.message } : {}) });
    };

    if (job.phase !== 'queued') {
      // Interrupted: its process stopped while it ran (ARCHITECTURE.md, "Import jobs").
      const committed = job.committedOrgIds;
      if (job.cancelRequested) {
        return end('cancelled', { error: { code: GrpcCode.Canceled, id: 'IMPORT-j0bc1', message: `cancelled${completed(committed)}` } });
      }
      if (committed.length > 0 || job.attempts >= this.o.maxAttempts) {
        return end('failed', {
          error: {
            code: GrpcCode.Aborted,
            id: 'IMPORT-j0b1n',
            message: `interrupted: the process running the import stopped${committed.length ? '; the organisation in progress was rolled back' : ` during each of its ${job.attempts} run(s), the most an interrupted job gets (IMPORT_JOB_MAX_ATTEMPTS)`}${completed(committed)}`,
          },
        });
      }
      logger?.warn('import job interrupted before anything was imported: running it again', { jobId: job.id, attempt: job.attempts + 1 });
    }
    await update({ phase: 'reading', attempts: job.attempts + 1, startedAt: job.startedAt ?? new Date(), orgsDone: 0, usersDone: 0, orgsTotal: null, usersTotal: null });
    logger?.info('import job started', { jobId: job.id, bytes: job.documentBytes });

    const controller = new AbortController();
    this.current = controller;
    let lost = false;
    let cancelled = false;
    // Progress is written in order, one write at a time, beside the import.
    let writes: Promise<void> = Promise.resolve();
    const later = (change: Partial<ImportJobRow>) => {
      writes = writes
        .then(() => update(change))
        .catch((error) => {
          if (error instanceof LeaseLost) {
            lost = true;
            controller.abort();
          } else logger?.warn('import job progress not recorded', { jobId: job.id, error: (error as Error).message });
        });
    };
    const heartbeat = setInterval(
      () => {
        store
          .transaction((tx) => tx.importJobs.renewLease(job.id, this.owner, new Date(Date.now() + this.o.leaseMs)))
          .then((state) => {
            if (!state) lost = true;
            else if (state.cancelRequested) cancelled = true;
            if (lost || cancelled) controller.abort();
          })
          .catch((error) => logger?.warn('import job lease not renewed', { jobId: job.id, error: (error as Error).message }));
      },
      Math.min(this.o.pollMs, this.o.leaseMs / 3),
    );

    let usersDone = 0;
    let orgsDone = 0;
    let spool: Spool | undefined;
    try {
      const ctx = await this.creatorContext(job);
      if (controller.signal.aborted) throw new DomainError(GrpcCode.Canceled, 'IMPORT-j0bc1', 'cancelled');
      // The job's request is read as a stream like ImportData's spooled body, sealed as it waits
      // (job-documents.ts, checked whole first), with a spool of the job's own for the
      // document's parts, removed when the job ends; made first, since the import's heap bound
      // holds as long as its spool exists (spool.ts), the check of the whole file included.
      spool = await createSpool();
      const request = await openJobDocument(documents, job.documentFile!, job.id);
      const result = await importData(
        store,
        ctx,
        { request, spool },
        {
          gcs: this.o.gcs,
          secrets: this.o.secrets,
          maxBytes: this.o.maxBytes,
          signal: controller.signal,
          onPhase: (phase, totals) => later({ phase, ...(totals ? { orgsTotal: totals.orgs, usersTotal: totals.users } : {}) }),
          onProgress: (progress) => {
            usersDone += progress.users ?? 0;
            orgsDone = progress.done;
            later({ orgsDone, usersDone });
            live.set({ orgsDone, usersDone });
          },
          onOrgUsersProgress: (progress) => live.set({ orgsDone, usersDone: usersDone + progress.usersDone }),
          onOrgCommit: async (tx, orgId) => {
            if (!(await tx.importJobs.addCommittedOrg(job.id, this.owner, orgId, new Date()))) throw new LeaseLost();
          },
        },
      );
      clearInterval(heartbeat);
      this.current = undefined;
      await writes;
      if (lost) throw new LeaseLost();
      await end('done', { result });
    } catch (error) {
      clearInterval(heartbeat);
      this.current = undefined;
      await writes;
      if (lost || error instanceof LeaseLost) throw new LeaseLost();
      if (this.stopping) {
        await update({ leaseUntil: new Date() });
        logger?.info('import job interrupted: the process is stopping', { jobId: job.id });
        return;
      }
      // What committed, as the job's own transactions recorded it.
      const committed = (await store.read.importJobs.get(job.id))?.committedOrgIds ?? [];
      if (cancelled) {
        return end('cancelled', { error: { code: GrpcCode.Canceled, id: 'IMPORT-j0bc1', message: `cancelled; the organisation in progress was rolled back${completed(committed)}` } });
      }
      const body: ErrorBody =
        error instanceof DomainError
          ? { code: error.code, id: error.id, message: error.message }
          : { code: GrpcCode.Internal, id: 'IMPORT-j0b50', message: `the import failed: ${(error as Error).message}${completed(committed)}` };
      if (!(error instanceof DomainError)) logger?.error('import job failed', { jobId: job.id, error: String((error as Error)?.stack ?? error) });
      await end('failed', { error: body });
    } finally {
      await live.close();
      await spool?.remove();
    }
  }

  /** The job's creator as a caller now: its permissions are those it holds when the job runs. */
  private async creatorContext(job: ImportJobRow): Promise<RequestContext> {
    const { store, instanceId } = this.o;
    const user = await store.read.users.get(job.creatorId);
    if (!user || user.state !== 'USER_STATE_ACTIVE') throw permissionDenied('IMPORT-j0b03', 'the user who started the import job is no longer active');
    const permissions = new Permissions(await store.read.members.forUserInOrg(job.creatorId, job.creatorOrgId));
    return { instanceId, caller: { userId: job.creatorId, orgId: job.creatorOrgId }, orgId: job.creatorOrgId, permissions };
  }
}

const completed = (orgIds: string[]) => (orgIds.length ? `; committed, whole: ${orgIds.join(', ')}` : '; no organisation was committed');
