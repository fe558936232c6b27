/**
 * The target user of a command, and the one way to load it for a change of its credentials.
 *
 * Do better than ZITADEL: there, `user.write` in an organisation is enough to change anything of
 * any of its users, so an ORG_USER_MANAGER could mint a token for a machine user holding
 * IAM_OWNER, or set a human IAM_OWNER's email to its own and have the password reset mailed
 * there. Here every operation that changes how a user signs in, is recovered or is reached
 * (email, phone, password and its reset, second factors, identity-provider links, tokens, secrets,
 * machine settings, state, removal) loads its target through `userForCredentialChange`, which also
 * requires the caller to be allowed to grant every membership the user holds (the roles one would
 * gain or destroy through it). `requireAuthorityOver` is deliberately not exported: a command
 * cannot load the target for such a change without the check.
 * test/authorization-matrix.test.ts lists these operations (and every other operation on a user,
 * each classified), so a new one cannot go unchecked.
 */
import type { Repositories } from '../../store/store.js';
import type { UserRow } from '../../store/repositories/users.js';
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

/** The user of the context organisation, else 404 (a user of another organisation is not found). */
export async function userInContextOrg(tx: Repositories, ctx: RequestContext, userId: string, errorId: string): Promise<UserRow> {
  const user = await tx.users.getInOrg(ctx.orgId, userId);
  if (!user) throw notFound(errorId, 'User could not be found');
  return user;
}

/**
 * The user of the context organisation whose credentials, ways of recovery or contact, or state
 * the caller is about to change: 404 when missing, 403 when it holds roles the caller may not
 * grant (a credential is as good as every role its user holds). Call it inside the command's
 * transaction, which locks the user, so the memberships checked are the ones in force.
 */
export async function userForCredentialChange(tx: Repositories, ctx: RequestContext, userId: string, notFoundId: string): Promise<UserRow> {
  const user = await userInContextOrg(tx, ctx, userId, notFoundId);
  await requireAuthorityOver(tx, ctx, user.id);
  return user;
}

/** As `userForCredentialChange`, for what only machine users have (`what`: tokens, secrets): 400 for a human. */
export async function machineUserForCredentials(tx: Repositories, ctx: RequestContext, userId: string, notFoundId: string, what: string): Promise<UserRow> {
  const user = await userInContextOrg(tx, ctx, userId, notFoundId);
  if (user.type !== 'machine') throw invalidArgument('COMMAND-Df2f1', `Wrong user type: only machine users have ${what}`);
  await requireAuthorityOver(tx, ctx, user.id);
  return user;
}

/**
 * The caller may grant every membership `userId` holds. A user always has authority over itself:
 * its own credentials give it nothing it does not hold already.
 */
async function requireAuthorityOver(tx: Repositories, ctx: RequestContext, userId: string): Promise<void> {
  if (userId === ctx.caller.userId) return;
  const callerIn = new Map<string, Permissions>([[ctx.orgId, ctx.permissions]]);
  const permissionsIn = async (orgId: string) => {
    let perms = callerIn.get(orgId);
    if (!perms) callerIn.set(orgId, (perms = new Permissions(await tx.members.forUserInOrg(ctx.caller.userId, orgId))));
    return perms;
  };
  for (const m of await tx.members.listByUser(userId)) {
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
    if (!allowed) {
      throw permissionDenied('COMMAND-Auth0r', `No matching permissions found (${permission ?? `${m.scopeType}.member.write`}): the user holds roles the caller may not grant`);
    }
  }
}
