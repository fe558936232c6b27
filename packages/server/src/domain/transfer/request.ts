/**
 * The export and import requests (description §2.5–§2.7, reference §4.2/§5.2): both
 * spellings of every name accepted, `timeout` in Go duration syntax with a documented default.
 */
import { z } from 'zod';
import type { GcsLocation } from '../../storage/gcs.js';
import { invalidArgument } from '../errors.js';
import { DEFAULT_TRANSFER_TIMEOUT_MS, MAX_TRANSFER_TIMEOUT_MS, parseGoDuration } from './duration.js';
import { CONFLICT_POLICIES, type ConflictPolicy } from './import/report.js';
import { normaliseKeysInPlace } from './json-names.js';
import { ProblemList } from './validate.js';

const Gcs = z.object({ bucket: z.string().min(1), path: z.string().min(1), serviceaccountJson: z.string().min(1) });

const ExportInput = z.object({
  orgIds: z.array(z.string()).optional(),
  excludedOrgIds: z.array(z.string()).optional(),
  withPasswords: z.boolean().optional(),
  withOtp: z.boolean().optional(),
  withKeys: z.boolean().optional(),
  withHistory: z.boolean().optional(),
  responseOutput: z.boolean().optional(),
  gcsOutput: Gcs.optional(),
  timeout: z.string().optional(),
  /** An event log position (changes.ts), a decimal string as ZITADEL writes 64-bit numbers; a number is taken too. */
  changedByOthers: z.boolean().optional(),
  changedSince: z.union([z.string().regex(/^\d{1,15}$/, 'a position: a decimal number'), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]).optional(),
});

const ImportInput = z.object({
  timeout: z.string().optional(),
  notifyUsers: z.boolean().optional(),
  conflictPolicy: z.enum(CONFLICT_POLICIES).optional(),
  dryRun: z.boolean().optional(),
  dataOrgs: z.unknown().optional(),
  dataOrgsv1: z.unknown().optional(),
  dataOrgsGcs: Gcs.optional(),
  dataOrgsv1Gcs: Gcs.optional(),
});

export interface ExportRequest {
  orgIds?: string[];
  excludedOrgIds: string[];
  withPasswords: boolean;
  withOtp: boolean;
  /** Include machine users' and applications' public keys (`machineKeys`, `appKeys`); §2.8 leaves them out by default. */
  withKeys: boolean;
  /** Include each exported user's, project's, user grant's and organisation's events (history.ts); left out by default, as ZITADEL's export does. */
  withHistory: boolean;
  responseOutput: boolean;
  gcsOutput?: GcsLocation;
  timeoutMs: number;
  /** Only what changed after this event log position, with the removals and the new checkpoint (changes.ts); 0: everything, with the checkpoint. */
  changedSince?: number;
  /** With changedSince: the caller's own changes do not count (a sync asking its target what changed there besides its own writes). */
  changedByOthers: boolean;
}

export type ImportSource = { kind: 'inline'; version: 1 | 2; data: unknown } | { kind: 'gcs'; version: 1 | 2; location: GcsLocation };

export interface ImportRequest {
  source: ImportSource;
  timeoutMs: number;
  /** Queue ZITADEL's mails for the imported humans (verification, init); off: an import mails no one. */
  notifyUsers: boolean;
  /** What becomes of a resource that exists already (import/report.ts); REPORT unless given. */
  conflictPolicy: ConflictPolicy;
  /** Run the import and roll it back: the answer says what it would do, nothing is written. */
  dryRun: boolean;
}

/** Only the top-level names and the small nested objects: the document itself is normalised later. */
function normaliseTop(raw: unknown): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidArgument('API-V4l1d', 'invalid body: expected object');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const camel = key.replace(/_+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
    if (camel !== key && camel in (raw as object)) continue; // lowerCamelCase wins
    out[camel] = camel.endsWith('Gcs') || camel === 'gcsOutput' ? normaliseKeysInPlace(value) : value;
  }
  return out;
}

function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const problems = new ProblemList();
    problems.addZod([], r.error, value);
    throw problems.toError();
  }
  return r.data;
}

export function parseTimeout(timeout: string | undefined): number {
  if (timeout === undefined || timeout === '') return DEFAULT_TRANSFER_TIMEOUT_MS;
  const ms = parseGoDuration(timeout);
  if (ms === undefined) {
    throw invalidArgument('IMPORT-t1m30', `invalid timeout: "${timeout}" is not a duration (use Go syntax such as "30s", "10m", "1h30m")`);
  }
  if (ms <= 0 || ms > MAX_TRANSFER_TIMEOUT_MS) {
    throw invalidArgument('IMPORT-t1m31', `invalid timeout: must be greater than 0 and at most 24h, got "${timeout}"`);
  }
  return ms;
}

export function parseExportRequest(raw: unknown): ExportRequest {
  const input = parseOrThrow(ExportInput, normaliseTop(raw));
  const timeoutMs = parseTimeout(input.timeout);
  if (!input.responseOutput && !input.gcsOutput) {
    throw invalidArgument('EXPORT-0utp0', 'no output: set responseOutput (the document as the response body) and/or gcsOutput');
  }
  return {
    orgIds: input.orgIds?.length ? input.orgIds : undefined,
    excludedOrgIds: input.excludedOrgIds ?? [],
    withPasswords: input.withPasswords ?? false,
    withOtp: input.withOtp ?? false,
    withKeys: input.withKeys ?? false,
    withHistory: input.withHistory ?? false,
    responseOutput: input.responseOutput ?? false,
    gcsOutput: input.gcsOutput,
    timeoutMs,
    changedSince: input.changedSince === undefined ? undefined : Number(input.changedSince),
    changedByOthers: input.changedByOthers ?? false,
  };
}

export function parseImportRequest(raw: unknown): ImportRequest {
  const input = parseOrThrow(ImportInput, normaliseTop(raw));
  const timeoutMs = parseTimeout(input.timeout);
  const given = (['dataOrgs', 'dataOrgsv1', 'dataOrgsGcs', 'dataOrgsv1Gcs'] as const).filter((k) => input[k] !== undefined && input[k] !== null);
  if (given.length !== 1) {
    throw invalidArgument(
      'IMPORT-d4t40',
      given.length === 0
        ? 'no data: give exactly one of dataOrgs, dataOrgsv1, dataOrgsGcs, dataOrgsv1Gcs'
        : `give exactly one of dataOrgs, dataOrgsv1, dataOrgsGcs, dataOrgsv1Gcs (got ${given.join(', ')})`,
    );
  }
  const key = given[0];
  const source: ImportSource =
    key === 'dataOrgs'
      ? { kind: 'inline', version: 2, data: input.dataOrgs }
      : key === 'dataOrgsv1'
        ? { kind: 'inline', version: 1, data: input.dataOrgsv1 }
        : { kind: 'gcs', version: key === 'dataOrgsGcs' ? 2 : 1, location: (key === 'dataOrgsGcs' ? input.dataOrgsGcs : input.dataOrgsv1Gcs)! };
  return { source, timeoutMs, notifyUsers: input.notifyUsers ?? false, conflictPolicy: input.conflictPolicy ?? 'REPORT', dryRun: input.dryRun ?? false };
}
