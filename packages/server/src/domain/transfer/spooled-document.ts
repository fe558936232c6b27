/**
 * An import document validated whole, held on disk rather than in memory (ARCHITECTURE.md,
 * "Imports in bounded memory").
 *
 * Pass 1 (spoolDocument) reads the document as a stream (document-stream.ts) and validates each
 * part as it comes, with the same rules and problem paths as validate.ts; each organisation's parts
 * go, normalised, to two files of the spool: its users (`org-<i>.users.jsonl`, one per line) and
 * everything else (`org-<i>.jsonl`). What stays in memory is each organisation's skeleton (its id,
 * name and domains: what its locks need, orgImportLocks), the number of its users and its outline
 * (import/order.ts: 32-bit keys of its users' ids and of the ids its grants and memberships name,
 * what the import's order needs), never a user's id or data. At the end the order is planned here.
 *
 * Pass 2 (readSpooledParts, readSpooledUsers) reads one organisation back: its parts whole, its
 * users in batches. The lines are validated again as they are read (they passed once; this gives
 * the typed values). Both passes run in the import's reader thread (document-reader.ts), which
 * hands the server's thread an OrgSource per organisation.
 */

import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { DomainError, GrpcCode } from '../errors.js';
import { formatPath } from '../zod-issues.js';
import type { DataOrg, DataOrgs } from './document.js';
import { readDocumentStream } from './document-stream.js';
import { type ImportPlan, OutlineBuilder, outlineOf, planImport, REFERENCE_LISTS } from './import/order.js';
import { normaliseKeysInPlace } from './json-names.js';
import { type ImportFile, openSealed, readSealed, type SealedFile } from './sealed-file.js';
import { LineWriter, type Spool } from './spool.js';
import { checkStorableText, isOrgListField, type OrgListField, ProblemList, validateOrgField, validateOrgItem } from './validate.js';

/**
 * Users of one organisation imported per batch (import-org.ts, `userBatches`): bounds the memory of
 * its largest list. Small on purpose: what a batch allocates on the server's thread (rows, the
 * statements) is alive while it is written, and the less of it a young-generation collection finds
 * alive, the less V8 promotes to the old generation and the less it grows the young one (1,000 per
 * batch grew the old generation by ~120 MiB over 190,000 users, 200 by ~20 MiB; bench/import-memory).
 */
export const USER_BATCH = 200;

const USER_LISTS = new Set<string>(['humanUsers', 'machineUsers']);
const REFERENCES = new Set<string>(REFERENCE_LISTS);

export type UserBatch = Pick<DataOrg, 'humanUsers' | 'machineUsers'>;

/** One organisation of a validated document, wherever it is kept. */
export interface OrgSource {
  /** orgId, org.name and its domains' names: what its locks need (orgImportLocks). */
  readonly skeleton: DataOrg;
  /** How many users it brings (an import job's totals). */
  readonly users: number;
  /** Whether a human user comes with a plain `password` (hashed before the organisation's transaction). */
  readonly hasPlainPasswords: boolean;
  /** Everything but the users (single fields and the other lists). */
  parts(): Promise<DataOrg>;
  /** The users, `size` at a time (human users first, then machine users). */
  userBatches(size: number): AsyncIterable<UserBatch>;
}

/** The organisations of a validated document, and the order they are imported in. */
export interface DocumentSources {
  orgs: OrgSource[];
  plan: ImportPlan;
}

/** A document already in memory (the v1 format, bounded by its own limit): the same interface. */
export function inMemorySources(doc: DataOrgs): DocumentSources {
  return { orgs: doc.orgs.map(inMemorySource), plan: planImport(doc.orgs.map(outlineOf)) };
}

function inMemorySource(org: DataOrg): OrgSource {
  const { humanUsers = [], machineUsers = [], ...parts } = org;
  return {
    skeleton: org,
    users: humanUsers.length + machineUsers.length,
    hasPlainPasswords: humanUsers.some(hasPlainPassword),
    parts: async () => parts,
    async *userBatches(size: number) {
      for (let i = 0; i < humanUsers.length; i += size) yield { humanUsers: humanUsers.slice(i, i + size) };
      for (let i = 0; i < machineUsers.length; i += size) yield { machineUsers: machineUsers.slice(i, i + size) };
    },
  };
}

/** What spoolDocument needs to know about the file it reads. */
export interface SpoolDocumentInput {
  file: ImportFile;
  /** A whole request (`{timeout, dataOrgs, …}`) or a document (`{orgs}`). */
  shape: 'request' | 'document';
  spool: Spool;
  /** For a request: called with a top-level key before its value is read (may throw, e.g. for `dataOrgsv1` over its limit). */
  beforeEnvelopeValue?: (key: string) => void;
}

/** One organisation as pass 1 left it: its skeleton in memory, its parts in two files of the spool. */
export interface SpooledOrg {
  skeleton: DataOrg;
  users: number;
  hasPlainPasswords: boolean;
  /** Its single fields and lists other than the users, one JSON line each (readSpooledParts). */
  restFile: SealedFile;
  /** Its users, one JSON line each (readSpooledUsers). */
  usersFile: SealedFile;
}

/** The problems pass 1 found: how many, and the 400 naming the first. */
export interface ProblemSummary {
  readonly count: number;
  toError(): DomainError;
}

export interface SpooledDocument {
  /** For a request: its top-level fields, the document's key holding SPOOLED_DOCUMENT instead of it. */
  envelope: Record<string, unknown>;
  /** Whether a document was read (a request may carry none, or a Cloud Storage location). */
  found: boolean;
  /** Problems of the document (none written to the spool's files are used then). */
  problems: ProblemSummary;
  orgs: SpooledOrg[];
  /** The order of `orgs` (planned once the document is read without problems). */
  plan: ImportPlan;
}

/** Stands in the request's fields for the document read from it as a stream. */
export const SPOOLED_DOCUMENT = Symbol('spooled document');

/** Pass 1: reads, validates and splits the document in `file`. Throws only for syntax (400) and I/O. */
export async function spoolDocument(input: SpoolDocumentInput): Promise<SpooledDocument> {
  const { spool } = input;
  const problems = new ProblemList();
  const envelope: Record<string, unknown> = {};
  const orgs: SpooledOrg[] = [];
  const outlines: OutlineBuilder[] = [];
  let found = input.shape === 'document';
  let current: { skeleton: Record<string, unknown>; outline: OutlineBuilder; seen: Set<string>; rest: LineWriter; users: LineWriter; base: (string | number)[] } | undefined;
  const closing: Promise<void>[] = [];
  // Text no store can keep is named from the body's root (`dataOrgs.orgs[0]…`), as for any other
  // request body; the document's own problems from the document's (`orgs[0]…`), as before.
  let textBase: string[] = [];

  await readDocumentStream(input.file, input.shape, {
    envelopeKey: (key) => input.beforeEnvelopeValue?.(key),
    envelope(key, value) {
      checkStorableText(value, problems, [key]);
      envelope[key] = value;
    },
    document(key) {
      if (found) throw new DomainError(GrpcCode.InvalidArgument, 'IMPORT-d4t40', 'give exactly one of dataOrgs, dataOrgsv1, dataOrgsGcs, dataOrgsv1Gcs (dataOrgs was given twice)');
      found = true;
      envelope[key] = SPOOLED_DOCUMENT;
      textBase = [key];
    },
    misplaced(path) {
      if (path.length === 0) problems.add('document', 'expected object');
      else if (path.length === 1) problems.add(formatPath(path), 'expected array');
      else problems.add(formatPath(path), 'expected object');
    },
    orgStart(index) {
      const rest = spool.sealed(`org-${index}.jsonl`);
      const users = spool.sealed(`org-${index}.users.jsonl`);
      current = { skeleton: {}, outline: (outlines[index] = new OutlineBuilder()), seen: new Set(), rest: new LineWriter(rest), users: new LineWriter(users), base: ['orgs', index] };
      orgs[index] = { skeleton: current.skeleton as DataOrg, users: 0, hasPlainPasswords: false, restFile: rest, usersFile: users };
    },
    orgField(_index, key, value) {
      const org = current!;
      if (!firstTime(org.seen, key, problems, org.base)) return;
      if (value === undefined || value === null) return;
      normaliseKeysInPlace(value);
      checkStorableText(value, problems, [...textBase, ...org.base, key]);
      if (isOrgListField(key)) {
        problems.add(formatPath([...org.base, key]), 'expected array');
        return;
      }
      const parsed = validateOrgField(key, value, problems, org.base) as Record<string, unknown> | string | undefined;
      if (parsed === undefined) return;
      if (key === 'orgId') org.skeleton.orgId = detached(parsed as string);
      if (key === 'org') org.skeleton.org = { name: detached((parsed as { name?: string }).name) };
      if (problems.count === 0) org.rest.write(JSON.stringify(['f', key, value]));
    },
    orgList(_index, key) {
      firstTime(current!.seen, key, problems, current!.base);
    },
    orgItem(index, key, itemIndex, value) {
      const org = current!;
      const path = [...org.base, key, itemIndex];
      normaliseKeysInPlace(value);
      checkStorableText(value, problems, [...textBase, ...path]);
      const parsed = validateOrgItem(key, value, problems, path) as Record<string, string> | undefined;
      if (parsed === undefined) return;
      if (problems.count > 0) return; // the document is refused: nothing more to keep
      if (key === 'humanUsers' && hasPlainPassword(parsed as never)) orgs[index].hasPlainPasswords = true;
      if (USER_LISTS.has(key)) {
        org.outline.addUser(parsed.userId);
        orgs[index].users++;
      } else if (REFERENCES.has(key)) {
        org.outline.addReference(parsed.userId);
      } else if (key === 'domains') {
        ((org.skeleton.domains ??= []) as { domainName: string }[]).push({ domainName: detached(parsed.domainName)! });
      }
      (USER_LISTS.has(key) ? org.users : org.rest).write(JSON.stringify(['i', key, value]));
    },
    orgEnd() {
      closing.push(current!.rest.close(), current!.users.close());
      current = undefined;
    },
    async afterChunk() {
      if (current) await Promise.all([current.rest.drain(), current.users.drain()]);
      if (closing.length) await Promise.all(closing.splice(0));
    },
  }).finally(() => {
    // Left early (a syntax error, a value nested too deep): the organisation being read has its
    // files open too; they are closed before the error goes on, so that removing the spool does
    // not race their writes (rm answered ENOTEMPTY, or a file was made after it).
    if (current) closing.push(current.rest.close(), current.users.close());
    return Promise.allSettled(closing);
  });
  await Promise.all(closing);
  const plan = problems.count === 0 ? planImport(outlines.map((o) => o.build())) : { order: [], directory: new Float64Array(0) };
  return { envelope, found, problems, orgs, plan };
}

/**
 * A copy of `text` that keeps nothing else alive. A string V8 cuts out of a longer one (13
 * characters or more: ZITADEL's 18-digit ids, UUIDs) may be a slice that holds the whole longer
 * one, here the 256 KiB read it came from: kept per user, they kept the whole document in memory
 * (a 48 MiB reader ran out at ~70,000 users with 18-digit ids, not with short ones).
 */
function detached(text: string | undefined): string | undefined {
  return text === undefined ? undefined : Buffer.from(text, 'utf16le').toString('utf16le');
}

/** A field named twice in one organisation (`humanUsers` and `human_users`, or a repeated key) is refused. */
function firstTime(seen: Set<string>, key: string, problems: ProblemList, base: (string | number)[]): boolean {
  if (!seen.has(key)) {
    seen.add(key);
    return true;
  }
  problems.add(formatPath([...base, key]), 'given more than once (in the same or another spelling)');
  return false;
}

const hasPlainPassword = (h: NonNullable<DataOrg['humanUsers']>[number]) => Boolean(h.user.password && !h.user.hashedPassword?.value);

/** Pass 2: an organisation's parts other than its users, read back whole. */
export async function readSpooledParts(restFile: SealedFile): Promise<DataOrg> {
  const org: Record<string, unknown> = {};
  for (const line of (await readSealed(restFile)).toString('utf8').split('\n')) {
    if (!line) continue;
    const [kind, key, value] = JSON.parse(line) as ['f' | 'i', string, unknown];
    if (kind === 'f') org[key] = revalidate((p) => validateOrgField(key, value, p, []));
    else ((org[key] ??= []) as unknown[]).push(revalidate((p) => validateOrgItem(key as OrgListField, value, p, [key])));
  }
  return org as DataOrg;
}

/** Pass 2: an organisation's users read back, `size` at a time (human users first, then machine users). */
export async function* readSpooledUsers(usersFile: SealedFile, size: number): AsyncGenerator<UserBatch> {
  let batch: { humanUsers: unknown[]; machineUsers: unknown[]; n: number } = { humanUsers: [], machineUsers: [], n: 0 };
  const lines = createInterface({ input: Readable.from(openSealed(usersFile, 64 * 1024)), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const [, key, value] = JSON.parse(line) as ['i', 'humanUsers' | 'machineUsers', unknown];
    batch[key].push(revalidate((p) => validateOrgItem(key, value, p, [key])));
    if (++batch.n < size) continue;
    yield toBatch(batch);
    batch = { humanUsers: [], machineUsers: [], n: 0 };
  }
  if (batch.n > 0) yield toBatch(batch);
}

function toBatch(b: { humanUsers: unknown[]; machineUsers: unknown[] }): UserBatch {
  return {
    ...(b.humanUsers.length ? { humanUsers: b.humanUsers as DataOrg['humanUsers'] } : {}),
    ...(b.machineUsers.length ? { machineUsers: b.machineUsers as DataOrg['machineUsers'] } : {}),
  };
}

/** A part read back from the spool: it was valid when written, so a problem now is the service's own fault. */
function revalidate(parse: (problems: ProblemList) => unknown): unknown {
  const problems = new ProblemList();
  const value = parse(problems);
  if (problems.count > 0) throw new Error(`a spooled import part no longer validates: ${problems.toError().message}`);
  return value;
}
