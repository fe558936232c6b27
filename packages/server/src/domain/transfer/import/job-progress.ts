/**
 * An import job's progress while an organisation is being imported. The job's row is written when
 * each organisation ends, but not in between: the organisation's transaction is open then, and on
 * SQLite every other write (the job's row included) waits for it — 63 s for an organisation of
 * 350,000 users, during which "users done" stood still. So the process running the job also keeps
 * its progress in a small file beside the job's document (`<id>.progress`, 0600, in the folder only
 * the processes of the job's node share), replaced whole (written aside, then renamed) at most every
 * 250 ms, and removed when the job ends. GetImportJob and ListImportJobs show it in place of the
 * row's while the job runs under the lease that wrote it; a file left by a process that died names
 * a lease the job no longer has, and is ignored.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobDocuments } from './job-documents.js';

export interface LiveJobProgress {
  /** The lease that wrote it (import_jobs.lease_owner). */
  owner: string;
  orgsDone: number;
  usersDone: number;
}

/** How often, at most, the file is replaced while users are imported. */
export const LIVE_PROGRESS_INTERVAL_MS = 250;

const fileOf = (documents: JobDocuments, jobId: string) => join(documents.dir, `${jobId}.progress`);

/** The file's progress, if there is one that reads whole. */
export async function readLiveProgress(documents: JobDocuments, jobId: string): Promise<LiveJobProgress | undefined> {
  try {
    const parsed = JSON.parse(await readFile(fileOf(documents, jobId), 'utf8')) as LiveJobProgress;
    return typeof parsed.owner === 'string' && Number.isInteger(parsed.orgsDone) && Number.isInteger(parsed.usersDone) ? parsed : undefined;
  } catch {
    return undefined; // none (the job is not running here), or replaced just now
  }
}

/**
 * The writer of one run of a job: `set` keeps the newest progress and writes it now, or when the
 * interval since the last write has passed; one write at a time. `close` waits for the write in
 * flight and removes the file.
 */
export function liveProgressWriter(documents: JobDocuments, jobId: string, owner: string) {
  const file = fileOf(documents, jobId);
  let pending: LiveJobProgress | undefined;
  let writing: Promise<void> = Promise.resolve();
  let lastWrite = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    timer = undefined;
    const next = pending;
    if (!next || closed) return;
    pending = undefined;
    lastWrite = Date.now();
    writing = writing
      .then(async () => {
        if (closed) return;
        const aside = `${file}.${process.pid}.tmp`;
        await writeFile(aside, JSON.stringify(next), { mode: 0o600 });
        await rename(aside, file);
      })
      .catch(() => undefined); // progress only: the job's row still has it at each organisation's end
  };
  return {
    set(progress: Omit<LiveJobProgress, 'owner'>): void {
      if (closed) return;
      pending = { owner, ...progress };
      if (timer) return;
      const wait = LIVE_PROGRESS_INTERVAL_MS - (Date.now() - lastWrite);
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    async close(): Promise<void> {
      closed = true;
      if (timer) clearTimeout(timer);
      await writing;
      await rm(file, { force: true });
      await rm(`${file}.${process.pid}.tmp`, { force: true });
    },
  };
}
