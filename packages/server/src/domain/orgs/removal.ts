/**
 * RemoveOrg (ZITADEL's `DELETE /management/v1/orgs/me`, permission `org.delete`): the context
 * organisation with everything it owns, in one transaction, an event for each thing removed —
 * its projects (domain/projects/removal.ts: grants, user grants, applications and their keys,
 * members), the grants other organisations gave it (with the user grants and members under them),
 * its users (`user.cascade.removed`, with their grants, memberships, tokens, sessions, keys, links,
 * metadata: users/commands.ts `removeUserWithin`), its members, its identity providers and their
 * links; its domains, policies and texts go with its row; then `org.removed`. As in ZITADEL, the
 * instance's default organisation cannot be removed. The caller must have authority over every
 * user of it (domain/users/guard.ts): an ORG_OWNER cannot remove the instance's owners by removing
 * their organisation (403 `COMMAND-Auth0r`, nothing removed).
 *
 * Unlike ZITADEL (issue #10058), the removed organisation can be imported again with its ids: no
 * row keeps them, and a user removed with its organisation (`user.cascade.removed`) does not keep
 * its id taken the way RemoveUser does (store/repositories/transfer.ts `existingUserIds`).
 */
import type { Store } from '../../store/store.js';
import { requirePermission, type RequestContext } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition, notFound } from '../errors.js';
import { removeGrantWithin, removeProjectWithin } from '../projects/removal.js';
import { requireAuthorityOverUsersOf } from '../users/guard.js';
import { loginNamesLock } from '../users/login-names.js';
import { removeUserWithin } from '../users/commands.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { ORG_AGGREGATE } from './commands.js';

/** The event of a user removed with its organisation: its id may come back in an import. */
export const USER_REMOVED_WITH_ORG = 'user.cascade.removed';

export async function removeOrg(store: Store, ctx: RequestContext): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'org.delete');
  const orgId = ctx.orgId;
  // The instance's login names: user creations (API, sign-in, import) take it too, so none adds a
  // user to the organisation while it is being removed.
  return store.transaction(async (tx) => {
    const org = await tx.orgs.get(orgId);
    if (!org) throw notFound('COMMAND-ak8ew', 'Errors.Org.NotFound');
    const instance = await tx.instance.get();
    if (instance?.defaultOrgId === orgId) throw failedPrecondition('COMMA-wG9p1', 'Errors.Org.DefaultOrgNotDeletable: the instance’s default organisation cannot be removed');
    // Removing it removes its users: authority over every one of them (users/guard.ts).
    await requireAuthorityOverUsersOf(tx, ctx, orgId);
    const onOrg = (type: string, payload: Record<string, unknown>) =>
      tx.events.append({ aggregateType: ORG_AGGREGATE, aggregateId: orgId, type, payload, creator: ctx.caller.userId, resourceOwner: orgId });

    for (const project of await tx.removal.projectsOf(orgId)) await removeProjectWithin(tx, ctx, project, 'project.cascade.removed');
    for (const grant of await tx.removal.grantsTo(orgId)) await removeGrantWithin(tx, ctx, grant, grant.orgId);
    for (const user of await tx.removal.usersOf(orgId)) {
      for (const key of await tx.removal.machineKeysOf(user.id)) {
        await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.machine.key.cascade.removed', payload: { keyId: key.id }, creator: ctx.caller.userId, resourceOwner: orgId });
      }
      await removeUserWithin(tx, ctx, user, USER_REMOVED_WITH_ORG);
    }
    for (const m of await tx.removal.membersOf('org', orgId)) await onOrg('org.member.cascade.removed', { userId: m.userId });
    await tx.members.removeScope('org', orgId);
    for (const idp of await tx.removal.idpsOf(orgId)) {
      await onOrg('org.idp.config.cascade.removed', { idpConfigId: idp.id, name: idp.name });
      await tx.idpLinks.removeByIdp(idp.id);
      await tx.idps.remove(idp.id);
    }
    await tx.removal.removeOrg(orgId);
    return { details: changedDetails(await onOrg('org.removed', { name: org.name })) };
  }, [[ORG_AGGREGATE, orgId], loginNamesLock(ctx.instanceId)]);
}
