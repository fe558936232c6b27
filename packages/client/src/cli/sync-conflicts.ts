/**
 * Local changes at a sync's target (sync.ts): what the target's own trail says changed there since
 * the sync last wrote to it (its incremental export from the target's checkpoint), met with what
 * the source changed in the same round. A resource changed on both sides is a conflict; the policy
 * says which side wins: OVERWRITE the source, SKIP and REPORT the target (REPORT lists each one),
 * FAIL neither (the round is not applied). A resource changed only at the target is left as it is.
 *
 * Resources are met by id: users (with their metadata, links and credentials), user grants, and
 * the organisation's other resources as one (the incremental export answers them whole). A removal
 * is met as a change of what it removed (`unitOf`); the removal of an organisation meets any change
 * the target made in it.
 */

export interface ChangedOrg {
  orgId: string;
  humanUsers?: { userId: string }[];
  machineUsers?: { userId: string }[];
  userGrants?: { identityServiceGrantId?: string }[];
  [list: string]: unknown;
}

/** A removed resource: its kind and the ids its removal's path names (the export's `removed`). */
export type Removal = { kind: string } & Record<string, string>;

export interface OrgRemovals {
  orgId: string;
  /** The organisation itself was removed at its side. */
  orgRemoved?: boolean;
  resources: Removal[];
}

export interface ChangesAnswer {
  checkpoint: string;
  removed: OrgRemovals[];
  orgs: ChangedOrg[];
}

/** Kinds of removal that are a user's own (the user is their conflict's unit); the others are the organisation's, but user grants. */
const USER_KINDS = new Set(['user', 'user_metadata', 'machine_key', 'personal_access_token', 'machine_secret', 'otp', 'idp_link']);

/** What a removal is met by in a conflict: a user, a user grant, or the organisation's resources. */
function unitOf(r: Removal, orgId: string): Conflict {
  if (USER_KINDS.has(r.kind)) return { type: 'user', id: r.userId ?? '' };
  if (r.kind === 'user_grant') return { type: 'user_grant', id: r.grantId ?? '' };
  return { type: 'org_resources', id: orgId };
}

/** A user's lists besides the users themselves, and the field naming the user in each. */
const PER_USER_LISTS: Record<string, string> = {
  userMetadata: 'id',
  userLinks: 'userId',
  machineKeys: 'userId',
  identityServicePersonalAccessTokens: 'userId',
  identityServiceMachineSecrets: 'userId',
};
/** What is not the organisation's own resources: these, the users and their lists. */
const NOT_ORG_LEVEL = new Set(['orgId', 'org', 'orgState', 'humanUsers', 'machineUsers', 'userGrants', ...Object.keys(PER_USER_LISTS)]);

export interface Touched {
  users: Set<string>;
  grants: Set<string>;
  /** Organisations whose own resources changed. */
  orgLevel: Set<string>;
  /** Organisations with any change (a removed organisation meets every change in it). */
  orgs: Set<string>;
  /** Organisations removed. */
  removedOrgs: Set<string>;
}

export function touchedBy(answer: ChangesAnswer): Touched {
  const touched: Touched = { users: new Set(), grants: new Set(), orgLevel: new Set(), orgs: new Set(), removedOrgs: new Set() };
  const sets = { user: touched.users, user_grant: touched.grants, org_resources: touched.orgLevel };
  for (const org of answer.orgs) {
    touched.orgs.add(org.orgId);
    for (const u of [...(org.humanUsers ?? []), ...(org.machineUsers ?? [])]) touched.users.add(u.userId);
    for (const g of org.userGrants ?? []) if (g.identityServiceGrantId) touched.grants.add(g.identityServiceGrantId);
    if (Object.keys(org).some((key) => !NOT_ORG_LEVEL.has(key))) touched.orgLevel.add(org.orgId);
  }
  for (const r of answer.removed) {
    touched.orgs.add(r.orgId);
    if (r.orgRemoved) touched.removedOrgs.add(r.orgId);
    for (const resource of r.resources) {
      const unit = unitOf(resource, r.orgId);
      if (unit.type !== 'org') sets[unit.type].add(unit.id);
    }
  }
  return touched;
}

export interface Conflict {
  /** `org`: the source removed the organisation, which the target changed. */
  type: 'user' | 'user_grant' | 'org_resources' | 'org';
  id: string;
}

export function conflictsOf(source: Touched, target: Touched): Conflict[] {
  return [
    ...[...source.removedOrgs].filter((id) => target.orgs.has(id)).map((id) => ({ type: 'org' as const, id })),
    ...[...source.users].filter((id) => target.users.has(id)).map((id) => ({ type: 'user' as const, id })),
    ...[...source.grants].filter((id) => target.grants.has(id)).map((id) => ({ type: 'user_grant' as const, id })),
    ...[...source.orgLevel].filter((id) => target.orgLevel.has(id)).map((id) => ({ type: 'org_resources' as const, id })),
  ];
}

/** The source's answer without what conflicts: the target's version of those stays. */
export function withoutConflicts(answer: ChangesAnswer, conflicts: readonly Conflict[]): ChangesAnswer {
  const users = new Set(conflicts.filter((c) => c.type === 'user').map((c) => c.id));
  const grants = new Set(conflicts.filter((c) => c.type === 'user_grant').map((c) => c.id));
  const orgs = new Set(conflicts.filter((c) => c.type === 'org_resources').map((c) => c.id));
  const keptOrgs = new Set(conflicts.filter((c) => c.type === 'org').map((c) => c.id));
  const keepUser = (u: { userId: string }) => !users.has(u.userId);
  const conflicting = new Set(conflicts.map((c) => `${c.type} ${c.id}`));
  return {
    checkpoint: answer.checkpoint,
    removed: answer.removed
      .filter((r) => !keptOrgs.has(r.orgId))
      .map((r) => ({ ...r, resources: r.resources.filter((resource) => !conflicting.has(`${unitOf(resource, r.orgId).type} ${unitOf(resource, r.orgId).id}`)) })),
    orgs: answer.orgs.map((org) => {
      const out: ChangedOrg = { orgId: org.orgId };
      for (const [key, value] of Object.entries(org)) {
        if (key === 'orgId') continue;
        if (orgs.has(org.orgId) && !NOT_ORG_LEVEL.has(key)) continue;
        if (key === 'humanUsers' || key === 'machineUsers') out[key] = (value as { userId: string }[]).filter(keepUser);
        else if (key === 'userGrants') out[key] = (value as { identityServiceGrantId?: string }[]).filter((g) => !g.identityServiceGrantId || !grants.has(g.identityServiceGrantId));
        else if (PER_USER_LISTS[key]) out[key] = (value as Record<string, string>[]).filter((item) => !users.has(item[PER_USER_LISTS[key]!]!));
        else out[key] = value;
      }
      return out;
    }),
  };
}
