/**
 * Validation of a whole document before anything is written (reference §5.2, issue #10417).
 * Each list element is parsed on its own and replaces the raw element, so memory holds one
 * copy of the document. Problems are reported with their path in the document, e.g.
 * `orgs[0].humanUsers[3].user.email.email`; up to MAX_REPORTED are named in one message.
 */
import type { z } from 'zod';
import { type DomainError, invalidArgument } from '../errors.js';
import { findUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '../unstorable-text.js';
import { describeZodIssue, formatPath } from '../zod-issues.js';
import { type DataOrg, type DataOrgs, ORG_LIST_FIELDS, ORG_SINGLE_FIELDS } from './document.js';
import { normaliseKeysInPlace } from './json-names.js';

const MAX_REPORTED = 5;

export interface Problem {
  path: string;
  message: string;
  /** A specific error id (e.g. ZITADEL's `USER-JDk4t`) the rule behind the problem has. */
  errorId?: string;
}

/** Collects problems while walking a document. */
export class ProblemList {
  readonly problems: Problem[] = [];
  private total = 0;
  // The one specific id all problems so far share; null once they differ or one has none.
  private sharedId: string | null | undefined;

  add(path: string, message: string, errorId?: string) {
    this.total++;
    this.sharedId = this.sharedId === undefined || this.sharedId === errorId ? (errorId ?? null) : null;
    if (this.problems.length < MAX_REPORTED) this.problems.push({ path, message, ...(errorId ? { errorId } : {}) });
  }

  /** `parsed`: the value the failing schema was given (the wrong value is named from it). */
  addZod(base: readonly PropertyKey[], error: z.ZodError, parsed: unknown) {
    for (const issue of error.issues) this.add(formatPath([...base, ...issue.path]), describeZodIssue(issue, parsed), errorIdOf(issue));
  }

  get count() {
    return this.total;
  }

  /** 400 naming every reported path: `invalid orgs[0].humanUsers[3].user.email.email: …`. */
  toError(): DomainError {
    const first = this.problems.map((p) => `invalid ${p.path}: ${p.message}`).join('; ');
    const more = this.total > this.problems.length ? ` (and ${this.total - this.problems.length} more)` : '';
    return invalidArgument(this.sharedId ?? 'IMPORT-V4l1d', `${first}${more}`);
  }
}

function errorIdOf(issue: z.core.$ZodIssue): string | undefined {
  const id = issue.code === 'custom' ? (issue.params as { errorId?: unknown } | undefined)?.errorId : undefined;
  return typeof id === 'string' ? id : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A raw `{orgs: [...]}` (already key-normalised) → the validated document, or problems added
 * to `problems` (the returned value is then incomplete and must not be used).
 */
export function validateDataOrgs(raw: unknown, problems: ProblemList, base: readonly PropertyKey[] = []): DataOrgs {
  if (!isObject(raw)) {
    problems.add(formatPath(base) || 'document', 'expected object');
    return { orgs: [] };
  }
  const rawOrgs = raw.orgs ?? [];
  if (!Array.isArray(rawOrgs)) {
    problems.add(formatPath([...base, 'orgs']), 'expected array');
    return { orgs: [] };
  }
  const orgs: DataOrg[] = [];
  for (let i = 0; i < rawOrgs.length; i++) {
    orgs.push(validateDataOrg(rawOrgs[i], problems, [...base, 'orgs', i]));
    rawOrgs[i] = null; // release the raw copy as we go
  }
  return { orgs };
}

function validateDataOrg(raw: unknown, problems: ProblemList, base: readonly PropertyKey[]): DataOrg {
  if (!isObject(raw)) {
    problems.add(formatPath(base), 'expected object');
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(ORG_SINGLE_FIELDS)) {
    const parsed = validateOrgField(key, raw[key], problems, base);
    if (parsed !== undefined) out[key] = parsed;
  }
  for (const key of Object.keys(ORG_LIST_FIELDS)) {
    const list = raw[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      problems.add(formatPath([...base, key]), 'expected array');
      continue;
    }
    const parsed: unknown[] = new Array(list.length);
    for (let j = 0; j < list.length; j++) {
      parsed[j] = validateOrgItem(key as OrgListField, list[j], problems, [...base, key, j]);
      list[j] = null;
    }
    if (parsed.length > 0) out[key] = parsed;
  }
  return out as DataOrg;
}

export type OrgListField = keyof typeof ORG_LIST_FIELDS;
export const isOrgListField = (key: string): key is OrgListField => Object.hasOwn(ORG_LIST_FIELDS, key);

/**
 * One single-valued field of an organisation (`orgId`, `org`, a policy, …), already key-normalised:
 * its parsed value, or undefined when absent, unknown or invalid (then a problem is added).
 * `base` is the organisation's path. The streaming reader (streamed-document.ts) uses it field by field.
 */
export function validateOrgField(key: string, value: unknown, problems: ProblemList, base: readonly PropertyKey[]): unknown {
  if (value === undefined || value === null || !Object.hasOwn(ORG_SINGLE_FIELDS, key)) return undefined;
  const r = (ORG_SINGLE_FIELDS[key as keyof typeof ORG_SINGLE_FIELDS] as z.ZodType).safeParse(value);
  if (r.success) return r.data;
  problems.addZod([...base, key], r.error, value);
  return undefined;
}

/** One element of a list field, already key-normalised; `path` is the element's own path. */
export function validateOrgItem(key: OrgListField, value: unknown, problems: ProblemList, path: readonly PropertyKey[]): unknown {
  const r = (ORG_LIST_FIELDS[key] as z.ZodType).safeParse(value);
  if (r.success) return r.data;
  problems.addZod(path, r.error, value);
  return undefined;
}

/** Text no store can keep (NUL, unpaired surrogates) anywhere in the raw document is a problem. */
export function checkStorableText(raw: unknown, problems: ProblemList, base: readonly PropertyKey[] = []) {
  const path = findUnstorableText(raw);
  if (path) problems.add(formatPath([...base, ...path]), UNSTORABLE_TEXT_MESSAGE);
}

/** Normalises names and validates; throws 400 naming the paths of the first problems. */
export function parseDataOrgs(raw: unknown): DataOrgs {
  normaliseKeysInPlace(raw);
  const problems = new ProblemList();
  checkStorableText(raw, problems);
  const doc = validateDataOrgs(raw, problems);
  if (problems.count > 0) throw problems.toError();
  return doc;
}
