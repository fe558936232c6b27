/**
 * What other writes do to user grants: a removed project role leaves every grant on the
 * project that held it, and a role taken out of a project grant every user grant given through
 * it (ZITADEL's `user.grant.cascade.changed`).
 */

import type { UserGrantRow } from '../../store/repositories/user-grants.js';
import type { Repositories } from '../../store/store.js';
import type { RequestContext } from '../context.js';

export const USER_GRANT_AGGREGATE = 'usergrant';

export async function cascadeRoleRemoval(tx: Repositories, ctx: RequestContext, projectId: string, roleKey: string): Promise<void> {
  for (const grant of await tx.userGrants.byProject(projectId)) {
    if (!grant.roleKeys.includes(roleKey)) continue;
    const roleKeys = grant.roleKeys.filter((k) => k !== roleKey);
    const event = await tx.events.append({
      aggregateType: USER_GRANT_AGGREGATE,
      aggregateId: grant.id,
      type: 'user.grant.cascade.changed',
      payload: { roleKeys },
      creator: ctx.caller.userId,
      resourceOwner: grant.orgId,
    });
    await tx.userGrants.update(grant.id, { roleKeys, sequence: event.sequence, changedAt: event.createdAt });
  }
}

/**
 * The roles of a project grant are now `granted` (UpdateProjectGrant, or an import's OVERWRITE):
 * user grants given through it keep only those. `creator` is who changed the project grant.
 */
export async function cascadeGrantRoles(tx: Repositories, creator: string, projectGrantId: string, granted: string[]): Promise<void> {
  for (const userGrant of await tx.userGrants.byProjectGrant(projectGrantId)) {
    const roleKeys = userGrant.roleKeys.filter((k) => granted.includes(k));
    if (roleKeys.length === userGrant.roleKeys.length) continue;
    const event = await tx.events.append({
      aggregateType: USER_GRANT_AGGREGATE,
      aggregateId: userGrant.id,
      type: 'user.grant.cascade.changed',
      payload: { roleKeys },
      creator,
      resourceOwner: userGrant.orgId,
    });
    await tx.userGrants.update(userGrant.id, { roleKeys, sequence: event.sequence, changedAt: event.createdAt });
  }
}

/**
 * User grants removed because what they are of went (ZITADEL's `user.grant.cascade.removed`, on
 * each grant's aggregate): their user (in every organisation), their project, the project grant
 * they were given through, or an organisation. `creator` is who removed that.
 */
export async function removeUserGrantsWithin(tx: Repositories, creator: string, grants: readonly Pick<UserGrantRow, 'id' | 'userId' | 'projectId' | 'orgId'>[]): Promise<void> {
  await tx.events.appendAll(
    grants.map((grant) => ({
      aggregateType: USER_GRANT_AGGREGATE,
      aggregateId: grant.id,
      type: 'user.grant.cascade.removed',
      payload: { userId: grant.userId, projectId: grant.projectId },
      creator,
      resourceOwner: grant.orgId,
    })),
  );
  await tx.removal.removeUserGrants(grants.map((g) => g.id));
}
