/**
 * `npm run keys:rotate [-- OVERLAP_HOURS [ALGORITHM]]`: adds a new token-signing key and cookie
 * secret to the store the environment names (DATABASE_URL), and lets the current ones expire after
 * OVERLAP_HOURS (24). The new key has ALGORITHM (one of SIGNING_ALGORITHMS), by default the current
 * key's. Running processes pick the new keys up within 30 s (server.ts), no restart needed.
 */
import { ConfigError } from '../config.js';
import { isSigningAlgorithm, rotateKeys, SIGNING_ALGORITHMS } from '../oidc/keys.js';
import { runCommand } from './command.js';

// New keys are sealed with the operator's key, as the server does (runCommand loads it).
runCommand(async ({ box, withStore }) => {
  const hours = Number(process.argv[2] ?? 24);
  const algorithm = process.argv[3];
  const usage = `usage: keys:rotate [overlap hours, default 24] [algorithm: ${SIGNING_ALGORITHMS.join(', ')}; default the current key's]`;
  if (!Number.isFinite(hours) || hours < 0) throw new ConfigError(usage);
  if (algorithm !== undefined && !isSigningAlgorithm(algorithm)) throw new ConfigError(`unknown algorithm ${algorithm}\n${usage}`);
  await withStore(async (store) => {
    const { kid, alg } = await rotateKeys(store, box, hours * 3600 * 1000, algorithm);
    process.stdout.write(`new signing key ${kid} (${alg}); previous keys stay published for ${hours} h. Running processes switch within 30 s.\n`);
  });
});
