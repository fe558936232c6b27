/**
 * The order organisations are imported in. Each organisation is its own transaction, and a user
 * grant or membership may name a user of another organisation of the same document (a project's
 * grants to users of a partner organisation). Importing the user's organisation first makes such
 * references resolvable. Where organisations reference each other both ways no order serves both:
 * the references of the organisation imported first to users of one imported after it are
 * deferred (usersImportedLater) and imported once all organisations are in.
 */
import type { DataOrg } from '../document.js';

/**
 * Each user id of `orgs` and the index of its organisation. Plain loops, not spread copies: an
 * organisation brings hundreds of thousands of users, and this runs on the thread that answers
 * requests (a spread copy of 190,000 users twice over stalled it for ~200 ms).
 */
function userPositions(orgs: readonly DataOrg[]): Map<string, number> {
  const position = new Map<string, number>();
  for (let i = 0; i < orgs.length; i++) {
    for (const u of orgs[i].humanUsers ?? []) position.set(u.userId, i);
    for (const u of orgs[i].machineUsers ?? []) position.set(u.userId, i);
  }
  return position;
}

export function importOrder(orgs: readonly DataOrg[]): DataOrg[] {
  // One organisation has no other to come before it.
  if (orgs.length < 2) return [...orgs];
  const ownerOfUser = userPositions(orgs);
  const dependsOn = orgs.map((org, i) => {
    const referenced = [...(org.userGrants ?? []), ...(org.orgMembers ?? []), ...(org.projectMembers ?? [])].map((r) => ownerOfUser.get(r.userId));
    return [...new Set(referenced)].filter((j): j is number => j !== undefined && j !== i).sort((a, b) => a - b);
  });

  const order: number[] = [];
  const state = new Array<'new' | 'visiting' | 'done'>(orgs.length).fill('new');
  const visit = (i: number) => {
    if (state[i] !== 'new') return; // done, or on the current path (a cycle: stop there)
    state[i] = 'visiting';
    for (const j of dependsOn[i]) visit(j);
    state[i] = 'done';
    order.push(i);
  };
  orgs.forEach((_, i) => visit(i));
  return order.map((i) => orgs[i]);
}

/** For each organisation of `ordered`: whether a user id belongs to an organisation after it. */
export function usersImportedLater(ordered: readonly DataOrg[]): ((userId: string) => boolean)[] {
  // The last organisation (and so a single one) has none after it.
  if (ordered.length < 2) return ordered.map(() => () => false);
  const position = userPositions(ordered);
  return ordered.map((_, i) => (userId: string) => (position.get(userId) ?? -1) > i);
}
