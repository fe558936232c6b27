/**
 * Where import jobs keep their requests until they have run: one private file per job (mode 0600,
 * in a folder of mode 0700) under the instance's DATA_DIR, written as the request arrives and
 * never held whole in memory. A file rather than a database column: documents run to hundreds of
 * MiB (a column would be read back whole, double the database's writes and bloat SQLite's file and
 * PostgreSQL's WAL), and the import reads a file on disk as a stream. The folder has a `node` id
 * (a random id written once beside the files): a job names the node that holds its file, and only
 * processes that share the folder (the same DATA_DIR) take it.
 *
 * A request holds secrets (plain passwords, identity providers' client secrets, password hashes)
 * and may wait on disk for a while, so it is encrypted at rest like every other secret: AES-256-GCM
 * under a key of its own (sealed-file.ts), that key sealed by the operator's SecretBox
 * (secrets/secret-box.ts) and written at the head of the file. The job's id is bound as associated
 * data: one job's file cannot stand in for another's. When the job runs, the file is checked whole
 * (its tag) and then read by the import as it is, sealed: its plaintext is never on disk.
 *
 * File: "isjd1\n" <sealed data key> "\n" <12-byte IV> <ciphertext> <16-byte tag>.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { boundHeapGrowth } from '../../../runtime/heap-growth.js';
import type { SecretBox } from '../../../secrets/secret-box.js';
import { failedPrecondition } from '../../errors.js';
import { type ImportFile, IV_BYTES, type SealedFile, SealedFileError, SealedWriter, TAG_BYTES, verifySealed } from '../sealed-file.js';

export interface JobDocuments {
  /** The folder of the files. */
  dir: string;
  /** The folder's id, stored with each job. */
  node: string;
  /** Seals each file's key: the operator's key, which every process sharing the folder has. */
  secrets: SecretBox;
}

const MAGIC = 'isjd1\n';
const KEY_PURPOSE = 'import-job-document';

const NODE_FILE = 'node-id';

/** The folder under `dataDir` (created on first use, 0700) and its node id (made on first use). */
export function jobDocuments(dataDir: string, secrets: SecretBox): JobDocuments {
  const dir = join(dataDir, 'import-jobs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, NODE_FILE);
  try {
    writeFileSync(file, `${randomBytes(12).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Made by an earlier start or another process of this folder: theirs is the id.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { dir, node: readFileSync(file, 'utf8').trim(), secrets };
}

/** The body was longer than allowed; nothing is kept. */
export class DocumentTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the request is larger than ${maxBytes} bytes`);
  }
}

/**
 * Writes `body`, encrypted, to the job's new file (never an existing one) and returns the body's
 * length; beyond `maxBytes` the file is removed and DocumentTooLarge thrown, as is any failure of
 * the stream.
 */
export async function writeJobDocument(place: JobDocuments, jobId: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ file: string; bytes: number }> {
  const file = `${jobId}.json.sealed`;
  const path = join(place.dir, file);
  const dataKey = randomBytes(32);
  const head = Buffer.from(`${MAGIC}${place.secrets.seal(dataKey, KEY_PURPOSE)}\n`);
  const out = new SealedWriter({ path, key: dataKey, aad: jobId, offset: head.length }, { head });
  let bytes = 0;
  // Hundreds of MiB pass through as buffers: bounded like the import's own reading (runtime/heap-growth.ts).
  const releaseHeap = boundHeapGrowth();
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw new DocumentTooLarge(maxBytes);
      out.write(chunk);
      await out.drained();
    }
    await out.close();
  } catch (error) {
    out.destroy();
    rmSync(path, { force: true });
    throw error;
  } finally {
    releaseHeap();
  }
  return { file, bytes };
}

/** The job's file does not open (altered, truncated, of another job, or sealed with a key this process lacks): the job fails with this. */
const unopenable = (why: string) => failedPrecondition('IMPORT-s3a1d', `the job's document does not open: ${why}`);

/**
 * The job's file as the import reads it (sealed, sealed-file.ts), once its key has opened and its
 * tag is checked over the whole file: only a whole, unaltered request of this job is used, else
 * the job's error is thrown. A job queued before requests were sealed (a `.json` file) is read as it is.
 */
export async function openJobDocument(place: JobDocuments, file: string, jobId: string): Promise<ImportFile> {
  const path = join(place.dir, file);
  if (!file.endsWith('.sealed')) return { path };
  const sealed: SealedFile = { path, aad: jobId, ...(await readHead(path, place.secrets)) };
  try {
    await verifySealed(sealed);
  } catch (error) {
    throw unopenable(error instanceof SealedFileError ? 'it was altered, or belongs to another job' : (error as Error).message);
  }
  return sealed;
}

/** The file's data key (opened) and where its IV begins. */
async function readHead(path: string, secrets: SecretBox): Promise<{ key: Buffer; offset: number }> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    // The sealed key is a short line (about 100 characters): 1 KiB holds the whole header.
    const head = Buffer.alloc(Math.min(1024, size));
    await handle.read(head, 0, head.length, 0);
    const end = head.indexOf(0x0a, MAGIC.length);
    if (!head.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC)) || end < 0 || size < end + 1 + IV_BYTES + TAG_BYTES) {
      throw unopenable('it is not a sealed request (truncated?)');
    }
    try {
      return { key: secrets.open(head.subarray(MAGIC.length, end).toString('utf8'), KEY_PURPOSE), offset: end + 1 };
    } catch (error) {
      throw unopenable((error as Error).message);
    }
  } finally {
    await handle.close();
  }
}

export function removeJobDocument(place: JobDocuments, file: string | null | undefined): void {
  if (file) rmSync(join(place.dir, file), { force: true });
}
