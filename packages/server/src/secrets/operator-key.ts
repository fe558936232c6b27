/**
 * Where the operator's encryption key comes from (read at start by main.ts through config.ts):
 * - `ENCRYPTION_KEY`: the key itself (32 bytes, base64 or hex);
 * - else `ENCRYPTION_KEY_FILE` (default `DATA_DIR/encryption.key`): a file holding it. On the first
 *   start, when that file does not exist, a random key is written there (mode 0600 in a 0700
 *   folder), so the embedded default needs no setup.
 * - `ENCRYPTION_KEYS_PREVIOUS`: earlier keys, comma-separated, still accepted for opening secrets
 *   sealed before a rotation.
 * Several processes sharing one PostgreSQL must be started with the same key.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createSecretBox, generateKeyText, parseKey, type SecretBox, SecretKeyError } from './secret-box.js';

export interface OperatorKeySource {
  key?: string;
  keyFile: string;
  previousKeys: string[];
}

export function loadOperatorSecretBox(source: OperatorKeySource): { box: SecretBox; createdFile?: string } {
  let createdFile: string | undefined;
  let keyText: string;
  let origin: string;
  if (source.key) {
    keyText = source.key;
    origin = 'ENCRYPTION_KEY';
  } else {
    origin = `ENCRYPTION_KEY_FILE (${source.keyFile})`;
    if (!existsSync(source.keyFile) && createKeyFile(source.keyFile)) createdFile = source.keyFile;
    try {
      keyText = readFileSync(source.keyFile, 'utf8');
    } catch (error) {
      throw new SecretKeyError(`${origin}: cannot read the encryption key: ${(error as Error).message}`);
    }
  }
  const current = parseKey(keyText, origin);
  const earlier = source.previousKeys.map((k, i) => parseKey(k, `ENCRYPTION_KEYS_PREVIOUS[${i}]`));
  return { box: createSecretBox(current, earlier), createdFile };
}

/**
 * Writes a new random key to `keyFile` unless another process got there first (two first starts
 * at once on one data folder): the key is written whole to a side file and linked into place,
 * which fails if the file exists, so nobody ever reads a half-written key. True when this call made it.
 */
function createKeyFile(keyFile: string): boolean {
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  const side = `${keyFile}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(side, `${generateKeyText()}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(side, keyFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(side);
  }
}
