/**
 * The configuration, read once from the environment and validated; a bad value stops the
 * start with a message naming the variable. No other module reads process.env.
 */
import { z } from 'zod';
import { DEFAULT_REGISTRATIONS_PER_ADDRESS_PER_HOUR } from './domain/login/registration.js';
import { LOG_LEVELS } from './log.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from './oidc/keys.js';
import type { OperatorKeySource } from './secrets/operator-key.js';
import { parseDatabaseUrl, type StoreLocation, UnsupportedDatabaseUrl } from './store/store.js';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './transport/http-server.js';

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * The instance's own folder: the defaults of the SQLite file, ADMIN_PAT_FILE, ENCRYPTION_KEY_FILE
   * and MAIL_DROP_DIR are in it (each variable still wins when set). Two instances need two folders.
   */
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().optional(),
  /** Where the first start writes the admin's token (DATA_DIR/admin.pat when unset). */
  ADMIN_PAT_FILE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  EXTERNAL_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Largest request body in bytes for ordinary calls. */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Largest body of POST /admin/v1/import (inline documents, spooled to disk); 512 MiB by default. */
  MAX_IMPORT_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(512 * 1024 * 1024),
  /** Import requests served at once; the next one answers 429 before its body is read. */
  MAX_CONCURRENT_IMPORTS: z.coerce.number().int().positive().default(2),
  /** How long an import job's lease lasts unrenewed: a job whose process died is taken up again this long after. */
  IMPORT_JOB_LEASE_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Runs of an import job whose process stopped before any organisation committed; the next such stop fails it (IMPORT-j0b1n). */
  IMPORT_JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(3),
  /** Connections (http-server.ts): time to send a request's headers, idle connections included. */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs),
  /** Time to send a whole request, body included. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs),
  /** Idle time allowed between two requests on one connection. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs),
  /** Open connections at most. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().positive().default(DEFAULT_CONNECTION_LIMITS.maxConnections),
  /** Open connections from one client address at most; by default 100, or HTTP_MAX_CONNECTIONS when lower. */
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().positive().optional(),
  /** A Cloud Storage emulator for export/import (e.g. http://127.0.0.1:9199); Google's API when unset. */
  STORAGE_EMULATOR_HOST: z.url({ protocol: /^https?$/ }).optional(),
  /** Failed password checks after which a user is locked (the instance lockout policy); 0 = no lockout. */
  LOCKOUT_MAX_PASSWORD_ATTEMPTS: z.coerce.number().int().min(0).default(0),
  /** Accepted self-registration forms per client address and hour, per process (domain/login/registration.ts). */
  REGISTRATIONS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().positive().default(DEFAULT_REGISTRATIONS_PER_ADDRESS_PER_HOUR),
  /** The operator's key for secrets at rest (32 bytes, base64 or hex); else read from ENCRYPTION_KEY_FILE. */
  ENCRYPTION_KEY: z.string().min(1).optional(),
  /** File holding the key (DATA_DIR/encryption.key when unset); created with a random key on the first start when missing. */
  ENCRYPTION_KEY_FILE: z.string().min(1).optional(),
  /** Earlier keys (comma-separated) still accepted for opening secrets sealed before a rotation. */
  ENCRYPTION_KEYS_PREVIOUS: z.string().optional(),
  /** Where mail goes as .eml files while no SMTP provider is active (DATA_DIR/mail when unset). */
  MAIL_DROP_DIR: z.string().min(1).optional(),
  /** The first token-signing key's algorithm (ZITADEL's web-key algorithms; RS256 when unset); later ones: `npm run keys:rotate`. */
  SIGNING_KEY_ALGORITHM: z.enum(SIGNING_ALGORITHMS).optional(),
});

export interface Config {
  port: number;
  host: string;
  /** The instance's folder (DATA_DIR), where the file defaults below are. */
  dataDir: string;
  store: StoreLocation;
  adminPatFile: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Public base URL (issuer, links); defaults to http://localhost:<port>. */
  externalUrl: string;
  maxBodyBytes: number;
  /** Largest import body (MAX_IMPORT_BODY_BYTES). */
  maxImportBodyBytes: number;
  /** Imports served at once (MAX_CONCURRENT_IMPORTS). */
  maxConcurrentImports: number;
  /** Connection timeouts and caps (HTTP_*). */
  /** Import jobs' lease (IMPORT_JOB_LEASE_MS). */
  importJobLeaseMs: number;
  /** Runs of an interrupted import job (IMPORT_JOB_MAX_ATTEMPTS). */
  importJobMaxAttempts: number;
  connections: ConnectionLimits;
  /** Cloud Storage endpoint for export/import (STORAGE_EMULATOR_HOST); Google's when unset. */
  gcsEndpoint?: string;
  /** Lockout policy: failed password checks before the user is locked; 0 = off. */
  lockoutMaxPasswordAttempts: number;
  /** Accepted self-registration forms per client address and hour (REGISTRATIONS_PER_ADDRESS_PER_HOUR). */
  registrationsPerAddressPerHour: number;
  /** Where the operator's encryption key comes from (secrets/operator-key.ts). */
  encryptionKey: OperatorKeySource;
  /** The mail-drop folder (MAIL_DROP_DIR). */
  mailDropDir: string;
  /** The first signing key's algorithm, when the store has none (SIGNING_KEY_ALGORITHM; unset: RS256). */
  signingKeyAlgorithm?: SigningAlgorithm;
}

export class ConfigError extends Error {}

/** The process's environment unless a test hands in its own: the one place that reads process.env. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // node refuses to start a server whose headers may take longer than its whole request.
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('invalid configuration:\n  HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  // More than the cap would never apply: a setting that says otherwise is a mistake.
  if (e.HTTP_MAX_CONNECTIONS_PER_ADDRESS !== undefined && e.HTTP_MAX_CONNECTIONS_PER_ADDRESS > e.HTTP_MAX_CONNECTIONS) {
    throw new ConfigError('invalid configuration:\n  HTTP_MAX_CONNECTIONS_PER_ADDRESS: must not exceed HTTP_MAX_CONNECTIONS');
  }
  // Written as `${DATA_DIR}/name` (not path.join) so the default reads ./data/…, as the README says.
  const inDataDir = (name: string) => `${e.DATA_DIR.replace(/\/+$/, '')}/${name}`;
  let store: StoreLocation;
  try {
    store = parseDatabaseUrl(e.DATABASE_URL, inDataDir('identity.db'));
  } catch (error) {
    if (error instanceof UnsupportedDatabaseUrl) throw new ConfigError(`invalid configuration:\n  DATABASE_URL: ${error.message}`);
    throw error;
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    store,
    adminPatFile: e.ADMIN_PAT_FILE ?? inDataDir('admin.pat'),
    logLevel: e.LOG_LEVEL,
    externalUrl: (e.EXTERNAL_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxImportBodyBytes: e.MAX_IMPORT_BODY_BYTES,
    maxConcurrentImports: e.MAX_CONCURRENT_IMPORTS,
    importJobLeaseMs: e.IMPORT_JOB_LEASE_MS,
    importJobMaxAttempts: e.IMPORT_JOB_MAX_ATTEMPTS,
    connections: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: e.HTTP_MAX_CONNECTIONS_PER_ADDRESS ?? Math.min(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress, e.HTTP_MAX_CONNECTIONS),
    },
    gcsEndpoint: e.STORAGE_EMULATOR_HOST,
    lockoutMaxPasswordAttempts: e.LOCKOUT_MAX_PASSWORD_ATTEMPTS,
    registrationsPerAddressPerHour: e.REGISTRATIONS_PER_ADDRESS_PER_HOUR,
    encryptionKey: {
      key: e.ENCRYPTION_KEY,
      keyFile: e.ENCRYPTION_KEY_FILE ?? inDataDir('encryption.key'),
      previousKeys: (e.ENCRYPTION_KEYS_PREVIOUS ?? '')
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    },
    mailDropDir: e.MAIL_DROP_DIR ?? inDataDir('mail'),
    signingKeyAlgorithm: e.SIGNING_KEY_ALGORITHM,
  };
}

/**
 * Where a command run through npm was started: npm runs a workspace's scripts in the package's
 * folder, so relative paths (DATA_DIR's default ./data) would otherwise name packages/server/data.
 */
export function commandWorkingDirectory(env: Record<string, string | undefined> = process.env): string {
  return env.INIT_CWD || process.cwd();
}
