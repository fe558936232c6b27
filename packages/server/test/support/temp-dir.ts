/**
 * Temporary folders that are removed when the test file is done: each package's vitest config runs
 * test/support/remove-temp-dirs.ts after every file, which calls removeTempDirs. (A clean-up this
 * module registered on import ran only after the first file of each worker: the server's shared
 * project imports support modules once per worker.) Whatever a file still leaves goes with the run's
 * temporary root (global-temp-root.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made so far. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
