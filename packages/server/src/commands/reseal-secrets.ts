/**
 * `npm run secrets:reseal -w @identity-service/server`: after the operator's key was rotated
 * (the new key in ENCRYPTION_KEY / ENCRYPTION_KEY_FILE, the old one in ENCRYPTION_KEYS_PREVIOUS),
 * seals every secret in the store of DATABASE_URL with the new key. Once it has run, the old key
 * can be dropped from ENCRYPTION_KEYS_PREVIOUS. Safe to run while servers are running and to run
 * again (what already uses the current key is left alone).
 */
import { commandWorkingDirectory, loadConfig } from '../config.js';
import { loadOperatorSecretBox } from '../secrets/operator-key.js';
import { resealSecrets } from './resealers.js';
import { openStore } from '../store/store.js';

async function run() {
  // npm runs workspace scripts in the package's folder: relative paths are the caller's.
  process.chdir(commandWorkingDirectory());
  const config = loadConfig();
  const { box } = loadOperatorSecretBox(config.encryptionKey);
  const store = await openStore(config.store);
  try {
    const counts = await resealSecrets(store, box);
    for (const [what, count] of Object.entries(counts)) process.stdout.write(`re-sealed ${count} ${what} with encryption key ${box.keyId}\n`);
  } finally {
    await store.close();
  }
}

run().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
