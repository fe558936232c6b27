/**
 * The incremental export (issue 51, continuous sync): `changedSince: <position>` on ExportData
 * answers the document restricted to what the chosen organisations' events after that position
 * touched, the removals among them, and the new checkpoint.
 *
 * The checkpoint is a position in the event log (events.position, global and growing), because every
 * change appends its event in the same transaction as the state it changes: what an event names
 * changed, and nothing changed without one. The log's last position is read *before* the events and
 * the state, so everything up to the checkpoint is in the answer (the state read afterwards may be
 * newer still: applying it twice is harmless, as an import under OVERWRITE takes the document's
 * values). `changedSince: "0"` is the whole organisations, as a full export, with the checkpoint:
 * the first copy of a sync, which also covers resources an import wrote without their own events.
 *
 * The restriction is a view of the store's reads (`narrowedReads`), so the export's code
 * (export.ts) writes the document as it always does and needs no second path: users, user
 * grants, metadata, links and a machine user's credentials only for the users and grants touched;
 * the organisation's other resources (projects, applications, policies, domains, members,
 * providers, texts) whole when any of them was touched, else left out.
 *
 * Removals of every kind are reported by the events that made them (removals.ts), in their order,
 * with the ids the target's API needs; an organisation removed since is reported by itself. A
 * resource removed and then added again (a role key, a member, a domain) is not reported removed:
 * the document carries it as it is now.
 */
import type { Repositories } from '../../store/store.js';
import { USER_GRANT_AGGREGATE } from '../user-grants/cascade.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { ORG_IMPORT_EVENT } from './import/import-data.js';
import { ORG_REMOVED, type Removal, removalKey, removalOf, restoredBy } from './removals.js';

/** Most events one incremental export reads; past it the checkpoint stops at the last one read and the next export goes on from there. */
export const MAX_CHANGED_EVENTS = 5000;

export interface OrgChanges {
  /** Users (human or machine) with an event since the checkpoint, and still there. */
  userIds: Set<string>;
  userGrantIds: Set<string>;
  /** Whether anything else of the organisation changed (its projects, applications, policies…). */
  orgLevel: boolean;
  /**
   * An import into the organisation: it writes one event for the organisation, none for each
   * resource it creates, so the organisation is answered whole.
   */
  whole: boolean;
  /** What was removed, in the order it was (removals.ts), by `removalKey`: a target removes it in the same order. */
  removed: Map<string, Removal>;
  /** The organisation itself was removed: reported alone, what went with it goes with it at the target too. */
  orgRemoved: boolean;
}

export interface Changes {
  /** The position the export covers: the next one asks `changedSince` it. */
  checkpoint: number;
  /** The organisations touched, by id; undefined: every organisation, whole (`changedSince` 0). */
  orgs?: Map<string, OrgChanges>;
}

const newOrgChanges = (): OrgChanges => ({ userIds: new Set(), userGrantIds: new Set(), orgLevel: false, whole: false, removed: new Map(), orgRemoved: false });

/**
 * What changed in `orgIds` (all organisations when undefined) after `since`; changes made by
 * `notBy` (a user id) do not count: a sync asks its target what changed there other than by itself.
 */
export async function readChanges(read: Repositories, orgIds: readonly string[] | undefined, since: number, notBy?: string): Promise<Changes> {
  // Read before the events and the state: everything up to it is in what is read after.
  const settled = await read.events.settledPosition();
  const last = settled ?? (await read.events.lastPosition());
  if (since === 0) return { checkpoint: settled ?? 0 };
  const events = await read.events.touchedSince(since, last, orgIds, MAX_CHANGED_EVENTS, notBy);
  // Not settled (a writer still running below the last position): the checkpoint stays, what was
  // read is answered all the same. A `since` beyond the log's end answers nothing and the log's
  // last position (how a sync reads its target's, sync.ts).
  const checkpoint = settled === undefined ? Math.min(since, last) : events.length === MAX_CHANGED_EVENTS ? events[events.length - 1].position : last;
  const orgs = new Map<string, OrgChanges>();
  for (const e of events) {
    let org = orgs.get(e.resourceOwner);
    if (!org) orgs.set(e.resourceOwner, (org = newOrgChanges()));
    const removal = removalOf(e);
    if (removal) org.removed.set(removalKey(removal), removal);
    const restored = restoredBy(e);
    if (restored) org.removed.delete(removalKey(restored));
    if (e.aggregateType === USER_AGGREGATE) {
      if (removal?.kind === 'user') org.userIds.delete(e.aggregateId);
      else org.userIds.add(e.aggregateId);
    } else if (e.aggregateType === USER_GRANT_AGGREGATE) {
      if (removal?.kind === 'user_grant') org.userGrantIds.delete(e.aggregateId);
      else org.userGrantIds.add(e.aggregateId);
    } else {
      org.orgLevel = true;
      if (e.type === ORG_IMPORT_EVENT) org.whole = true;
      if (e.type === ORG_REMOVED) org.orgRemoved = true;
    }
  }
  return { checkpoint, orgs };
}

/** The answer's part before `"orgs"`: the checkpoint and the removals, per organisation. */
export function changesPrefix(changes: Changes): string {
  const removed = [...(changes.orgs ?? new Map<string, OrgChanges>())]
    .filter(([, o]) => o.removed.size || o.orgRemoved)
    .map(([orgId, o]) => (o.orgRemoved ? { orgId, orgRemoved: true, resources: [] } : { orgId, resources: [...o.removed.values()] }));
  return `"checkpoint":${JSON.stringify(String(changes.checkpoint))},"removed":${JSON.stringify(removed)},`;
}

/** Organisations of `orgIds` with an event after `since` (those no longer here were removed since: changes.ts reports it). */
export async function orgsChangedSince(read: Repositories, orgIds: readonly string[], since: number): Promise<Set<string>> {
  const found = new Set<string>();
  for (const orgId of orgIds) if ((await read.events.touchedSince(since, Number.MAX_SAFE_INTEGER, [orgId], 1)).length) found.add(orgId);
  return found;
}

/**
 * The store's reads as the export makes them, seeing only what changed (module comment).
 * `requestOrgIds`: every organisation the request exports, whose users a user grant may be of.
 */
export function narrowedReads(read: Repositories, changes: Changes, requestOrgIds: readonly string[]): Repositories {
  const touched = changes.orgs;
  if (!touched) return read;
  const of = (orgId: string) => touched.get(orgId) ?? newOrgChanges();
  const orgLevel = (orgId: string) => of(orgId).orgLevel;
  /** The users to answer: undefined for all of them (an organisation answered whole). */
  const users = (orgId: string) => (of(orgId).whole ? undefined : [...of(orgId).userIds]);
  const grants = (orgId: string) => (of(orgId).whole ? undefined : [...of(orgId).userGrantIds]);
  const none = (ids: string[] | undefined) => ids !== undefined && ids.length === 0;
  const whenOrgLevel =
    <A extends unknown[], R>(fn: (orgId: string, ...rest: A) => Promise<R[]>) =>
    (orgId: string, ...rest: A): Promise<R[]> =>
      orgLevel(orgId) ? fn(orgId, ...rest) : Promise.resolve([]);
  /** A machine user's credentials: all when the organisation's level changed, else only the touched users'. */
  const ofTouchedUsers =
    <R extends { userId: string }>(fn: (orgId: string) => Promise<R[]>) =>
    async (orgId: string): Promise<R[]> => {
      const rows = await fn(orgId);
      if (orgLevel(orgId) || of(orgId).whole) return rows;
      const ids = of(orgId).userIds;
      return rows.filter((r) => ids.has(r.userId));
    };
  const t = read.transfer;
  return {
    ...read,
    transfer: {
      ...t,
      orgsToExport: async (ids, excluded) => (await t.orgsToExport(ids, excluded)).filter((o) => touched.has(o.id) && (of(o.id).orgLevel || of(o.id).userIds.size || of(o.id).userGrantIds.size)),
      usersPage: async (orgId, type, afterId, limit) => (none(users(orgId)) ? [] : t.usersPage(orgId, type, afterId, limit, users(orgId))),
      userGrantsPage: async (orgId, _userOrgIds, afterId, limit) => (none(grants(orgId)) ? [] : t.userGrantsPage(orgId, [...requestOrgIds], afterId, limit, grants(orgId))),
      projectsOf: whenOrgLevel(t.projectsOf),
      projectRolesOf: whenOrgLevel(t.projectRolesOf),
      appsOf: whenOrgLevel(t.appsOf),
      appKeysOf: whenOrgLevel(t.appKeysOf),
      idpsOf: whenOrgLevel(t.idpsOf),
      membersOf: whenOrgLevel(t.membersOf),
      loginTextsOf: whenOrgLevel(t.loginTextsOf),
      messageTextsOf: whenOrgLevel(t.messageTextsOf),
      machineKeysOf: ofTouchedUsers(t.machineKeysOf),
      tokensOf: ofTouchedUsers(t.tokensOf),
      machineSecretsOf: ofTouchedUsers(t.machineSecretsOf),
    },
    orgDomains: { ...read.orgDomains, list: whenOrgLevel(read.orgDomains.list) },
    policies: { ...read.policies, get: async (ownerId, kind) => (orgLevel(ownerId) ? read.policies.get(ownerId, kind) : undefined) },
    projectGrants: { ...read.projectGrants, ownedBy: whenOrgLevel(read.projectGrants.ownedBy) },
    userMetadata: { ...read.userMetadata, pageByOrg: async (orgId, after, limit) => (none(users(orgId)) ? [] : read.userMetadata.pageByOrg(orgId, after, limit, users(orgId))) },
    idpLinks: { ...read.idpLinks, pageByOrg: async (orgId, after, limit) => (none(users(orgId)) ? [] : read.idpLinks.pageByOrg(orgId, after, limit, users(orgId))) },
  };
}
