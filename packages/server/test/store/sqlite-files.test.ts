/**
 * The SQLite store's files hold password hashes and the authorization server's keys: only the
 * service's user may read them, whatever the umask.
 */
import { chmodSync, existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('SQLite files on disk', () => {
  it('the data folder is created 0700 and the database, -wal and -shm files 0600', async () => {
    const previous = process.umask(0o022);
    try {
      const dir = join(mkdtempSync(join(tmpdir(), 'identity-files-')), 'data');
      const file = join(dir, 'identity.db');
      const store = await openSqliteStore(file);
      await store.transaction(async (tx) => {
        await tx.oidc.keys.insert({ id: 'k', kind: 'cookie', material: { secret: 'x' }, createdAt: new Date(), expiresAt: null });
      });
      expect(mode(dir)).toBe(0o700);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(path), path).toBe(true);
        expect(mode(path), path).toBe(0o600);
      }
      await store.close();
    } finally {
      process.umask(previous);
    }
  });

  it('files an earlier version left readable by others are made private when the store opens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-files-'));
    const file = join(dir, 'identity.db');
    await (await openSqliteStore(file)).close();
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      if (!existsSync(path)) writeFileSync(path, '');
      chmodSync(path, 0o644);
    }
    const store = await openSqliteStore(file);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path), path).toBe(0o600);
    await store.close();
  });
});
