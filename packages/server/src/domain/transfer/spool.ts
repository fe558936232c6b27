/**
 * The private folder an import keeps its document in while it runs (ARCHITECTURE.md, "Imports in
 * bounded memory"): the request body or the Cloud Storage object is written to a file as it
 * arrives, counted against a limit, and read from there as a stream — twice, once to validate and
 * once to import — so the document is never held in memory whole.
 *
 * The folder is made by mkdtemp (mode 0700) and every file in it is created 0600: it holds password
 * hashes and secrets. It lives under the system's temporary folder (TMPDIR) unless told otherwise,
 * and `remove()` deletes it with everything in it.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

/** Mode of every file an import writes: its owner only. */
export const SPOOL_FILE_MODE = 0o600;

export interface Spool {
  /** The folder (0700): files named by the caller go in it. */
  readonly dir: string;
  /** A path in the folder. */
  file(name: string): string;
  /** Deletes the folder and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

export async function createSpool(parent: string = tmpdir()): Promise<Spool> {
  const dir = await mkdtemp(join(parent, 'identity-import-'));
  return {
    dir,
    file: (name) => join(dir, name),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Writes `source` to a new file at `path` (created 0600, never over an existing one), counting
 * bytes; past `maxBytes` it stops reading and throws `tooLarge()`. Resolves with the size.
 */
export async function spoolTo(path: string, source: AsyncIterable<Uint8Array>, maxBytes: number, tooLarge: () => Error): Promise<number> {
  const out = createWriteStream(path, { flags: 'wx', mode: SPOOL_FILE_MODE });
  let bytes = 0;
  try {
    for await (const chunk of source) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge();
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    return bytes;
  } finally {
    if (!out.writableFinished) out.destroy();
  }
}

/** Appends lines to a file (created 0600), waiting when the disk falls behind. */
export class LineWriter {
  private readonly out;
  private pending = false;

  constructor(path: string) {
    // 1 MiB of lines may wait for the disk before the reader pauses for it.
    this.out = createWriteStream(path, { flags: 'wx', mode: SPOOL_FILE_MODE, highWaterMark: 1024 * 1024 });
    this.out.on('error', () => {}); // reported by the next drain() or close()
  }

  write(line: string): void {
    if (!this.out.write(line + '\n')) this.pending = true;
  }

  /** Resolves once the buffered lines are handed to the disk (bounds what is held in memory). */
  async drain(): Promise<void> {
    if (this.out.errored) throw this.out.errored;
    if (!this.pending) return;
    this.pending = false;
    await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    if (this.out.errored) throw this.out.errored;
    this.out.end();
    if (!this.out.writableFinished) await once(this.out, 'finish');
  }
}
