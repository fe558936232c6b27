/**
 * What one organisation's import reports, shared by the per-resource modules beside this file:
 * the entries of `errors`, the ids of what was imported (`success.orgs[]`), each resource's outcome
 * (created, unchanged, changed, skipped, refused: the summary of every import, per kind of resource,
 * and the list of a dry run),
 * the deadline check run between steps, and what a resource that exists already becomes under the
 * request's conflict policy. One `OrgImport` per transaction run: the store may run a transaction
 * more than once, and only its last run's report counts.
 */
import type { Repositories } from '../../../store/store.js';
import type { RequestContext } from '../../context.js';
import { DomainError, GrpcCode } from '../../errors.js';
import { authorityOver } from '../../users/guard.js';
import type { AnswerList } from '../answer-lists.js';
import type { HistoryEventT, HistoryRun } from '../history.js';

export interface ImportError {
  type: string;
  id: string;
  message: string;
}

/** What one organisation's import brought in: ZITADEL's lists of ids (held as answer lists: answer-lists.ts). */
export interface ImportSuccessOrg {
  orgId: string;
  humanUserIds?: AnswerList<string>;
  machineUserIds?: AnswerList<string>;
  projectIds?: AnswerList<string>;
  projectRoles?: AnswerList<string>;
  oidcAppIds?: AnswerList<string>;
  apiAppIds?: AnswerList<string>;
  userGrants?: AnswerList<{ projectId: string; userId: string }>;
  projectGrants?: AnswerList<{ grantId: string; projectId: string; orgId: string }>;
  projectGrantMembers?: AnswerList<{ projectId: string; grantId: string; userId: string }>;
  orgMembers?: AnswerList<string>;
  projectMembers?: AnswerList<{ projectId: string; userId: string }>;
  jwtIdps?: AnswerList<string>;
  /** ZITADEL's field name (sic). */
  oidcIpds?: AnswerList<string>;
  userLinks?: AnswerList<{ userId: string; externalUserId: string; displayName: string; idpId: string }>;
  userMetadata?: AnswerList<{ userId: string; key: string }>;
  loginTexts?: AnswerList<string>;
  messageTexts?: AnswerList<string>;
  domains?: AnswerList<string>;
  /** Ids of the imported machine keys and application keys (ZITADEL's names). */
  machineKeys?: AnswerList<string>;
  appKeys?: AnswerList<string>;
  /** This service's: ids of the imported personal access tokens, and the machine users whose client secret was imported. */
  personalAccessTokens?: AnswerList<string>;
  machineSecrets?: AnswerList<string>;
}

export type ListKey = Exclude<keyof ImportSuccessOrg, 'orgId'>;
type Entry<K extends ListKey> = NonNullable<ImportSuccessOrg[K]> extends AnswerList<infer E> ? E : never;

/**
 * What an import does with a resource that exists already (the request's `conflictPolicy`):
 * REPORT (the default, ZITADEL's behaviour): left as it is and reported in `errors`;
 * SKIP: left as it is, no error (outcome SKIPPED); OVERWRITE: takes the document's values (states
 * included), with one change event per resource changed and the API's own event for a change of state;
 * FAIL: the import stops there and nothing of it is written (import-data.ts runs it in one transaction).
 * A resource that clashes with a *different* one (another user of the same name, a client id
 * another application holds) is refused under every policy (`clash`), and stops a FAIL import too.
 */
export const CONFLICT_POLICIES = ['REPORT', 'SKIP', 'OVERWRITE', 'FAIL'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

export type Outcome = 'CREATED' | 'UNCHANGED' | 'CHANGED' | 'SKIPPED' | 'REFUSED';

/** One resource of the document and what the import did (or, in a dry run, would do) with it. */
export interface ResourceOutcome {
  type: string;
  id: string;
  outcome: Outcome;
  /** Why it was refused or left unchanged, in `errors`' form. */
  message?: string;
  /** The fields the document changed (CHANGED). */
  fields?: string[];
}

export type OutcomeCounts = Record<'created' | 'unchanged' | 'changed' | 'skipped' | 'refused', number>;

export const noOutcomes = (): OutcomeCounts => ({ created: 0, unchanged: 0, changed: 0, skipped: 0, refused: 0 });

/** Where one import's outcomes go: counted always, in all and per kind of resource; listed only when asked (a dry run). */
export interface OutcomeSink {
  counts: OutcomeCounts;
  /** The same counts per `type` of resource (`human_user`, `project`, …): what the CLI's summary shows. */
  byType: Record<string, OutcomeCounts>;
  list?: AnswerList<ResourceOutcome>;
}

/** A sink that lists the outcomes in `list` (a dry run's), or only counts them. */
export const newOutcomeSink = (list?: AnswerList<ResourceOutcome>): OutcomeSink => ({ counts: noOutcomes(), byType: {}, ...(list ? { list } : {}) });

/** Adds `from`'s outcomes to `into`'s. */
export function addOutcomes(into: OutcomeSink, from: OutcomeSink): void {
  for (const key of Object.keys(into.counts) as (keyof OutcomeCounts)[]) into.counts[key] += from.counts[key];
  for (const [type, counts] of Object.entries(from.byType)) {
    const to = (into.byType[type] ??= noOutcomes());
    for (const key of Object.keys(counts) as (keyof OutcomeCounts)[]) to[key] += counts[key];
  }
  if (from.list) into.list?.append(from.list);
}

/**
 * A FAIL import met a resource that exists here, or clashes with one here: it stops, and its one
 * transaction rolls back (import-data.ts), so nothing of it is written.
 */
export class ImportConflict extends DomainError {
  constructor(
    readonly type: string,
    readonly resourceId: string,
    reason: string,
  ) {
    super(
      GrpcCode.AlreadyExists,
      'IMPORT-f41l0',
      `conflictPolicy FAIL: ${type} ${resourceId} exists already, or clashes with a resource that does (${reason}); the import stopped there and nothing was imported`,
    );
  }
}

/** The outcome type of each success list's entries (their id is the value, when a string). */
const TYPE_OF: Record<ListKey, string> = {
  humanUserIds: 'human_user',
  machineUserIds: 'machine_user',
  projectIds: 'project',
  projectRoles: 'project_role',
  oidcAppIds: 'oidc_app',
  apiAppIds: 'api_app',
  userGrants: 'user_grant',
  projectGrants: 'project_grant',
  projectGrantMembers: 'project_grant_member',
  orgMembers: 'org_member',
  projectMembers: 'project_member',
  jwtIdps: 'jwt_idp',
  oidcIpds: 'oidc_idp',
  userLinks: 'user_link',
  userMetadata: 'user_metadata',
  loginTexts: 'login_texts',
  messageTexts: 'message_text',
  domains: 'domain',
  machineKeys: 'machine_user_key',
  appKeys: 'app_key',
  personalAccessTokens: 'personal_access_token',
  machineSecrets: 'machine_secret',
};

/** A resource that exists, as the document wants it: compared field by field with what is here. */
export interface Overwrite {
  type: string;
  id: string;
  /** The aggregate whose history gets the change event, and the event's type (the API's change event where there is one). */
  aggregate: readonly [type: string, id: string];
  eventType: string;
  /** Identifies the resource within its aggregate (e.g. `{ appId }`); the event also names the changed fields, never their values. */
  payload?: Record<string, unknown>;
  current: Record<string, unknown>;
  wanted: Record<string, unknown>;
  /** Writes the changed fields, stamped with the (last) event's sequence and time. */
  apply: (changed: Record<string, unknown>, stamp: { sequence: number; changedAt: Date }) => Promise<void>;
  /**
   * The API's event for a change of `state` (e.g. `project.deactivated`), when `current` and
   * `wanted` carry one: a state change is its own event, as DeactivateX / ReactivateX append it,
   * beside the change event of the other fields.
   */
  stateEvent?: (to: string, from: string) => string;
}

/** Deep equality of JSON-like values (ignoring key order). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Roles compared as a set: their order carries nothing. */
export const roleSet = (roles: readonly string[] | undefined) => [...new Set(roles ?? [])].sort();

/** ZITADEL's error text form `ID=<id> Message=<key>` (reference §5.5). */
export const msg = (id: string, key: string) => `ID=${id} Message=${key}`;

/** One organisation's import (or its deferred references) in one run of its transaction. */
export class OrgImport implements HistoryRun {
  /** Imported resources have no events of their own (description §4.5 rule 3): their rows start at sequence 0. */
  readonly stamp: { sequence: number; createdAt: Date; changedAt: Date };
  /** The source histories this run appended (`withHistory`, history.ts): the parts of those objects get the import's event too. */
  readonly carried = new Map<string, readonly HistoryEventT[]>();

  constructor(
    readonly orgId: string,
    readonly at: Date,
    /** This run's errors; the organisation's lists of ids are made beside it (answer-lists.ts). */
    readonly errors: AnswerList<ImportError>,
    readonly ok: ImportSuccessOrg,
    /** Throws when the import's deadline has passed (the transaction then rolls back). */
    readonly check: () => void,
    /** Users named by references but neither in the document nor here: how many references each (→ the import's warnings). */
    readonly missingUsers: Map<string, number>,
    readonly policy: ConflictPolicy = 'REPORT',
    readonly outcomes: OutcomeSink = newOutcomeSink(),
    /** Who imports: the creator of the events an overwrite appends, and whose authority over existing users counts. */
    readonly importer: RequestContext,
  ) {
    this.stamp = { sequence: 0, createdAt: at, changedAt: at };
  }

  get creator(): string {
    return this.importer.caller.userId;
  }

  /**
   * Users this run created: they hold nothing the importer could not grant. Only those `watchUsers`
   * names, when it was called: a set of every user's id grew the server by tens of MiB for a
   * million users (issue 49), and only the users the organisation's metadata, links and keys name
   * are ever asked about.
   */
  private readonly createdUsers = new Set<string>();
  private watched?: Set<string>;

  /** Only these users are ever passed to `mayChangeUser`: the others created are not remembered. */
  watchUsers(userIds: Iterable<string | undefined>): void {
    this.watched = new Set([...userIds].filter((id): id is string => id !== undefined));
  }

  /**
   * Whether the import may change (overwrite, or give metadata, links or keys to) this user: one it
   * created, or an existing one over which the importer has authority as the API's commands require
   * it (domain/users/guard.ts); else the resource is refused (`COMMAND-Auth0r`) and false.
   */
  async mayChangeUser(tx: Repositories, type: string, id: string, userId: string): Promise<boolean> {
    if (this.createdUsers.has(userId) || (await authorityOver(tx, this.importer, userId))) return true;
    this.refuse(type, id, msg('COMMAND-Auth0r', `No matching permissions found: user ${userId} holds roles the importer may not grant; it was not changed`));
    return false;
  }

  private record(outcome: ResourceOutcome): void {
    const key = outcome.outcome.toLowerCase() as keyof OutcomeCounts;
    this.outcomes.counts[key]++;
    (this.outcomes.byType[outcome.type] ??= noOutcomes())[key]++;
    this.outcomes.list?.push(outcome);
  }

  /** The resource was created, but its aggregate has a trail here (a removed one's id): the document's history of it was not appended. */
  historyRefused(type: string, id: string): void {
    this.refuse(`${type}_history`, id, msg('IMPORT-h1st0', `the ${type.replace(/_/g, ' ')}'s id has a trail here already (a removed one's): its history was not imported`));
  }

  /** The resource was not imported, and why (an entry of the answer's `errors`). */
  refuse(type: string, id: string, message: string): void {
    this.errors.push({ type, id, message });
    this.record({ type, id, outcome: 'REFUSED', message });
  }

  /**
   * The resource was imported: listed in the organisation's success entry. `id` (and `type`) name it
   * among the outcomes where the entry is not its id: as its errors would.
   */
  imported<K extends ListKey>(key: K, value: Entry<K>, id?: string, type = TYPE_OF[key]): void {
    if ((key === 'humanUserIds' || key === 'machineUserIds') && (!this.watched || this.watched.has(value as string))) this.createdUsers.add(value as string);
    this.listed(key, value);
    this.record({ type, id: id ?? String(value), outcome: 'CREATED' });
  }

  /** Listed in the organisation's success entry, its outcome noted apart. */
  listed<K extends ListKey>(key: K, value: Entry<K>): void {
    ((this.ok[key] ??= this.errors.sibling() as never) as AnswerList<Entry<K>>).push(value);
  }

  /** A resource without a success list of its own (the organisation, a policy) was created. */
  created(type: string, id: string): void {
    this.record({ type, id, outcome: 'CREATED' });
  }

  /** The resource is here as the document has it, or stays as it is here (a key is never changed). */
  unchanged(type: string, id: string, message?: string): void {
    this.record({ type, id, outcome: 'UNCHANGED', ...(message ? { message } : {}) });
  }

  /** Not imported on purpose, and no error: what is here stays (SKIP), or the document's entry is not this instance's to take. */
  skipped(type: string, id: string, message: string): void {
    this.record({ type, id, outcome: 'SKIPPED', message });
  }

  /**
   * The resource exists here already. REPORT: refused with `message`; SKIP: skipped; FAIL: the import
   * stops (ImportConflict). True under OVERWRITE: the caller then hands the document's values to `overwrite`.
   */
  exists(type: string, id: string, message: string): boolean {
    if (this.policy === 'OVERWRITE') return true;
    if (this.policy === 'FAIL') throw new ImportConflict(type, id, message);
    if (this.policy === 'SKIP') this.skipped(type, id, msg('IMPORT-sk1p0', 'exists already; left as it is (conflictPolicy SKIP)'));
    else this.refuse(type, id, message);
    return false;
  }

  /**
   * The resource clashes with a *different* one here (its id, name or client id is another's):
   * refused under every policy, and under FAIL the import stops.
   */
  clash(type: string, id: string, message: string): void {
    if (this.policy === 'FAIL') throw new ImportConflict(type, id, message);
    this.refuse(type, id, message);
  }

  /**
   * OVERWRITE of an existing resource: the fields whose values differ take the document's, with one
   * event on the resource's aggregate naming them; nothing at all when every field is equal.
   */
  async overwrite(tx: Repositories, o: Overwrite): Promise<void> {
    const changed = Object.fromEntries(Object.entries(o.wanted).filter(([key, value]) => !sameValue(value, o.current[key])));
    const fields = Object.keys(changed);
    if (!fields.length) return this.unchanged(o.type, o.id);
    const append = (type: string, payload: Record<string, unknown>) =>
      tx.events.append({
        aggregateType: o.aggregate[0],
        aggregateId: o.aggregate[1],
        type,
        payload: { ...o.payload, ...payload, source: 'import' },
        creator: this.creator,
        resourceOwner: this.orgId,
      });
    const stateChanged = o.stateEvent !== undefined && 'state' in changed;
    const others = fields.filter((f) => !stateChanged || f !== 'state');
    let event = others.length ? await append(o.eventType, { changed: others }) : undefined;
    if (stateChanged) event = await append(o.stateEvent!(String(changed.state), String(o.current.state)), {});
    await o.apply(changed, { sequence: event!.sequence, changedAt: event!.createdAt });
    this.record({ type: o.type, id: o.id, outcome: 'CHANGED', fields });
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
    `import timed out after ${ms / 1000}s; the organisation in progress was rolled back and later ones were not started` + (done.length ? ` (completed: ${done.join(', ')})` : ' (none was completed)'),
  );
