/**
 * Removing users with everything that is theirs: RemoveUser (ZITADEL's `DELETE
 * /management/v1/users/{id}`, `user.removed`) and the removal of an organisation's users, a batch
 * at a time (domain/orgs/removal.ts, `user.cascade.removed`). Nothing may outlive the user: a later
 * user of the same name would get its machine client id (`name@domain`), or inherit its
 * client-credentials tokens.
 */
import type { NewEvent, StoredEvent } from '../../store/repositories/events.js';
import type { MemberRow, MemberScope } from '../../store/repositories/members.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { PROJECT_AGGREGATE } from '../projects/access.js';
import { removeUserGrantsWithin } from '../user-grants/cascade.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userToChange } from './guard.js';

export async function removeUser(store: Store, ctx: RequestContext, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.delete');
  return store.transaction(
    async (tx) => {
      const user = await userToChange(tx, ctx, userId, 'COMMAND-m9od');
      const [event] = await removeUsersWithin(tx, ctx.caller.userId, [user], 'user.removed');
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

export interface RemovedUser {
  id: string;
  orgId: string;
  userName: string;
}

/**
 * Removes the users and everything of them inside the caller's transaction, with one event per
 * user (`type`, on its aggregate) and one per membership and per user grant on that membership's
 * or grant's own aggregate (ZITADEL's `….cascade.removed`), so those aggregates' histories show
 * it; the rest — tokens, keys, links, codes, mails, metadata, what signing in kept, the
 * authorization server's sessions and tokens — is the user's own and covered by its event
 * (repositories/removal.ts `removeUsers`). `machineKeyEvents`: also one event per machine key, as
 * the removal of an organisation lists them. The rows go in a few statements, however many users:
 * what a removed organisation's batches cost is mostly their events. Returns the users' events.
 */
export async function removeUsersWithin(
  tx: Repositories,
  creator: string,
  users: readonly RemovedUser[],
  type: 'user.removed' | 'user.cascade.removed',
  machineKeyEvents = false,
): Promise<StoredEvent[]> {
  const ids = users.map((u) => u.id);
  const orgOf = new Map(users.map((u) => [u.id, u.orgId]));
  const events = await tx.events.appendAll(
    users.map((user) => ({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type, payload: { userName: user.userName }, creator, resourceOwner: user.orgId })),
  );
  if (machineKeyEvents) {
    const keys = await tx.removal.machineKeysOf(ids);
    await tx.events.appendAll(
      keys.map((key) => ({
        aggregateType: USER_AGGREGATE,
        aggregateId: key.userId,
        type: 'user.machine.key.cascade.removed',
        payload: { keyId: key.id },
        creator,
        resourceOwner: orgOf.get(key.userId)!,
      })),
    );
  }
  await removeMembershipsWithin(tx, creator, await tx.removal.membershipsOf(ids));
  await removeUserGrantsWithin(tx, creator, await tx.removal.userGrantsOf(ids));
  await tx.removal.removeUsers(ids);
  return events;
}

/**
 * Memberships removed with their user (or its organisation): one `<scope>.member.cascade.removed`
 * each, on the scope's aggregate. A project grant has no aggregate of its own: its members' events
 * go to the project's (`project.grant.member.cascade.removed`, as when the grant itself goes), so
 * the project's history shows them.
 */
export async function removeMembershipsWithin(tx: Repositories, creator: string, memberships: readonly MemberRow[]): Promise<void> {
  const grantIds = [...new Set(memberships.filter((m) => m.scopeType === 'project_grant').map((m) => m.scopeId))];
  const grants = new Map((await Promise.all(grantIds.map((id) => tx.projectGrants.get(id)))).flatMap((g) => (g ? [[g.id, g] as const] : [])));
  const events: NewEvent[] = memberships.flatMap((m): NewEvent[] => {
    if (m.scopeType !== 'project_grant') {
      return [{ aggregateType: m.scopeType, aggregateId: m.scopeId, type: `${m.scopeType}.member.cascade.removed`, payload: { userId: m.userId }, creator, resourceOwner: m.resourceOwner }];
    }
    const grant = grants.get(m.scopeId);
    // A grant's members go with the grant (projects/removal.ts): a membership outliving it has no project to tell.
    if (!grant) return [];
    return [
      {
        aggregateType: PROJECT_AGGREGATE,
        aggregateId: grant.projectId,
        type: 'project.grant.member.cascade.removed',
        payload: { grantId: grant.id, userId: m.userId },
        creator,
        resourceOwner: grant.orgId,
      },
    ];
  });
  await tx.events.appendAll(events);
  for (const m of memberships) await tx.members.remove(m.scopeType as MemberScope, m.scopeId, m.userId);
}
