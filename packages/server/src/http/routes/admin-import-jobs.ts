/**
 * Import jobs (openapi/paths/admin/import-jobs.yaml): ImportData's request run in the background.
 * The start streams its body to the job's file (the spec's body schema is documented, not applied
 * here: the job validates the request when it runs), under ImportData's body limit.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import { invalidArgument, unavailable } from '../../domain/errors.js';
import { jsonText } from '../../domain/transfer/answer-lists.js';
import { DocumentTooLarge, type JobDocuments } from '../../domain/transfer/import/job-documents.js';
import { cancelImportJob, getImportJob, listImportJobs, startImportJob } from '../../domain/transfer/import/jobs.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { bodyTooLarge, respondError } from '../errors.js';
import { OPERATIONS } from '../generated/operations.gen.js';
import type { zGetImportJobResponse, zListImportJobsResponse } from '../generated/schemas.gen.js';
import { routesOf } from '../operation.js';
import { requestBody } from '../request-body.js';
import { importBodyLimit, mayImport, streamedJson, textStream } from './admin-transfer.js';

export const START_IMPORT_JOB_PATH = OPERATIONS.StartImportJob.path;

export interface ImportJobSettings {
  /** Where the jobs' requests are written (main.ts: DATA_DIR/import-jobs). */
  documents: JobDocuments;
  /** Called once a job is queued (the process's worker looks at once instead of at its next poll). */
  onStarted?: () => void;
}

const JSON_CONTENT = /^application\/([a-z-.]+\+)?json\s*(;|$)/i;

export function registerAdminImportJobRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps & { settings?: ImportJobSettings; maxBodyBytes: number }) {
  const { store, settings, maxBodyBytes } = deps;
  const route = routesOf(app, deps);
  const documents = (): JobDocuments => {
    if (!settings) throw unavailable('IMPORT-j0b14', 'import jobs are not enabled in this process (no folder for their documents)');
    return settings.documents;
  };

  route(
    'StartImportJob',
    async (c) => {
      const type = c.req.header('content-type');
      if (type !== undefined && !JSON_CONTENT.test(type)) throw invalidArgument('IMPORT-j0b15', `the request must be application/json (got ${type})`);
      const body = requestBody(c);
      if (!body) throw invalidArgument('IMPORT-d4t40', 'no data: give exactly one of dataOrgs, dataOrgsv1, dataOrgsGcs, dataOrgsv1Gcs');
      try {
        const started = await startImportJob(store, c.get('ctx'), body, { documents: documents(), maxBytes: maxBodyBytes });
        settings?.onStarted?.();
        return c.json(started, 200);
      } catch (error) {
        if (error instanceof DocumentTooLarge) return respondError(c, bodyTooLarge(maxBodyBytes), 413);
        throw error;
      }
    },
    // As ImportData: the caller and its permission before a byte is read, then the import's limit.
    { middleware: [mayImport, importBodyLimit(maxBodyBytes)], streamedBody: true },
  );
  route('ListImportJobs', async (c) => {
    // Where jobs cannot be started, they are not listed either: a client asking whether the target
    // runs jobs (the CLI) learns it here and uses ImportData instead.
    const list = await listImportJobs(store, c.get('ctx'), c.req.valid('json'), documents());
    // A job's answer (every imported id) is read from the store as it is sent (import/jobs.ts).
    return streamedJson<z.output<typeof zListImportJobsResponse>>(c, textStream(c, 'import jobs', jsonText(list)));
  });
  route('GetImportJob', async (c) => {
    const job = await getImportJob(store, c.get('ctx'), c.req.valid('param').id, settings?.documents);
    return streamedJson<z.output<typeof zGetImportJobResponse>>(c, textStream(c, 'import job', jsonText(job)));
  });
  route('CancelImportJob', async (c) => c.json(await cancelImportJob(store, c.get('ctx'), c.req.valid('param').id, settings?.documents), 200));
}
