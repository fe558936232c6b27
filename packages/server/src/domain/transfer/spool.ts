/**
 * The private folder an import keeps its document in while it runs (ARCHITECTURE.md, "Imports in
 * bounded memory"): the request body or the Cloud Storage object is written to a file as it
 * arrives, counted against a limit, and read from there as a stream — twice, once to validate and
 * once to import — so the document is never held in memory whole.
 *
 * The folder is made by mkdtemp (mode 0700) under the system's temporary folder (TMPDIR) unless
 * told otherwise, and every file in it is created 0600 and sealed (sealed-file.ts) under a key of
 * the spool's own, random, held in memory only: the files hold password hashes and secrets, and
 * after a crash what is left opens for no one. `remove()` deletes the folder with everything in
 * it; what a crash leaves is removed at the next start (removeLeftoverSpools): the folder names
 * its owner (host, boot, process id and start time), and only a folder whose owner is gone goes.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { boundHeapGrowth } from '../../runtime/heap-growth.js';
import { type SealedFile, SealedWriter, SPOOL_FILE_MODE } from './sealed-file.js';

export { SPOOL_FILE_MODE };

const PREFIX = 'identity-import-';
const OWNER_FILE = 'owner.json';

export interface Spool {
  /** The folder (0700): files named by the caller go in it. */
  readonly dir: string;
  /** The key its files are sealed with (memory only). */
  readonly key: Uint8Array;
  /** A file of the folder, sealed under the spool's key and bound to its name. */
  sealed(name: string): SealedFile;
  /** Runs `close` when the spool is removed, before its files go (an open file of it). */
  onRemove(close: () => void): void;
  /** Deletes the folder and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

/**
 * An import's spool: made when it starts (ImportData's body, a job's run) and removed once its
 * answer is written, so it also marks how long the import runs: the main thread's heap growth is
 * bounded for that long (runtime/heap-growth.ts).
 */
export async function createSpool(parent: string = tmpdir()): Promise<Spool> {
  const dir = await mkdtemp(join(parent, PREFIX));
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify(thisProcess()), { flag: 'wx', mode: SPOOL_FILE_MODE });
  const spool = spoolIn(dir, randomBytes(32));
  spool.onRemove(boundHeapGrowth());
  return spool;
}

/** A spool made elsewhere (another thread), from its folder and key. */
export function spoolIn(dir: string, key: Uint8Array): Spool {
  const closers: (() => void)[] = [];
  return {
    dir,
    key,
    sealed: (name) => ({ path: join(dir, name), key, aad: name, offset: 0 }),
    onRemove: (close) => void closers.push(close),
    remove: () => {
      for (const close of closers.splice(0)) close();
      return rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes `source` to a new sealed file of the spool (0600, never over an existing one), counting
 * bytes; past `maxBytes` it stops reading and throws `tooLarge()`. Resolves with the file and the
 * number of bytes.
 */
export async function spoolTo(
  spool: Spool,
  name: string,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<{ file: SealedFile; bytes: number }> {
  const file = spool.sealed(name);
  const out = new SealedWriter(file);
  let bytes = 0;
  try {
    for await (const chunk of source) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge();
      out.write(chunk);
      await out.drained();
    }
    await out.close();
    return { file, bytes };
  } finally {
    if (!out.finished) out.destroy();
  }
}

/** Appends lines to a sealed file of a spool, waiting when the disk falls behind. */
export class LineWriter {
  private readonly out: SealedWriter;

  constructor(file: SealedFile) {
    this.out = new SealedWriter(file);
  }

  write(line: string): void {
    this.out.writeText(line + '\n');
  }

  /** Resolves once the buffered lines are handed to the disk (bounds what is held in memory). */
  drain(): Promise<void> {
    return this.out.drained();
  }

  close(): Promise<void> {
    return this.out.close();
  }
}

/** Who made a spool: enough to tell, later and from another process, whether it is still running. */
interface Owner {
  host: string;
  /** The kernel's boot id (Linux): a process of an earlier boot is gone. */
  boot?: string;
  pid: number;
  /** The process's start time (Linux, in clock ticks since boot): a reused pid is another process. */
  started?: string;
}

function thisProcess(): Owner {
  return { host: hostname(), boot: bootId(), pid: process.pid, started: startTime(process.pid) };
}

const bootId = () => readOptional('/proc/sys/kernel/random/boot_id')?.trim();

/** Field 22 of /proc/<pid>/stat, after the command (which may hold spaces and parentheses). */
function startTime(pid: number): string | undefined {
  const stat = readOptional(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that made a spool may still be running. Only a process of this host can be
 * judged (another container may share the folder): it is gone when the machine has booted since,
 * or its pid is free or now another process's (another start time). Without /proc, a pid still in
 * use counts as running.
 */
function ownerMayRun(owner: Owner, self: Owner): boolean {
  if (owner.boot && self.boot && owner.boot !== self.boot) return false;
  if (owner.host !== self.host) return true;
  if (owner.started !== undefined && self.started !== undefined) return startTime(owner.pid) === owner.started;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A folder without an owner record was made by a version before owners were recorded (or is
 * being made this instant): it is removed once nothing in it has changed for longer than the
 * longest import may run (24 hours).
 */
const UNOWNED_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the spools under `parent` that a stopped process left (kill -9, a crash, a power cut):
 * only folders named as this service names them, owned by this user, not symlinks, whose owner
 * is gone. Folders of processes that may be running (another process of the instance importing
 * right now) are left. Returns the folders removed.
 */
export async function removeLeftoverSpools(parent: string = tmpdir(), now = Date.now()): Promise<string[]> {
  const self = thisProcess();
  const removed: string[] = [];
  let names: string[];
  try {
    names = (await readdir(parent)).filter((name) => name.startsWith(PREFIX));
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = join(parent, name);
    try {
      const info = await lstat(dir);
      if (!info.isDirectory() || (process.getuid && info.uid !== process.getuid())) continue;
      const owner = await readOwner(dir);
      const gone = owner ? !ownerMayRun(owner, self) : now - (await lastChange(dir, info.mtimeMs)) > UNOWNED_GRACE_MS;
      if (!gone) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Removed meanwhile by its owner, or unreadable: left as it is.
    }
  }
  return removed;
}

async function readOwner(dir: string): Promise<Owner | undefined> {
  try {
    const owner = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8')) as Owner;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** The latest change of the folder or a file in it. */
async function lastChange(dir: string, folderMtimeMs: number): Promise<number> {
  let latest = folderMtimeMs;
  for (const name of await readdir(dir)) {
    try {
      latest = Math.max(latest, (await lstat(join(dir, name))).mtimeMs);
    } catch {
      // gone meanwhile
    }
  }
  return latest;
}
