/**
 * SQLite's write-ahead log is copied back into the database (a checkpoint) inside the COMMIT that
 * took it past 1,000 pages. After a long transaction (an import's organisation) that copy held the
 * event loop for half a second; such a commit now leaves it to a worker thread
 * (store/sqlite-checkpointer.ts). SQLite only: PostgreSQL checkpoints in its own server process.
 *
 * What a commit left to copy is read from the WAL-index in the -shm file (sqlite.org/walformat.html):
 * `mxFrame`, the log's last valid frame (offset 16 of the header), and `nBackfill`, the frames
 * already copied into the database (offset 96, the checkpoint information after the header's two
 * copies), both 32-bit in the machine's byte order.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { LONG_TRANSACTION_MS } from '../../src/store/sqlite-checkpointer.js';
import type { Repositories } from '../../src/store/store.js';

function walIndex(file: string): { mxFrame: number; nBackfill: number } {
  const shm = readFileSync(`${file}-shm`);
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
}

const ROWS = 300;

/** About 1,500 pages of the log (rows of 20 kB, in few statements): past SQLite's automatic checkpoint (1,000 pages). */
async function writeMuch(tx: Repositories, prefix: string): Promise<void> {
  for (let i = 0; i < ROWS; i++) {
    await tx.oidc.keys.insert({ id: `${prefix}${i}`, kind: 'bench', material: { secret: `${prefix}${i}`.padEnd(20_000, 'x') }, createdAt: new Date(), expiresAt: null });
  }
}

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const countKeys = (file: string) => {
  const conn = new Database(file, { readonly: true });
  try {
    return (conn.prepare("select count(*) as n from oidc_keys where kind = 'bench'").get() as { n: number }).n;
  } finally {
    conn.close();
  }
};

describe('SQLite checkpoints', () => {
  it('a long transaction commits without copying the log; a worker copies it soon after, and every row is there', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'identity-checkpoint-')), 'identity.db');
    const store = await openSqliteStore(file);
    try {
      await store.transaction(async (tx) => {
        await writeMuch(tx, 'long');
        // Kept open past the bound, as an import's organisation is.
        await new Promise((resolve) => setTimeout(resolve, LONG_TRANSACTION_MS + 50));
      });
      const afterCommit = walIndex(file);
      expect(afterCommit.mxFrame).toBeGreaterThan(1000);
      // The COMMIT returned with the log still to copy (SQLite's own checkpoint would have copied it all).
      expect(afterCommit.nBackfill).toBeLessThan(afterCommit.mxFrame);
      await until(() => {
        const now = walIndex(file);
        return now.nBackfill === now.mxFrame;
      }, 'the worker copies the log');
      expect(countKeys(file)).toBe(ROWS);

      // Writes go on afterwards as before; SQLite's own checkpoint is back for them once the
      // worker's answer has reached the writer (a moment after the log is copied).
      await new Promise((resolve) => setTimeout(resolve, 200));
      await store.transaction((tx) => writeMuch(tx, 'short'));
      const afterShort = walIndex(file);
      expect(afterShort.nBackfill).toBe(afterShort.mxFrame);
      expect(countKeys(file)).toBe(2 * ROWS);
    } finally {
      await store.close();
    }
  });

  it('a short transaction checkpoints inside its COMMIT, as SQLite always did (no worker)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'identity-checkpoint-')), 'identity.db');
    const store = await openSqliteStore(file);
    try {
      await store.transaction((tx) => writeMuch(tx, 'short'));
      const after = walIndex(file);
      expect(after.mxFrame).toBeGreaterThan(1000);
      expect(after.nBackfill).toBe(after.mxFrame);
      expect(countKeys(file)).toBe(ROWS);
    } finally {
      await store.close();
    }
  });
});
