/**
 * `npm run keys:rotate [-- OVERLAP_HOURS [ALGORITHM]]`: adds a new token-signing key and cookie
 * secret to the store the environment names (DATABASE_URL), and lets the current ones expire after
 * OVERLAP_HOURS (24). The new key has ALGORITHM (one of SIGNING_ALGORITHMS), by default the current
 * key's. Running processes pick the new keys up within 30 s (server.ts), no restart needed.
 */
import { commandWorkingDirectory, ConfigError, loadConfig } from '../config.js';
import { isSigningAlgorithm, rotateKeys, SIGNING_ALGORITHMS } from '../oidc/keys.js';
import { loadOperatorSecretBox } from '../secrets/operator-key.js';
import { openStore } from '../store/store.js';

async function run() {
  // npm runs workspace scripts in the package's folder: relative paths are the caller's.
  process.chdir(commandWorkingDirectory());
  const config = loadConfig();
  // New keys are sealed with the operator's key, as the server does (the same ENCRYPTION_KEY[_FILE]).
  const { box } = loadOperatorSecretBox(config.encryptionKey);
  const hours = Number(process.argv[2] ?? 24);
  const algorithm = process.argv[3];
  const usage = `usage: keys:rotate [overlap hours, default 24] [algorithm: ${SIGNING_ALGORITHMS.join(', ')}; default the current key's]`;
  if (!Number.isFinite(hours) || hours < 0) throw new ConfigError(usage);
  if (algorithm !== undefined && !isSigningAlgorithm(algorithm)) throw new ConfigError(`unknown algorithm ${algorithm}\n${usage}`);
  const store = await openStore(config.store);
  try {
    const { kid, alg } = await rotateKeys(store, box, hours * 3600 * 1000, algorithm);
    process.stdout.write(`new signing key ${kid} (${alg}); previous keys stay published for ${hours} h. Running processes switch within 30 s.\n`);
  } finally {
    await store.close();
  }
}

run().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
