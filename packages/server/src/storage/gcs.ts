/**
 * Google Cloud Storage objects for export (`gcs_output`) and import (`data_orgs_gcs`):
 * `{bucket, path, serviceaccountJson}` where serviceaccountJson is the service-account
 * credentials file, base64-encoded (reference §4.2, description §2.7).
 *
 * Every failure becomes a DomainError quickly: undecodable credentials before any request,
 * a missing object or bucket as 404, refused credentials as 403, anything else as 503; the
 * client retries at most once and each request has a timeout, so a dead endpoint cannot hang
 * an import.
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type File, Storage } from '@google-cloud/storage';
import { DomainError, GrpcCode, invalidArgument, notFound, permissionDenied } from '../domain/errors.js';

export interface GcsLocation {
  bucket: string;
  path: string;
  /** The service-account JSON credentials, base64-encoded. */
  serviceaccountJson: string;
}

export interface GcsOptions {
  /**
   * API endpoint, e.g. an emulator's `http://127.0.0.1:9199`; Google's when omitted. Note that
   * @google-cloud/storage 7 lets STORAGE_EMULATOR_HOST in the environment win over this.
   */
  endpoint?: string;
  /** Per-request timeout in ms (default 30 s). */
  requestTimeoutMs?: number;
}

interface Credentials {
  client_email?: string;
  private_key?: string;
  project_id?: string;
  [key: string]: unknown;
}

/** base64 → JSON credentials; 400 when it is not base64 of a JSON object. */
export function decodeServiceAccount(encoded: string): Credentials {
  const text = Buffer.from(encoded ?? '', 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidArgument('GCS-cr3d0', 'serviceaccountJson must be the base64-encoded service-account JSON file; it could not be decoded');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidArgument('GCS-cr3d1', 'serviceaccountJson must decode to a JSON object (the service-account credentials file)');
  }
  return parsed as Credentials;
}

function validateLocation(loc: GcsLocation): void {
  if (!loc.bucket) throw invalidArgument('GCS-bUck0', 'the bucket of the storage location is required');
  if (!loc.path) throw invalidArgument('GCS-p4th0', 'the path of the storage location is required');
}

function fileOf(loc: GcsLocation, options: GcsOptions): File {
  validateLocation(loc);
  const credentials = decodeServiceAccount(loc.serviceaccountJson);
  const storage = new Storage({
    projectId: credentials.project_id ?? 'unknown',
    credentials: credentials as never,
    ...(options.endpoint ? { apiEndpoint: options.endpoint } : {}),
    retryOptions: { autoRetry: true, maxRetries: 1, totalTimeout: Math.ceil((options.requestTimeoutMs ?? 30_000) / 1000) * 2 },
  });
  return storage.bucket(loc.bucket).file(loc.path);
}

const where = (loc: GcsLocation) => `gs://${loc.bucket}/${loc.path}`;

/** A storage client failure → the error the caller sees. */
export function gcsError(error: unknown, loc: GcsLocation): DomainError {
  if (error instanceof DomainError) return error;
  const status = Number((error as { code?: unknown })?.code);
  const detail = (error as Error)?.message ?? String(error);
  if (status === 404) return notFound('GCS-n0tF0', `${where(loc)} does not exist`);
  if (status === 401 || status === 403) return permissionDenied('GCS-d3n1d', `access to ${where(loc)} was refused: ${detail}`);
  if (status === 400) return invalidArgument('GCS-b4dRq', `the storage service rejected the request for ${where(loc)}: ${detail}`);
  return new DomainError(GrpcCode.Unavailable, 'GCS-unav1', `the storage service could not be reached for ${where(loc)}: ${detail}`);
}

/**
 * Streams an object. Fails before returning (404, 403, …) when the object cannot be read,
 * and with 413 when it is larger than `maxBytes`.
 */
export async function readGcsObject(loc: GcsLocation, options: GcsOptions & { maxBytes?: number } = {}): Promise<Readable> {
  const file = fileOf(loc, options);
  let size: number;
  try {
    const [meta] = await file.getMetadata({ timeout: options.requestTimeoutMs ?? 30_000 } as never);
    size = Number(meta.size ?? 0);
  } catch (error) {
    throw gcsError(error, loc);
  }
  if (options.maxBytes !== undefined && size > options.maxBytes) {
    throw tooLarge(loc, options.maxBytes);
  }
  const stream = file.createReadStream({ validation: false });
  let seen = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (options.maxBytes !== undefined && seen > options.maxBytes) done(tooLarge(loc, options.maxBytes));
      else done(null, chunk);
    },
  });
  stream.on('error', (error) => limit.destroy(gcsError(error, loc)));
  return stream.pipe(limit);
}

function tooLarge(loc: GcsLocation, maxBytes: number) {
  return new DomainError(GrpcCode.ResourceExhausted, 'GCS-t00B1g', `${where(loc)} is larger than the import limit of ${maxBytes} bytes`);
}

/** Reads a whole object as text (the import document must be parsed as one). */
export async function readGcsText(loc: GcsLocation, options: GcsOptions & { maxBytes?: number } = {}): Promise<string> {
  const stream = await readGcsObject(loc, options);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (error) {
    throw gcsError(error, loc);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Writes `source` as the object, in one request (`resumable: false`: no resumable session to
 * leave behind, and the only upload the emulator supports in full). Aborting `signal` destroys
 * the upload, so no object is created.
 */
export async function writeGcsObject(
  loc: GcsLocation,
  source: AsyncIterable<string | Buffer> | Iterable<string | Buffer>,
  options: GcsOptions & { signal?: AbortSignal; contentType?: string } = {},
): Promise<{ bytes: number }> {
  const file = fileOf(loc, options);
  let bytes = 0;
  const counted = Readable.from(
    (async function* () {
      for await (const chunk of source) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        bytes += buf.length;
        yield buf;
      }
    })(),
  );
  const upload = file.createWriteStream({
    resumable: false,
    contentType: options.contentType ?? 'application/json',
    validation: false,
    timeout: options.requestTimeoutMs ?? 30_000,
  } as never);
  try {
    await pipeline(counted, upload, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if ((error as Error)?.name === 'AbortError') throw error;
    throw gcsError(error, loc);
  }
  return { bytes };
}
