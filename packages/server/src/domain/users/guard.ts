/**
 * Do better than ZITADEL: there, `user.write` in an organisation is enough to mint a personal
 * access token for any of its machine users, including one holding IAM_OWNER, so an
 * ORG_USER_MANAGER of the default organisation could become instance owner. Here, minting a
 * token for a user or removing it also requires being allowed to grant every membership that
 * user holds (the roles one would gain or destroy through it).
 */
import type { Repositories } from '../../store/store.js';
import type { RequestContext } from '../context.js';
import { permissionDenied } from '../errors.js';
import { Permissions } from '../permissions.js';

const MEMBER_WRITE: Record<string, string> = { instance: 'iam.member.write', org: 'org.member.write', project: 'project.member.write' };

export async function requireAuthorityOver(tx: Repositories, ctx: RequestContext, userId: string): Promise<void> {
  const callerIn = new Map<string, Permissions>([[ctx.orgId, ctx.permissions]]);
  for (const m of await tx.members.listByUser(userId)) {
    const permission = MEMBER_WRITE[m.scopeType];
    let allowed: boolean;
    if (m.scopeType === 'instance') {
      allowed = ctx.permissions.has(permission);
    } else {
      // Organisation and project memberships count in their owning organisation.
      let perms = callerIn.get(m.resourceOwner);
      if (!perms) callerIn.set(m.resourceOwner, (perms = new Permissions(await tx.members.forUserInOrg(ctx.caller.userId, m.resourceOwner))));
      allowed = m.scopeType === 'project' ? perms.allowsProject(permission, m.scopeId) : perms.has(permission);
    }
    if (!allowed) {
      throw permissionDenied('COMMAND-Auth0r', `No matching permissions found (${permission}): the user holds roles the caller may not grant`);
    }
  }
}
