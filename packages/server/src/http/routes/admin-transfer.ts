/**
 * Export and import of organisations (description §4.4, §4.5): openapi/paths/admin/transfer.yaml.
 * The export body is streamed as it is produced; the import has its own, larger body limit.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';
import type { z } from 'zod';
import { requirePermission } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { jsonText } from '../../domain/transfer/answer-lists.js';
import { exportData } from '../../domain/transfer/export/export-data.js';
import { importData } from '../../domain/transfer/import/import-data.js';
import type { OnTransferProgress } from '../../domain/transfer/progress.js';
import { createSpool, spoolTo } from '../../domain/transfer/spool.js';
import type { GcsOptions } from '../../storage/gcs.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { bodyTooLarge, respondError } from '../errors.js';
import { OPERATIONS } from '../generated/operations.gen.js';
import type { zExportDataResponse, zImportDataResponse } from '../generated/schemas.gen.js';
import { ConcurrencyGate, concurrencyLimit } from '../middleware/concurrency-limit.js';
import { routesOf } from '../operation.js';
import { requestBody } from '../request-body.js';

/**
 * Default largest import body: 512 MiB (MAX_IMPORT_BODY_BYTES). The body goes to a file as it
 * arrives and the document is read from there as a stream, so the limit bounds disk and time, not
 * memory: ~1.5 million users per request, and at most 2 × 512 MiB (plus the validated copy) on
 * disk with the default two imports at once. Larger documents go through Cloud Storage, unbounded.
 */
export const DEFAULT_MAX_IMPORT_BODY_BYTES = 512 * 1024 * 1024;
export const IMPORT_PATH = OPERATIONS.ImportData.path;

/** Default number of import requests served at once (MAX_CONCURRENT_IMPORTS). */
export const DEFAULT_MAX_CONCURRENT_IMPORTS = 2;

export interface TransferRouteDeps extends RouteDeps {
  gcs?: GcsOptions;
  maxImportBodyBytes?: number;
  /** Import requests served at once (a gate shared by the apps of one process). */
  importGate?: ConcurrencyGate;
}

/** The caller may import (`iam.write`): checked before the body is read, the domain checks it again. */
export const mayImport: MiddlewareHandler<AppEnv> = async (c, next) => {
  requirePermission(c.get('ctx'), 'iam.write');
  await next();
};

/**
 * The import's own body limit (app.ts exempts the import's paths from the global one): a body
 * that declares a larger length is refused before it is read; one streamed without a length is
 * counted by whoever writes it to disk (spoolTo, writeJobDocument), which stops at the limit.
 * Not hono's bodyLimit: without a declared length it reads the whole body into memory before
 * the route runs (the CLI streams its documents: a million users were hundreds of MiB there).
 */
export function importBodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > maxBytes) return respondError(c, bodyTooLarge(maxBytes), 413);
    await next();
  };
}

/**
 * The import's body to a private file (domain/transfer/spool.ts) as it arrives, never into memory;
 * the handler finds it as `importRequest`, and the spool is removed once the answer is made. The
 * route's own validation then sees an empty object: the document is validated by the domain as it
 * reads it from the file (spooled-document.ts), with the same rules.
 */
function spoolImportBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const spool = await createSpool();
    try {
      let request;
      try {
        ({ file: request } = await spoolTo(spool, 'request.json', requestBody(c) ?? [], maxBytes, () => bodyTooLarge(maxBytes)));
      } catch (error) {
        if (error instanceof DomainError && error.id === 'API-B0dy5') return respondError(c, error, 413);
        throw error;
      }
      c.set('importRequest', { request, spool });
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-length');
      c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: '{}', signal: c.req.raw.signal });
      await next();
    } finally {
      // Unless the answer, still being sent, reads from it (it removes the spool at its end).
      if (!c.get('importSpoolKept')) await spool.remove();
    }
  };
}

export function registerAdminTransferRoutes(app: OpenAPIHono<AppEnv>, deps: TransferRouteDeps) {
  const { store, secrets, gcs, maxImportBodyBytes, importGate } = deps;
  const route = routesOf(app, deps);
  const importSlots = concurrencyLimit(importGate ?? new ConcurrencyGate(DEFAULT_MAX_CONCURRENT_IMPORTS), 'imports');
  route('ExportData', async (c) => {
    const result = await exportData(store, c.get('ctx'), c.req.valid('json'), { gcs, secrets, onProgress: logProgress(c) });
    if (!result.body) return c.json({ gcsOutput: result.gcsOutput }, 200);
    return streamedJson<ExportDataResponse>(c, textStream(c, 'export', result.body));
  });

  route(
    'ImportData',
    async (c) => {
      const input = c.get('importRequest');
      let answer;
      try {
        answer = await importData(store, c.get('ctx'), input, { gcs, secrets, onProgress: logProgress(c) });
      } catch (error) {
        // A document over its limit (a version-1 one, or one from storage, or more than the reader
        // may hold) is the same failure as a body over it: it can never succeed as it is.
        if (error instanceof DomainError && TOO_LARGE.includes(error.id)) return respondError(c, error, 413);
        throw error;
      }
      // The answer's lists are read from the spool as the answer is written: the spool goes when it is sent.
      c.set('importSpoolKept', true);
      return streamedJson<ImportDataResponse>(
        c,
        textStream(c, 'import answer', jsonText(answer), () => input.spool.remove()),
      );
    },
    // Who calls (route adds the authentication), and whether it may import, before a byte of its
    // body is read; then a bounded number of imports at once, each body to a file as it arrives.
    { middleware: [mayImport, importSlots, importBodyLimit(maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES), spoolImportBody(maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES)] },
  );
}

type ExportDataResponse = z.output<typeof zExportDataResponse>;
type ImportDataResponse = z.output<typeof zImportDataResponse>;

/** Failures of an import that no retry mends, answered 413 (with what to do in the message). */
const TOO_LARGE = ['GCS-t00B1g', 'IMPORT-v1b1g', 'IMPORT-r34d3r'];

/**
 * A body of text pieces, pulled: the next piece is made only when the client has taken the last.
 * `end` runs once the body is sent, failed or was abandoned by the client.
 */
export function textStream(c: Context<AppEnv>, what: string, pieces: AsyncIterable<string>, end?: () => Promise<void>): ReadableStream<Uint8Array> {
  const iterator = pieces[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const logger = c.get('logger');
  const requestId = c.get('requestId');
  let ended = false;
  const finish = async () => {
    if (ended) return;
    ended = true;
    await end?.().catch((error) => logger?.warn(`${what}: clean-up failed`, { requestId, error: String(error) }));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) {
          // What the body read is cleaned up before the client sees its end.
          await finish();
          controller.close();
        } else controller.enqueue(encoder.encode(value));
      } catch (error) {
        // Headers are gone: the only honest signal left is an aborted, incomplete body.
        logger?.error(`${what} aborted`, { requestId, error: String(error) });
        controller.error(error);
        await finish();
      }
    },
    async cancel() {
      await iterator.return?.(undefined);
      await finish();
    },
  });
}

/**
 * A JSON document of the operation's 200 shape, streamed as it is produced: the answer `c.json`
 * would give, which `c.body` cannot say (hence the assertion).
 */
export function streamedJson<T>(c: Context<AppEnv>, stream: ReadableStream<Uint8Array>) {
  return c.body(stream, 200, { 'content-type': 'application/json' }) as Response as Response & TypedResponse<JSONParsed<T>, 200, 'json'>;
}

/** One log line per organisation exported or imported, tied to the request. */
function logProgress(c: Context<AppEnv>): OnTransferProgress {
  const logger = c.get('logger');
  const requestId = c.get('requestId');
  return (progress) => logger?.info('transfer progress', { requestId, ...progress });
}
