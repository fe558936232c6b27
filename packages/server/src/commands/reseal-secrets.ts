/**
 * `npm run secrets:reseal -w @identity-service/server`: after the operator's key was rotated
 * (the new key in ENCRYPTION_KEY / ENCRYPTION_KEY_FILE, the old one in ENCRYPTION_KEYS_PREVIOUS),
 * seals every secret in the store of DATABASE_URL with the new key. Once it has run, the old key
 * can be dropped from ENCRYPTION_KEYS_PREVIOUS. Safe to run while servers are running and to run
 * again (what already uses the current key is left alone).
 */
import { runCommand } from './command.js';
import { resealSecrets } from './resealers.js';

runCommand(({ box, withStore }) =>
  withStore(async (store) => {
    const counts = await resealSecrets(store, box);
    for (const [what, count] of Object.entries(counts)) process.stdout.write(`re-sealed ${count} ${what} with encryption key ${box.keyId}\n`);
  }),
);
