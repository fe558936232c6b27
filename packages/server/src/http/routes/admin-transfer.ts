/**
 * Export and import of organisations (description §4.4, §4.5): openapi/paths/admin/transfer.yaml.
 * The export body is streamed as it is produced; the import has its own, larger body limit.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { requirePermission } from '../../domain/context.js';
import { ConcurrencyGate, concurrencyLimit } from '../middleware/concurrency-limit.js';
import { bodyLimit } from 'hono/body-limit';
import { DomainError, GrpcCode } from '../../domain/errors.js';
import { exportData } from '../../domain/transfer/export.js';
import { importData } from '../../domain/transfer/import.js';
import type { OnTransferProgress } from '../../domain/transfer/progress.js';
import type { GcsOptions } from '../../storage/gcs.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { bodyTooLarge, respondError } from '../errors.js';
import { ErrorBody, errorResponses, SECURED } from '../schemas/common.js';
import { ExportDataRequest, ExportDataResponse, ImportDataRequest, ImportDataResponse } from '../schemas/transfer.js';

const TAG = ['Export and import'];
/** Default largest import body: 64 MiB (MAX_IMPORT_BODY_BYTES). */
export const DEFAULT_MAX_IMPORT_BODY_BYTES = 64 * 1024 * 1024;
export const IMPORT_PATH = '/admin/v1/import';

/** Default number of import requests served at once (MAX_CONCURRENT_IMPORTS). */
export const DEFAULT_MAX_CONCURRENT_IMPORTS = 2;

export interface TransferRouteDeps extends RouteDeps {
  gcs?: GcsOptions;
  maxImportBodyBytes?: number;
  /** Import requests served at once (a gate shared by the apps of one process). */
  importGate?: ConcurrencyGate;
}

/** The caller may import (`iam.write`): checked before the body is read, the domain checks it again. */
const mayImport: MiddlewareHandler<AppEnv> = async (c, next) => {
  requirePermission(c.get('ctx'), 'iam.write');
  await next();
};

/** The import's own body limit; app.ts exempts the import path from the global one. */
export function importBodyLimit(maxBytes: number) {
  return bodyLimit({ maxSize: maxBytes, onError: (c) => respondError(c, bodyTooLarge(maxBytes), 413) });
}

export function registerAdminTransferRoutes(app: OpenAPIHono<AppEnv>, { store, auth, secrets, gcs, maxImportBodyBytes, importGate }: TransferRouteDeps) {
  const importSlots = concurrencyLimit(importGate ?? new ConcurrencyGate(DEFAULT_MAX_CONCURRENT_IMPORTS), 'imports');
  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/v1/export',
      operationId: 'ExportData',
      tags: TAG,
      security: SECURED,
      middleware: [auth] as const,
      request: { body: { required: true, content: { 'application/json': { schema: ExportDataRequest } } } },
      responses: {
        200: { description: 'The document (streamed) and/or where it was written.', content: { 'application/json': { schema: ExportDataResponse } } },
        ...errorResponses(400, 401, 403, 413),
        503: { description: 'Cloud Storage could not be reached (code 14).', content: { 'application/json': { schema: ErrorBody } } },
        504: { description: 'The timeout elapsed while writing to Cloud Storage (code 4).', content: { 'application/json': { schema: ErrorBody } } },
      },
    }),
    async (c) => {
      const result = await exportData(store, c.get('ctx'), c.req.valid('json'), { gcs, secrets, onProgress: logProgress(c) });
      if (!result.body) return c.json({ gcsOutput: result.gcsOutput }, 200);
      const iterator = result.body[Symbol.asyncIterator]();
      const encoder = new TextEncoder();
      const logger = c.get('logger');
      const requestId = c.get('requestId');
      // Pull-based: the next chunk is read from the store only when the client takes the last.
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { value, done } = await iterator.next();
            if (done) controller.close();
            else controller.enqueue(encoder.encode(value));
          } catch (error) {
            // Headers are gone: the only honest signal left is an aborted, incomplete body.
            logger?.error('export aborted', { requestId, error: String(error) });
            controller.error(error);
          }
        },
        async cancel() {
          await iterator.return?.(undefined);
        },
      });
      return c.body(stream, 200, { 'content-type': 'application/json' }) as never;
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: IMPORT_PATH,
      operationId: 'ImportData',
      tags: TAG,
      security: SECURED,
      // Who calls, and whether it may import, before a byte of its (up to 64 MiB) body is read;
      // then a bounded number of bodies in memory at once (16 parallel uploads cost ~1 GB).
      middleware: [auth, mayImport, importSlots, importBodyLimit(maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES)] as const,
      request: { body: { required: true, content: { 'application/json': { schema: ImportDataRequest } } } },
      responses: {
        200: { description: 'What was imported, and what was not (already existing or unsupported).', content: { 'application/json': { schema: ImportDataResponse } } },
        ...errorResponses(400, 401, 403, 404, 413, 429),
        503: { description: 'Cloud Storage could not be reached (code 14).', content: { 'application/json': { schema: ErrorBody } } },
        504: { description: 'The timeout elapsed: the organisation in progress was rolled back (code 4).', content: { 'application/json': { schema: ErrorBody } } },
      },
    }),
    async (c) => {
      try {
        return c.json(await importData(store, c.get('ctx'), c.req.valid('json'), { gcs, secrets, maxBytes: maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES, onProgress: logProgress(c) }), 200);
      } catch (error) {
        // A stored document over the limit is the same failure as an inline body over it.
        if (error instanceof DomainError && error.id === 'GCS-t00B1g') return respondError(c, error, 413) as never;
        throw error;
      }
    },
  );
}

/** One log line per organisation exported or imported, tied to the request. */
function logProgress(c: Context<AppEnv>): OnTransferProgress {
  const logger = c.get('logger');
  const requestId = c.get('requestId');
  return (progress) => logger?.info('transfer progress', { requestId, ...progress });
}
