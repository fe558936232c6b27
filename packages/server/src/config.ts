/**
 * The configuration, read once from the environment and validated; a bad value stops the
 * start with a message naming the variable. No other module reads process.env.
 */
import { z } from 'zod';
import { LOG_LEVELS } from './http/log.js';
import { parseDatabaseUrl, type StoreLocation } from './store/store.js';

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  ADMIN_PAT_FILE: z.string().min(1).default('./data/admin.pat'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  EXTERNAL_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Largest request body in bytes for ordinary calls. */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
});

export interface Config {
  port: number;
  host: string;
  store: StoreLocation;
  adminPatFile: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Public base URL (issuer, links); defaults to http://localhost:<port>. */
  externalUrl: string;
  maxBodyBytes: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    store: parseDatabaseUrl(e.DATABASE_URL),
    adminPatFile: e.ADMIN_PAT_FILE,
    logLevel: e.LOG_LEVEL,
    externalUrl: (e.EXTERNAL_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    maxBodyBytes: e.MAX_BODY_BYTES,
  };
}
