/**
 * The only place that reads the environment and listens: configuration → store (migrated) →
 * first-start bootstrap → HTTP server, and a graceful stop on SIGTERM/SIGINT.
 */

import { startBackgroundWork } from './background/index.js';
import { ConfigError, loadConfig } from './config.js';
import { bootstrapInstance } from './domain/instance/bootstrap.js';
import { jobDocuments } from './domain/transfer/import/job-documents.js';
import { removeLeftoverSpools } from './domain/transfer/spool.js';
import { createLogger } from './log.js';
import { ensureNoAdminToken, InstanceFileError, writeAdminToken } from './runtime/instance-files.js';
import { loadOperatorSecretBox } from './secrets/operator-key.js';
import { SecretKeyError } from './secrets/secret-box.js';
import { createServer } from './server.js';
import { openSqlite, SqliteBuildError } from './store/sqlite-native.js';
import { openStore } from './store/store.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // Before anything is written (the operator key, the store): a better-sqlite3 built for another
  // Node is refused in one line saying which Node to start instead (SqliteBuildError, below).
  if (config.store.dialect === 'sqlite') openSqlite(':memory:').close();
  const logger = createLogger(config.logLevel);
  let secrets;
  try {
    const loaded = loadOperatorSecretBox(config.encryptionKey);
    secrets = loaded.box;
    if (loaded.createdFile) logger.info('created the encryption key for secrets at rest', { file: loaded.createdFile, keyId: secrets.keyId });
  } catch (error) {
    if (error instanceof SecretKeyError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const store = await openStore(config.store);
  const instanceDomain = new URL(config.externalUrl).hostname;
  // A new instance never takes another one's token file (DATA_DIR shared by mistake): refused
  // before anything is created, so the next start with its own DATA_DIR bootstraps normally.
  const instance = await bootstrapInstance(store, instanceDomain, { beforeCreate: () => ensureNoAdminToken(config.adminPatFile) });
  if (instance.created) {
    // Printed once, on the start that created it, before the file is written: should another
    // process create that file in the meantime (writeAdminToken never overwrites one), the token
    // is still not lost.
    process.stdout.write(
      `\nFirst start: created the instance administrator (IAM_OWNER).\n` + `Personal access token (shown once; also written to ${config.adminPatFile}):\n\n  ${instance.created.token}\n\n`,
    );
    writeAdminToken(config.adminPatFile, instance.created.token);
  }

  // Import jobs' requests wait in DATA_DIR/import-jobs (domain/transfer/import/job-documents.ts).
  const documents = jobDocuments(config.dataDir, secrets);
  // What imports of a process that stopped without cleaning up (kill -9) left under TMPDIR:
  // sealed files nothing can open any more (domain/transfer/spool.ts); those of running processes stay.
  const leftovers = await removeLeftoverSpools();
  if (leftovers.length) logger.info('removed the files of interrupted imports', { folders: leftovers });
  let shuttingDown = false;
  const { server } = await createServer({
    store,
    instanceId: instance.instanceId,
    logger,
    secrets,
    maxBodyBytes: config.maxBodyBytes,
    maxImportBodyBytes: config.maxImportBodyBytes,
    maxConcurrentImports: config.maxConcurrentImports,
    importJobs: { documents, onStarted: () => background.importJobs.poke() },
    onOrgRemovalStarted: () => background.orgRemovals.poke(),
    connections: config.connections,
    gcsEndpoint: config.gcsEndpoint,
    isShuttingDown: () => shuttingDown,
    issuer: config.externalUrl,
    mailDropDir: config.mailDropDir,
    lockout: { maxPasswordAttempts: config.lockoutMaxPasswordAttempts },
    registrationsPerAddressPerHour: config.registrationsPerAddressPerHour,
    signingKeyAlgorithm: config.signingKeyAlgorithm,
    // The process speaks plain HTTP; an https EXTERNAL_URL means a TLS proxy in front of it.
    trustProxy: config.externalUrl.startsWith('https:'),
  });
  // Background work (background/index.ts): the outbox's delivery, import jobs and removals of organisations, safe with several processes.
  const background = startBackgroundWork({
    store,
    secrets,
    instanceId: instance.instanceId,
    externalUrl: config.externalUrl,
    mailDropDir: config.mailDropDir,
    logger,
    importJobs: {
      documents,
      leaseMs: config.importJobLeaseMs,
      maxAttempts: config.importJobMaxAttempts,
      maxBytes: config.maxImportBodyBytes,
      gcs: config.gcsEndpoint ? { endpoint: config.gcsEndpoint } : undefined,
    },
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info('listening', { address: config.host, port, pid: process.pid, store: config.store.dialect, externalUrl: config.externalUrl });
  });

  const stop = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', { signal });
    // Stop accepting connections, let in-flight requests finish, then close the store.
    server.close(async () => {
      await background.stop();
      await store.close();
      logger.info('stopped');
      process.exit(0);
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  // The store's secrets do not open with this process's key, a file of another instance is in the
  // way, or better-sqlite3 is built for another Node than the one started: say so, without a stack.
  if (error instanceof SecretKeyError || error instanceof InstanceFileError || error instanceof SqliteBuildError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
