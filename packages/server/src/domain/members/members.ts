/**
 * Instance members (IAM_* roles) and organisation members (ORG_* roles). One implementation for
 * both scopes; each change is an event on the scope's aggregate (`instance.member.added`,
 * `org.member.changed`, …) as in ZITADEL. A member can be a user of any organisation.
 */
import type { MemberWithUser } from '../../store/repositories/members.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { INSTANCE_ROLES, ORG_ROLES } from '../permissions.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { loginNameReader } from '../users/login-names.js';
import type { HumanData, MachineData } from '../users/view.js';

interface MemberScope {
  type: 'instance' | 'org';
  id: string;
  roles: readonly string[];
  permissions: { read: string; write: string; delete: string };
  /** ZITADEL's error ids for this scope. */
  errors: { invalidRoles: string; userMissing: string; exists: string; missing: string };
}

export const instanceScope = (ctx: RequestContext): MemberScope => ({
  type: 'instance',
  id: ctx.instanceId,
  roles: INSTANCE_ROLES,
  permissions: { read: 'iam.member.read', write: 'iam.member.write', delete: 'iam.member.delete' },
  errors: { invalidRoles: 'INSTANCE-4m0fS', userMissing: 'INSTANCE-GSXOn', exists: 'INSTANCE-pFDwe', missing: 'INSTANCE-D8JxR' },
});

export const orgScope = (ctx: RequestContext): MemberScope => ({
  type: 'org',
  id: ctx.orgId,
  roles: ORG_ROLES,
  permissions: { read: 'org.member.read', write: 'org.member.write', delete: 'org.member.delete' },
  errors: { invalidRoles: 'Org-4N8es', userMissing: 'ORG-GoXOn', exists: 'ORG-poWwe', missing: 'Org-D8JxR' },
});

export interface MemberView {
  userId: string;
  details: ObjectDetails;
  roles: string[];
  preferredLoginName: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  displayName: string;
  userType: 'TYPE_HUMAN' | 'TYPE_MACHINE';
}

function checkRoles(scope: MemberScope, roles: string[]): string[] {
  const unique = [...new Set(roles)];
  const invalid = unique.filter((r) => !scope.roles.includes(r));
  if (unique.length === 0 || invalid.length > 0) {
    const which = scope.type === 'instance' ? 'instance (IAM_*)' : 'organisation (ORG_*)';
    throw invalidArgument(
      scope.errors.invalidRoles,
      `invalid roles: ${invalid.length ? `${invalid.join(', ')} ${invalid.length === 1 ? 'is' : 'are'} not` : 'at least one is required, each'} an ${which} role`,
    );
  }
  return unique;
}

export async function addMember(store: Store, ctx: RequestContext, scope: MemberScope, input: { userId: string; roles: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.permissions.write);
  const roles = checkRoles(scope, input.roles);
  return store.transaction(
    async (tx) => {
      // As in ZITADEL, a missing user is a failed precondition (400), not a missing resource.
      if (!(await tx.users.get(input.userId))) throw failedPrecondition(scope.errors.userMissing, 'invalid userId: User could not be found');
      if (await tx.members.get(scope.type, scope.id, input.userId)) throw alreadyExists(scope.errors.exists, 'Member already exists');
      const event = await tx.events.append({
        aggregateType: scope.type,
        aggregateId: scope.id,
        type: `${scope.type}.member.added`,
        payload: { userId: input.userId, roles },
        creator: ctx.caller.userId,
        resourceOwner: scope.id,
      });
      await tx.members.insert({
        scopeType: scope.type,
        scopeId: scope.id,
        userId: input.userId,
        resourceOwner: scope.id,
        roles,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      return { details: addedDetails(event) };
    },
    [[USER_AGGREGATE, input.userId]],
  );
}

/** Replaces the member's roles; unchanged roles write no event (ZITADEL does the same). */
export async function updateMember(store: Store, ctx: RequestContext, scope: MemberScope, userId: string, input: { roles: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.permissions.write);
  const roles = checkRoles(scope, input.roles);
  return store.transaction(
    async (tx) => {
      const current = await tx.members.get(scope.type, scope.id, userId);
      if (!current) throw notFound(scope.errors.missing, 'Member not found');
      if (sameSet(current.roles, roles)) return { details: viewDetails(current, scope.id) };
      const event = await tx.events.append({
        aggregateType: scope.type,
        aggregateId: scope.id,
        type: `${scope.type}.member.changed`,
        payload: { userId, roles },
        creator: ctx.caller.userId,
        resourceOwner: scope.id,
      });
      await tx.members.update(scope.type, scope.id, userId, roles, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

export async function removeMember(store: Store, ctx: RequestContext, scope: MemberScope, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.permissions.delete);
  return store.transaction(
    async (tx) => {
      if (!(await tx.members.get(scope.type, scope.id, userId))) throw notFound(scope.errors.missing, 'Member not found');
      const event = await tx.events.append({
        aggregateType: scope.type,
        aggregateId: scope.id,
        type: `${scope.type}.member.removed`,
        payload: { userId },
        creator: ctx.caller.userId,
        resourceOwner: scope.id,
      });
      await tx.members.remove(scope.type, scope.id, userId);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

export async function listMembers(
  store: Store,
  ctx: RequestContext,
  scope: MemberScope,
  input: { query?: ListQueryInput; queries?: { userIdQuery?: { userId: string } }[] },
): Promise<{ details: ListDetails; result: MemberView[] }> {
  requirePermission(ctx, scope.permissions.read);
  const userIds = [...new Set((input.queries ?? []).flatMap((q) => (q.userIdQuery ? [q.userIdQuery.userId] : [])))];
  const at = new Date();
  // Queries are ANDed: two different user ids can never both match.
  if (userIds.length > 1) return { details: listDetails(0, at), result: [] };
  const { total, rows } = await store.read.members.search(scope.type, scope.id, { userIds: userIds.length ? userIds : undefined }, toPage(input.query));
  const names = loginNameReader(store.read, ctx.instanceId);
  return { details: listDetails(total, at), result: await Promise.all(rows.map(async (row) => toMemberView(row, scope.id, (await names.of(row.user)).preferredLoginName))) };
}

function toMemberView({ member, user }: MemberWithUser, resourceOwner: string, preferredLoginName: string): MemberView {
  const base = {
    userId: member.userId,
    details: viewDetails(member, resourceOwner),
    roles: member.roles,
    preferredLoginName,
  };
  if (user.type === 'human') {
    const human = user.data as unknown as HumanData;
    return {
      ...base,
      email: human.email.email,
      firstName: human.profile.firstName,
      lastName: human.profile.lastName,
      displayName: human.profile.displayName,
      userType: 'TYPE_HUMAN',
    };
  }
  return { ...base, displayName: (user.data as unknown as Partial<MachineData>).name ?? user.userName, userType: 'TYPE_MACHINE' };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
