/**
 * What every maintenance command (npm scripts: keys:rotate, secrets:reseal) shares: it runs in the
 * caller's folder with the environment's configuration and the operator's key, on the store the
 * environment names, closed when the work ends; a failure is its message on stderr and exit code 1.
 */
import { type Config, commandWorkingDirectory, loadConfig } from '../config.js';
import { loadOperatorSecretBox } from '../secrets/operator-key.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { openStore, type Store } from '../store/store.js';

export interface CommandSetting {
  config: Config;
  /** The operator's key, as the server loads it (the same ENCRYPTION_KEY[_FILE]). */
  box: SecretBox;
  /** Opens the store of DATABASE_URL for `work` and closes it after, whatever `work` does. */
  withStore<T>(work: (store: Store) => Promise<T>): Promise<T>;
}

export function runCommand(main: (setting: CommandSetting) => Promise<void>): void {
  const run = async () => {
    // npm runs workspace scripts in the package's folder: relative paths are the caller's.
    process.chdir(commandWorkingDirectory());
    const config = loadConfig();
    const { box } = loadOperatorSecretBox(config.encryptionKey);
    const withStore = async <T>(work: (store: Store) => Promise<T>): Promise<T> => {
      const store = await openStore(config.store);
      try {
        return await work(store);
      } finally {
        await store.close();
      }
    };
    await main({ config, box, withStore });
  };
  run().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
