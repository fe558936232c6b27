/**
 * Local changes at a sync's target (sync.ts): what the target's own trail says changed there since
 * the sync last wrote to it (its incremental export from the target's checkpoint), met with what
 * the source changed in the same round. A resource changed on both sides is a conflict; the policy
 * says which side wins: OVERWRITE the source, SKIP and REPORT the target (REPORT lists each one),
 * FAIL neither (the round is not applied). A resource changed only at the target is left as it is.
 *
 * Resources are met by id: users (with their metadata, links and credentials), user grants, and
 * the organisation's other resources as one (the incremental export answers them whole).
 */

export interface ChangedOrg {
  orgId: string;
  humanUsers?: { userId: string }[];
  machineUsers?: { userId: string }[];
  userGrants?: { identityServiceGrantId?: string }[];
  [list: string]: unknown;
}

export interface ChangesAnswer {
  checkpoint: string;
  removed: { orgId: string; userIds: string[]; userGrants: { userId: string; userGrantId: string }[] }[];
  orgs: ChangedOrg[];
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
}

export function touchedBy(answer: ChangesAnswer): Touched {
  const touched: Touched = { users: new Set(), grants: new Set(), orgLevel: new Set() };
  for (const org of answer.orgs) {
    for (const u of [...(org.humanUsers ?? []), ...(org.machineUsers ?? [])]) touched.users.add(u.userId);
    for (const g of org.userGrants ?? []) if (g.identityServiceGrantId) touched.grants.add(g.identityServiceGrantId);
    if (Object.keys(org).some((key) => !NOT_ORG_LEVEL.has(key))) touched.orgLevel.add(org.orgId);
  }
  for (const r of answer.removed) {
    for (const id of r.userIds) touched.users.add(id);
    for (const g of r.userGrants) touched.grants.add(g.userGrantId);
  }
  return touched;
}

export interface Conflict {
  type: 'user' | 'user_grant' | 'org_resources';
  id: string;
}

export function conflictsOf(source: Touched, target: Touched): Conflict[] {
  return [
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
  const keepUser = (u: { userId: string }) => !users.has(u.userId);
  return {
    checkpoint: answer.checkpoint,
    removed: answer.removed.map((r) => ({ orgId: r.orgId, userIds: r.userIds.filter((id) => !users.has(id)), userGrants: r.userGrants.filter((g) => !grants.has(g.userGrantId)) })),
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
