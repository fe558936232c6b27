/**
 * The target user of a command, and the one way to load it for a change.
 *
 * Do better than ZITADEL: there, `user.write` in an organisation is enough to change anything of
 * any of its users, so an ORG_USER_MANAGER could mint a token for a machine user holding
 * IAM_OWNER, set a human IAM_OWNER's email to its own and have the password reset mailed there,
 * and an ORG_OWNER could remove the instance's owners by removing their organisation. Here every
 * operation that changes, disables or removes an existing user — its credentials, how it is
 * recovered or reached, its state, its profile and metadata (which reach tokens), its removal,
 * alone or with its organisation, and an import's OVERWRITE of it — requires the caller to be
 * allowed to grant every membership the user holds (the roles one would gain, misrepresent or
 * destroy through it). Commands load their target through `userToChange` /
 * `machineUserToChange`; cascades and imports, which act on many users, ask
 * `requireAuthorityOverUsersOf` / `authorityOver`; so does a change of an identity provider, which
 * changes how its linked users sign in (`requireAuthorityOverUsersLinkedTo`). The check itself (`ungrantable`) is not
 * exported: nothing can change a user without passing it.
 * test/http/authorization-matrix.test.ts lists these operations (and every other write of the API,
 * each classified), so a new one cannot go unchecked.
 */

import type { MemberRow } from '../../store/repositories/members.js';
import type { UserRow } from '../../store/repositories/users.js';
import type { Repositories } from '../../store/store.js';
import type { RequestContext } from '../context.js';
import { invalidArgument, notFound, permissionDenied } from '../errors.js';
import { Permissions } from '../permissions.js';

/** The permission that grants a membership of each scope, as its own operations require it. */
const MEMBER_WRITE: Record<string, string> = {
  instance: 'iam.member.write',
  org: 'org.member.write',
  project: 'project.member.write',
  project_grant: 'project.grant.member.write',
};

/** The user of the context organisation, else 404 (a user of another organisation is not found). For reads: a change loads its user through `userToChange`. */
export async function userInContextOrg(read: Repositories, ctx: RequestContext, userId: string, errorId: string): Promise<UserRow> {
  const user = await read.users.getInOrg(ctx.orgId, userId);
  if (!user) throw notFound(errorId, 'User could not be found');
  return user;
}

/**
 * The user of the context organisation the caller is about to change (credentials, ways of
 * recovery or contact, state, profile, metadata, removal): 404 when missing, 403 `COMMAND-Auth0r`
 * when it holds roles the caller may not grant (a credential is as good as every role its user
 * holds). Call it inside the command's transaction, which locks the user, so the memberships
 * checked are the ones in force.
 */
export async function userToChange(tx: Repositories, ctx: RequestContext, userId: string, notFoundId: string): Promise<UserRow> {
  const user = await userInContextOrg(tx, ctx, userId, notFoundId);
  await requireAuthorityOver(tx, ctx, user.id);
  return user;
}

/** As `userToChange`, for what only machine users have (`what`: tokens, secrets): 400 for a human. */
export async function machineUserToChange(tx: Repositories, ctx: RequestContext, userId: string, notFoundId: string, what: string): Promise<UserRow> {
  const user = await userInContextOrg(tx, ctx, userId, notFoundId);
  if (user.type !== 'machine') throw invalidArgument('COMMAND-Df2f1', `Wrong user type: only machine users have ${what}`);
  await requireAuthorityOver(tx, ctx, user.id);
  return user;
}

/**
 * Removing an organisation removes its users: the caller must have authority over every one of
 * them (403 `COMMAND-Auth0r` naming the first user and role it may not grant). One query for
 * the whole organisation, however many users it has: only users with memberships can fail.
 */
export async function requireAuthorityOverUsersOf(tx: Repositories, ctx: RequestContext, orgId: string): Promise<void> {
  await requireAuthorityOverAll(tx, ctx, await tx.members.heldByUsersOf(orgId), 'the organisation holds users with', 'nothing was removed. Remove those users or their roles first');
}

/**
 * Changing, deactivating or removing an identity provider changes how its linked users sign in
 * (a provider pointed at other keys signs anyone in as them): the caller must have authority over
 * every user linked to it, as for a change of that user's credentials.
 */
export async function requireAuthorityOverUsersLinkedTo(tx: Repositories, ctx: RequestContext, idpId: string): Promise<void> {
  await requireAuthorityOverAll(tx, ctx, await tx.members.heldByUsersLinkedTo(idpId), 'users who sign in with this identity provider hold', 'nothing was changed. Unlink them first');
}

async function requireAuthorityOverAll(tx: Repositories, ctx: RequestContext, memberships: readonly Held[], who: string, outcome: string): Promise<void> {
  const refused = await ungrantable(
    tx,
    ctx,
    memberships.filter((m) => m.userId !== ctx.caller.userId),
  );
  if (refused) {
    const m = refused.membership;
    throw permissionDenied(
      'COMMAND-Auth0r',
      `No matching permissions found (${refused.permission}): ${who} roles the caller may not grant (user ${m.userId}: ${m.roles.join(', ')} on ${describeScope(m)}); ` +
        `${outcome}, or ask someone who may grant those roles.`,
    );
  }
}

/**
 * Whether the caller may change this existing user (for an import, which reports a refused
 * resource instead of failing): the same rule as `userToChange`.
 */
export async function authorityOver(tx: Repositories, ctx: RequestContext, userId: string): Promise<boolean> {
  return userId === ctx.caller.userId || !(await ungrantable(tx, ctx, await tx.members.listByUser(userId)));
}

/**
 * The caller may grant every membership `userId` holds. A user always has authority over itself:
 * its own credentials give it nothing it does not hold already.
 */
async function requireAuthorityOver(tx: Repositories, ctx: RequestContext, userId: string): Promise<void> {
  if (userId === ctx.caller.userId) return;
  const refused = await ungrantable(tx, ctx, await tx.members.listByUser(userId));
  if (refused) throw permissionDenied('COMMAND-Auth0r', `No matching permissions found (${refused.permission}): the user holds roles the caller may not grant`);
}

type Held = Pick<MemberRow, 'scopeType' | 'scopeId' | 'resourceOwner' | 'userId' | 'roles'>;

/** The first of `memberships` the caller may not grant, with the permission that would grant it; undefined when it may grant them all. */
async function ungrantable(tx: Repositories, ctx: RequestContext, memberships: readonly Held[]): Promise<{ membership: Held; permission: string } | undefined> {
  const callerIn = new Map<string, Permissions>([[ctx.orgId, ctx.permissions]]);
  const permissionsIn = async (orgId: string) => {
    let perms = callerIn.get(orgId);
    if (!perms) callerIn.set(orgId, (perms = new Permissions(await tx.members.forUserInOrg(ctx.caller.userId, orgId))));
    return perms;
  };
  for (const m of memberships) {
    const permission = MEMBER_WRITE[m.scopeType];
    let allowed = false;
    if (m.scopeType === 'instance') {
      allowed = ctx.permissions.has(permission);
    } else if (m.scopeType === 'org') {
      allowed = (await permissionsIn(m.resourceOwner)).has(permission);
    } else if (m.scopeType === 'project') {
      allowed = (await permissionsIn(m.resourceOwner)).allowsProject(permission, m.scopeId);
    } else if (m.scopeType === 'project_grant') {
      // Granted from the project's organisation, for the project (domain/projects/grant-members.ts).
      const grant = await tx.projectGrants.get(m.scopeId);
      allowed = grant !== undefined && (await permissionsIn(grant.orgId)).allowsProject(permission, grant.projectId);
    }
    // Any other scope: nobody is known to be able to grant it, so nobody has authority.
    if (!allowed) return { membership: m, permission: permission ?? `${m.scopeType}.member.write` };
  }
  return undefined;
}

const describeScope = (m: Held) => (m.scopeType === 'instance' ? 'the instance' : `${m.scopeType.replace('_', ' ')} ${m.scopeId}`);
