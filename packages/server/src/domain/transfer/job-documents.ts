/**
 * Where import jobs keep their requests until they have run: one private file per job (mode 0600,
 * in a folder of mode 0700) under the instance's DATA_DIR, written as the request arrives and
 * never held whole in memory. A file rather than a database column: documents run to hundreds of
 * MiB (a column would be read back whole, double the database's writes and bloat SQLite's file and
 * PostgreSQL's WAL), and the import reads a file on disk as a stream. The folder has a `node` id
 * (a random id written once beside the files): a job names the node that holds its file, and only
 * processes that share the folder (the same DATA_DIR) take it.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface JobDocuments {
  /** The folder of the files. */
  dir: string;
  /** The folder's id, stored with each job. */
  node: string;
}

const NODE_FILE = 'node-id';

/** The folder under `dataDir` (created on first use, 0700) and its node id (made on first use). */
export function jobDocuments(dataDir: string): JobDocuments {
  const dir = join(dataDir, 'import-jobs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, NODE_FILE);
  try {
    writeFileSync(file, `${randomBytes(12).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Made by an earlier start or another process of this folder: theirs is the id.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { dir, node: readFileSync(file, 'utf8').trim() };
}

/** The body was longer than allowed; nothing is kept. */
export class DocumentTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the request is larger than ${maxBytes} bytes`);
  }
}

/**
 * Writes `body` to the job's new file (never an existing one) and returns its length; beyond
 * `maxBytes` the file is removed and DocumentTooLarge thrown, as is any failure of the stream.
 */
export async function writeJobDocument(place: JobDocuments, jobId: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ file: string; bytes: number }> {
  const file = `${jobId}.json`;
  const path = join(place.dir, file);
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? new DocumentTooLarge(maxBytes) : null, chunk);
    },
  });
  try {
    await pipeline(body, limit, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  }
  return { file, bytes };
}

/** The job's request, parsed. (The import reads it as a stream once it takes a file: issue 30.) */
/** Where a job's spooled request is (the import reads it as a stream). */
export function jobDocumentPath(place: JobDocuments, file: string): string {
  return join(place.dir, file);
}

export function removeJobDocument(place: JobDocuments, file: string | null | undefined): void {
  if (file) rmSync(join(place.dir, file), { force: true });
}
