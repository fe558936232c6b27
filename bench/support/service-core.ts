/**
 * The service's own store, instance and text write, for the bench's lower-bound servers
 * (bench/without-framework-server.ts, bench/minimal-hono-server.ts): the same modules main.ts
 * uses, opened on DATABASE_URL, the admin's token written to ADMIN_PAT_FILE as main.ts does.
 * Nothing here is a copy of the service's code.
 */
import { loadConfig } from '../../packages/server/src/config.js';
import { bootstrapInstance } from '../../packages/server/src/domain/instance/bootstrap.js';
import { writeAdminToken } from '../../packages/server/src/runtime/instance-files.js';
import { openStore, type Store } from '../../packages/server/src/store/store.js';

export interface ServiceCore {
  store: Store;
  instanceId: string;
}

export async function openServiceCore(): Promise<ServiceCore> {
  const { DATABASE_URL, ADMIN_PAT_FILE } = process.env;
  if (!DATABASE_URL || !ADMIN_PAT_FILE) throw new Error('DATABASE_URL and ADMIN_PAT_FILE are required');
  const config = loadConfig(process.env);
  const store = await openStore(config.store);
  const instance = await bootstrapInstance(store, '127.0.0.1');
  if (instance.created) writeAdminToken(config.adminPatFile, instance.created.token);
  process.on('SIGTERM', () => void store.close().finally(() => process.exit(0)));
  return { store, instanceId: instance.instanceId };
}
