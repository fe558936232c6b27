/**
 * What one organisation's import reports, shared by the per-resource modules beside this file:
 * the entries of `errors`, the ids of what was imported (`success.orgs[]`), and the deadline check
 * run between steps. One `OrgImport` per transaction run: the store may run a transaction more
 * than once, and only its last run's report counts.
 */
import type { Repositories } from '../../../store/store.js';
import { DomainError, GrpcCode } from '../../errors.js';

export interface ImportError {
  type: string;
  id: string;
  message: string;
}

export interface ImportSuccessOrg {
  orgId: string;
  humanUserIds?: string[];
  machineUserIds?: string[];
  projectIds?: string[];
  projectRoles?: string[];
  oidcAppIds?: string[];
  apiAppIds?: string[];
  userGrants?: { projectId: string; userId: string }[];
  projectGrants?: { grantId: string; projectId: string; orgId: string }[];
  projectGrantMembers?: { projectId: string; grantId: string; userId: string }[];
  orgMembers?: string[];
  projectMembers?: { projectId: string; userId: string }[];
  jwtIdps?: string[];
  /** ZITADEL's field name (sic). */
  oidcIpds?: string[];
  userLinks?: { userId: string; externalUserId: string; displayName: string; idpId: string }[];
  userMetadata?: { userId: string; key: string }[];
  loginTexts?: string[];
  messageTexts?: string[];
  domains?: string[];
  /** Ids of the imported machine keys and application keys (ZITADEL's names). */
  machineKeys?: string[];
  appKeys?: string[];
}

type ListKey = Exclude<keyof ImportSuccessOrg, 'orgId'>;
type Entry<K extends ListKey> = NonNullable<ImportSuccessOrg[K]> extends (infer E)[] ? E : never;

/** ZITADEL's error text form `ID=<id> Message=<key>` (reference §5.5). */
export const msg = (id: string, key: string) => `ID=${id} Message=${key}`;

/** One organisation's import (or its deferred references) in one run of its transaction. */
export class OrgImport {
  /** Imported resources have no events of their own (description §4.5 rule 3): their rows start at sequence 0. */
  readonly stamp: { sequence: number; createdAt: Date; changedAt: Date };

  constructor(
    readonly orgId: string,
    readonly at: Date,
    readonly errors: ImportError[],
    readonly ok: ImportSuccessOrg,
    /** Throws when the import's deadline has passed (the transaction then rolls back). */
    readonly check: () => void,
    /** Users named by references but neither in the document nor here: how many references each (→ the import's warnings). */
    readonly missingUsers: Map<string, number>,
  ) {
    this.stamp = { sequence: 0, createdAt: at, changedAt: at };
  }

  /** The resource was not imported, and why (an entry of the answer's `errors`). */
  refuse(type: string, id: string, message: string): void {
    this.errors.push({ type, id, message });
  }

  /** The resource was imported: listed in the organisation's success entry. */
  imported<K extends ListKey>(key: K, value: Entry<K>): void {
    ((this.ok[key] ??= [] as never) as unknown[]).push(value);
  }

  /**
   * Which of `projectIds` belong to this organisation (imported now or before); `inThisOrg` reports
   * a resource naming another organisation's project, or none, as the API's commands refuse it.
   */
  async projects(tx: Repositories, projectIds: string[]) {
    const projectOrg = await tx.transfer.projectOrgs(projectIds);
    return {
      inThisOrg: (projectId: string, type: string, id: string) => {
        if (projectOrg.get(projectId) === this.orgId) return true;
        this.refuse(type, id, msg('PROJECT-n0tF0', `Errors.Project.NotFound: project ${projectId} does not exist in organisation ${this.orgId}`));
        return false;
      },
    };
  }

  /**
   * Which of `userIds` exist here (imported now or before). A user outside the document and this
   * instance (e.g. the source's administrator, owner of the organisations it created) is no error
   * in the document: `userExists` counts it, once per reference, for the import's warnings.
   */
  async users(tx: Repositories, userIds: string[]) {
    const known = await tx.transfer.existingUserIds(userIds);
    return {
      userExists: (userId: string) => {
        if (known.has(userId)) return true;
        this.missingUsers.set(userId, (this.missingUsers.get(userId) ?? 0) + 1);
        return false;
      },
    };
  }
}

export function stripUndefined<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== '') out[k] = v;
  return out as T;
}

export const timeoutError = (ms: number, done: string[]) =>
  new DomainError(
    GrpcCode.DeadlineExceeded,
    'IMPORT-t1me0',
    `import timed out after ${ms / 1000}s; the organisation in progress was rolled back and later ones were not started` +
      (done.length ? ` (completed: ${done.join(', ')})` : ' (none was completed)'),
  );
