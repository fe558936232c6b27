import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A file of the instance stands in the way of its start; the message says what to set. */
export class InstanceFileError extends Error {}

/**
 * Before the first start of a new instance creates anything: its token file must not exist yet.
 * One there belongs to another instance (a second one started with the first one's DATA_DIR) or to
 * an earlier store of this one, and would be overwritten with a token that no longer opens it.
 */
export function ensureNoAdminToken(path: string): void {
  if (!existsSync(path)) return;
  throw new InstanceFileError(
    `refusing to start: the store is empty, so this is the first start of a new instance, but its admin token file ${path} already exists ` +
      `(it belongs to another instance, or to an earlier store) and would be overwritten. Give this instance its own folder with DATA_DIR ` +
      `(or its own ADMIN_PAT_FILE), or remove ${path} if its instance is gone. Nothing was created.`,
  );
}

/** Writes the bootstrap admin token where only the service's user can read it; never over an existing file. */
export function writeAdminToken(path: string, token: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
}
