/**
 * Files an import writes to disk, sealed (issue 47): the request body, a Cloud Storage document,
 * the first pass's parts of each organisation (spool.ts, spooled-document.ts), and a job's request
 * waiting in DATA_DIR (job-documents.ts). They hold password hashes, TOTP secrets and identity
 * providers' client secrets; in plain text under TMPDIR they outlived every kill -9.
 *
 * One format: AES-256-GCM, the file from `offset` on being IV (12 bytes) ‖ ciphertext ‖ tag (16).
 * `aad` binds a file to its name (or its job), so one cannot stand in for another. An import's own
 * files are sealed under a key of its spool, random and held in memory only: what a crash leaves
 * is ciphertext that nothing can open. Read as a stream, plaintext is handed on before the tag at
 * the end is checked; a file that fails the check throws SealedFileError at its end (the import
 * then fails before its transaction commits). A job's document, which may wait on disk and came
 * from elsewhere, is checked whole before it is read (job-documents.ts).
 */
import { type CipherGCM, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** Mode of every file an import writes: its owner only. */
export const SPOOL_FILE_MODE = 0o600;

export const IV_BYTES = 12;
export const TAG_BYTES = 16;

/** A sealed file: where it is, and what opens it. */
export interface SealedFile {
  path: string;
  key: Uint8Array;
  /** Bound to the ciphertext (a file's name, a job's id). */
  aad: string;
  /** Where the IV begins (after a header of the file's own, if any). */
  offset: number;
}

/** A job's request queued before requests were sealed: read as it is. */
export interface PlainFile {
  path: string;
}

export type ImportFile = SealedFile | PlainFile;

export const isSealed = (file: ImportFile): file is SealedFile => 'key' in file;

/** The file's tag does not match: altered, truncated, or opened with another key or name. */
export class SealedFileError extends Error {}

/**
 * Writes a sealed file (a new one: never over an existing file or a symlink's target), 0600.
 * `head` goes before the IV, in the clear (a job document's sealed key); `offset` of the file's
 * SealedFile is its length.
 */
export class SealedWriter {
  private readonly out: WriteStream;
  private readonly cipher: CipherGCM;
  private pending: string[] = [];
  private pendingBytes = 0;
  private full = false;

  constructor(file: SealedFile, options: { head?: Buffer; highWaterMark?: number } = {}) {
    const iv = randomBytes(IV_BYTES);
    this.cipher = createCipheriv('aes-256-gcm', file.key, iv);
    this.cipher.setAAD(Buffer.from(file.aad, 'utf8'));
    this.out = createWriteStream(file.path, { flags: 'wx', mode: SPOOL_FILE_MODE, highWaterMark: options.highWaterMark ?? 1024 * 1024 });
    this.out.on('error', () => {}); // reported by the next drained() or close()
    if (options.head) this.out.write(options.head);
    this.out.write(iv);
  }

  /** Appends bytes. */
  write(data: Uint8Array): void {
    this.flushText();
    this.push(this.cipher.update(data));
  }

  /** Appends text; short texts (lines) are gathered and sealed 64 KiB at a time. */
  writeText(text: string): void {
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= TEXT_GATHER) this.flushText();
  }

  /** Resolves once what was written is handed to the disk (bounds what is held in memory). */
  async drained(): Promise<void> {
    if (this.out.errored) throw this.out.errored;
    if (!this.full) return;
    this.full = false;
    await once(this.out, 'drain');
  }

  /** Seals the end (the tag) and closes the file. */
  async close(): Promise<void> {
    if (this.out.errored) throw this.out.errored;
    this.flushText();
    this.push(this.cipher.final());
    this.out.end(this.cipher.getAuthTag());
    if (!this.out.writableFinished) await once(this.out, 'finish');
  }

  /** Left unfinished (an error): the file is closed as it is. */
  destroy(): void {
    this.out.destroy();
  }

  get finished(): boolean {
    return this.out.writableFinished;
  }

  private flushText(): void {
    if (!this.pending.length) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    this.push(this.cipher.update(text, 'utf8'));
  }

  private push(bytes: Buffer): void {
    if (bytes.length && !this.out.write(bytes)) this.full = true;
  }
}

/** Characters of text gathered before they are sealed and written. */
const TEXT_GATHER = 64 * 1024;

/**
 * The plaintext of `file`, `chunkBytes` at a time. For a sealed file the tag is checked after the
 * last chunk: a file that fails it throws SealedFileError there.
 */
export async function* openSealed(file: ImportFile, chunkBytes = 256 * 1024): AsyncGenerator<Buffer> {
  if (!isSealed(file)) {
    for await (const chunk of createReadStream(file.path, { highWaterMark: chunkBytes })) yield chunk as Buffer;
    return;
  }
  const { iv, tag, size } = await readFrame(file);
  const decipher = createDecipheriv('aes-256-gcm', file.key, iv);
  decipher.setAAD(Buffer.from(file.aad, 'utf8'));
  decipher.setAuthTag(tag);
  const start = file.offset + IV_BYTES;
  const end = size - TAG_BYTES; // exclusive
  if (end > start) {
    for await (const chunk of createReadStream(file.path, { start, end: end - 1, highWaterMark: chunkBytes })) {
      const plain = decipher.update(chunk as Buffer);
      if (plain.length) yield plain;
    }
  }
  try {
    decipher.final();
  } catch {
    throw new SealedFileError(`${file.path} does not open: it was altered or truncated, or belongs elsewhere`);
  }
}

/** The whole plaintext of a (small) file. */
export async function readSealed(file: ImportFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of openSealed(file)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Checks a sealed file whole, keeping nothing of it. */
export async function verifySealed(file: SealedFile): Promise<void> {
  for await (const _ of openSealed(file, 1024 * 1024));
}

/**
 * A piece of a file sealed on its own (the answer's records, answer-lists.ts): IV ‖ ciphertext ‖
 * tag, `aad` bound (its place in the file), opened by openPiece.
 */
export function sealPiece(key: Uint8Array, aad: string, text: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  return Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
}

export function openPiece(key: Uint8Array, aad: string, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedFileError(`a sealed piece (${aad}) does not open: it was altered`);
  }
}

/** Bytes of plaintext in a file of `size` bytes. */
export const plainBytes = (file: ImportFile, size: number) => (isSealed(file) ? Math.max(0, size - file.offset - IV_BYTES - TAG_BYTES) : size);

async function readFrame(file: SealedFile): Promise<{ iv: Buffer; tag: Buffer; size: number }> {
  const handle = await open(file.path, 'r');
  try {
    const { size } = await handle.stat();
    if (size < file.offset + IV_BYTES + TAG_BYTES) throw new SealedFileError(`${file.path} does not open: it is truncated`);
    const iv = Buffer.alloc(IV_BYTES);
    await handle.read(iv, 0, IV_BYTES, file.offset);
    const tag = Buffer.alloc(TAG_BYTES);
    await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
    return { iv, tag, size };
  } finally {
    await handle.close();
  }
}
