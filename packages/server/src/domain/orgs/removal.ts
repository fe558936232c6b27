/**
 * RemoveOrg (ZITADEL's `DELETE /management/v1/orgs/me`, permission `org.delete`): the context
 * organisation with everything it owns, an event for each thing removed. As in ZITADEL, the
 * instance's default organisation cannot be removed.
 *
 * Who may: besides `org.delete`, the caller must have authority over every user of the
 * organisation (domain/users/guard.ts): removing it removes them, so an ORG_OWNER cannot remove
 * the instance's owners (or anyone holding roles it may not grant) by removing their
 * organisation. It is refused (403 `COMMAND-Auth0r`, naming a user and the role) with nothing
 * removed.
 *
 * In two steps, so that an organisation of any size is removed without holding the store (on
 * SQLite every write runs on the event loop; issue 47 measured 90 s for 4,000 users, during which
 * nothing else was answered):
 * 1. `removeOrg`, the request's transaction, removes what does not grow with its users — its row
 *    (with its domains, policies and texts), its projects (their applications, keys, grants and
 *    members), the grants other organisations gave it (with their members), its members and the
 *    memberships its users hold anywhere, its identity providers — with their events and
 *    `org.removed`, and records the removal in `org_removals`. From its commit on, the
 *    organisation and everything in it stop working: it is not found (its context answers 403
 *    "Organisation doesn't exist" as for any unknown one), its users are found by nothing (the
 *    users repository reads only users of existing organisations), so they cannot sign in and
 *    their tokens stop working, and the roles it gave are in no token (a grant's organisation and
 *    project grant must exist).
 * 2. `continueOrgRemoval`, run by the background worker (background/org-removal-worker.ts) until
 *    the organisation is gone, removes the rest in short transactions (`BATCH_BUDGET`),
 *    each with its events: the user grants it gave, the user grants others gave on its projects
 *    (through its project grants), its users with everything of theirs (`user.cascade.removed`,
 *    users/removal.ts), then the links to its identity providers and the record. Each batch
 *    commits on its own, so a stopped process leaves a consistent state and any process's worker
 *    goes on from there.
 * Until step 2 has finished, an import of the organisation's id is refused (`ORG-r3m0v`), its
 * users' ids are taken, and organisations that gave its users roles, or got roles on its projects
 * through its grants, may still list those user grants (they grant nothing).
 *
 * Unlike ZITADEL (issue #10058), the removed organisation can be imported again with its ids once
 * it is gone: no row keeps them, and a user removed with its organisation (`user.cascade.removed`)
 * does not keep its id taken the way RemoveUser does (store/repositories/transfer.ts `existingUserIds`).
 */
import type { Dialect, Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition, notFound } from '../errors.js';
import { removeGrantWithin, removeProjectWithin } from '../projects/removal.js';
import { removeUserGrantsWithin } from '../user-grants/cascade.js';
import { requireAuthorityOverUsersOf } from '../users/guard.js';
import { loginNamesLock } from '../users/login-names.js';
import { removeMembershipsWithin, removeUsersWithin } from '../users/removal.js';
import { ORG_AGGREGATE } from './commands.js';

/** The event of a user removed with its organisation: its id may come back in an import. */
export const USER_REMOVED_WITH_ORG = 'user.cascade.removed';

/**
 * How long one transaction of step 2 may run (`ms`), and how many user grants or users each of its
 * steps removes (`step`). On SQLite a transaction holds the event loop as long as it runs, so it
 * bounds how long any other request waits: short. On PostgreSQL it waits on the database, the
 * event loop stays free, and its locks (the organisation's, and rows nobody else can reach) hold
 * nothing else up: larger, because each step costs its round trips (about twenty, however many
 * users) whatever its size. Between two transactions the worker gives the event loop a turn.
 */
export interface BatchBudget {
  ms: number;
  step: number;
}

export const BATCH_BUDGET: Record<Dialect, BatchBudget> = {
  sqlite: { ms: 10, step: 20 },
  postgres: { ms: 200, step: 200 },
};

export async function removeOrg(store: Store, ctx: RequestContext): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'org.delete');
  const orgId = ctx.orgId;
  // The instance's login names: user creations (API, sign-in, import) take it too, so none adds a
  // user to the organisation while it is being removed.
  return store.transaction(
    async (tx) => {
      const org = await tx.orgs.get(orgId);
      if (!org) throw notFound('COMMAND-ak8ew', 'Errors.Org.NotFound');
      const instance = await tx.instance.get();
      if (instance?.defaultOrgId === orgId) throw failedPrecondition('COMMA-wG9p1', 'Errors.Org.DefaultOrgNotDeletable: the instance’s default organisation cannot be removed');
      await requireAuthorityOverUsersOf(tx, ctx, orgId);
      const creator = ctx.caller.userId;
      const onOrg = (type: string, payload: Record<string, unknown>) => tx.events.append({ aggregateType: ORG_AGGREGATE, aggregateId: orgId, type, payload, creator, resourceOwner: orgId });

      const later = { userGrantsLater: true };
      const projects = await tx.removal.projectsOf(orgId);
      for (const project of projects) await removeProjectWithin(tx, ctx, project, 'project.cascade.removed', later);
      for (const grant of await tx.removal.grantsTo(orgId)) await removeGrantWithin(tx, ctx, grant, grant.orgId, later);
      // The roles its users hold anywhere (few: roles are given one by one), so that no list of
      // members shows them a moment longer; then its own members, of any organisation.
      await removeMembershipsWithin(tx, creator, await tx.members.heldByUsersOf(orgId));
      for (const m of await tx.removal.membersOf('org', orgId)) await onOrg('org.member.cascade.removed', { userId: m.userId });
      await tx.members.removeScope('org', orgId);
      const idps = await tx.removal.idpsOf(orgId);
      for (const idp of idps) {
        await onOrg('org.idp.config.cascade.removed', { idpConfigId: idp.id, name: idp.name });
        await tx.idps.remove(idp.id);
      }
      await tx.removal.removeOrg(orgId);
      const removed = await onOrg('org.removed', { name: org.name });
      await tx.removal.startOrgRemoval({ orgId, creatorId: creator, projectIds: projects.map((p) => p.id), idpIds: idps.map((i) => i.id), createdAt: removed.createdAt });
      return { details: changedDetails(removed) };
    },
    [[ORG_AGGREGATE, orgId], loginNamesLock(ctx.instanceId)],
  );
}

/**
 * One transaction of step 2 for the organisation: steps of `budget.step` user grants or users until
 * `budget.ms` is spent or nothing is left. 'done' once the organisation is gone (or was not being
 * removed). Safe from several processes at once: each transaction takes the organisation's lock
 * and removes what is left.
 */
export async function continueOrgRemoval(store: Store, orgId: string, budget: BatchBudget = BATCH_BUDGET[store.dialect]): Promise<'more' | 'done'> {
  return store.transaction(
    async (tx) => {
      const removal = await tx.removal.orgRemoval(orgId);
      if (!removal) return 'done';
      const started = performance.now();
      do {
        if (!(await removeNextStep(tx, orgId, removal.creatorId, removal.projectIds, budget.step))) {
          await tx.removal.removeLinksOf(removal.idpIds);
          await tx.removal.finishOrgRemoval(orgId);
          return 'done';
        }
      } while (performance.now() - started < budget.ms);
      return 'more';
    },
    [[ORG_AGGREGATE, orgId]],
  );
}

/** Removes the next few of what is left, in the order of the module's comment; false when nothing is. */
async function removeNextStep(tx: Repositories, orgId: string, creator: string, projectIds: string[], step: number): Promise<boolean> {
  const given = await tx.removal.userGrantsGivenBy(orgId, step);
  const grants = given.length ? given : await tx.removal.userGrantsOn(projectIds, step);
  if (grants.length) {
    await removeUserGrantsWithin(tx, creator, grants);
    return true;
  }
  const users = await tx.removal.usersOf(orgId, step);
  if (users.length === 0) return false;
  await removeUsersWithin(tx, creator, users, USER_REMOVED_WITH_ORG, true);
  return true;
}

/** Whether the organisation's removal is still under way (an import of its id waits for it). */
export async function orgBeingRemoved(tx: Repositories, orgId: string): Promise<boolean> {
  return (await tx.removal.orgRemoval(orgId)) !== undefined;
}
