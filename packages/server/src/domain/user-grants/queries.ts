/**
 * User grants, read side (reference §2.4): only grants of the context organisation; a caller
 * whose permission comes from project roles sees only grants on those projects.
 */

import type { UserGrantRow } from '../../store/repositories/user-grants.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { type ObjectDetails, viewDetails } from '../details.js';
import { notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { displayNameOf } from '../projects/members.js';
import { loginNameReader } from '../users/login-names.js';
import { checkProjectScope, type USER_GRANT_STATES } from './commands.js';

export interface UserGrantView {
  id: string;
  details: ObjectDetails;
  roleKeys: string[];
  state: (typeof USER_GRANT_STATES)[number];
  userId: string;
  userName?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  displayName?: string;
  preferredLoginName?: string;
  userType?: 'TYPE_HUMAN' | 'TYPE_MACHINE';
  orgId: string;
  orgName?: string;
  orgDomain?: string;
  projectId: string;
  /** The project grant the roles were given through (a project of another organisation). */
  projectGrantId?: string;
  projectName?: string;
  /** The user's organisation (ZITADEL's name, despite it). */
  grantedOrgId?: string;
  grantedOrgName?: string;
  grantedOrgDomain?: string;
}

export async function getUserGrant(store: Store, ctx: RequestContext, userId: string, grantId: string): Promise<UserGrantView> {
  requirePermission(ctx, 'user.grant.read');
  const grant = await store.read.userGrants.getInOrg(grantId, ctx.orgId);
  if (!grant || grant.userId !== userId) throw notFound('QUERY-wIPkA', 'User grant not found');
  checkProjectScope(ctx, 'user.grant.read', grant.projectId, grant.projectGrantId);
  return (await toViews(store.read, ctx.instanceId, [grant]))[0];
}

export interface UserGrantSearch {
  query?: ListQueryInput;
  queries?: { userIdQuery?: { userId: string }; projectIdQuery?: { projectId: string } }[];
}

export async function searchUserGrants(store: Store, ctx: RequestContext, input: UserGrantSearch): Promise<{ details: ListDetails; result: UserGrantView[] }> {
  requirePermission(ctx, 'user.grant.read');
  const userId = input.queries?.find((q) => q.userIdQuery)?.userIdQuery?.userId;
  const projectId = input.queries?.find((q) => q.projectIdQuery)?.projectIdQuery?.projectId;
  const { total, rows } = await store.read.userGrants.search({
    orgId: ctx.orgId,
    userId,
    projectId,
    projectIds: ctx.permissions.projectsWith('user.grant.read'),
    ...toPage(input.query),
  });
  return { details: listDetails(total), result: await toViews(store.read, ctx.instanceId, rows) };
}

/** Grants with the names of their user, project and organisations (looked up once each). */
async function toViews(repos: Repositories, instanceId: string, grants: UserGrantRow[]): Promise<UserGrantView[]> {
  const users = new Map(await Promise.all([...new Set(grants.map((g) => g.userId))].map(async (id) => [id, await repos.users.get(id)] as const)));
  const projects = new Map((await repos.projects.byIds([...new Set(grants.map((g) => g.projectId))])).map((p) => [p.id, p]));
  const orgIds = new Set([...grants.map((g) => g.orgId), ...[...users.values()].flatMap((u) => (u ? [u.orgId] : []))]);
  const orgs = new Map(await Promise.all([...orgIds].map(async (id) => [id, await repos.orgs.get(id)] as const)));
  const names = loginNameReader(repos, instanceId);
  return Promise.all(
    grants.map(async (grant) => {
      const user = users.get(grant.userId);
      const userOrg = user ? orgs.get(user.orgId) : undefined;
      const org = orgs.get(grant.orgId);
      const data = (user?.data ?? {}) as Record<string, unknown>;
      const profile = (data.profile ?? {}) as Record<string, unknown>;
      const email = (data.email ?? {}) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
      const view: UserGrantView = {
        id: grant.id,
        details: viewDetails(grant, grant.orgId),
        roleKeys: grant.roleKeys,
        state: grant.state as UserGrantView['state'],
        userId: grant.userId,
        userName: user?.userName,
        firstName: text(profile.firstName),
        lastName: text(profile.lastName),
        email: text(typeof data.email === 'string' ? data.email : email.email),
        displayName: user ? displayNameOf(data) : undefined,
        preferredLoginName: user ? (await names.of(user)).preferredLoginName : undefined,
        userType: user ? (user.type === 'human' ? 'TYPE_HUMAN' : 'TYPE_MACHINE') : undefined,
        orgId: grant.orgId,
        orgName: org?.name,
        orgDomain: org?.primaryDomain,
        projectId: grant.projectId,
        projectGrantId: grant.projectGrantId ?? undefined,
        projectName: projects.get(grant.projectId)?.name,
        grantedOrgId: userOrg?.id,
        grantedOrgName: userOrg?.name,
        grantedOrgDomain: userOrg?.primaryDomain,
      };
      // Zero values are omitted, as ZITADEL's JSON does.
      return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)) as unknown as UserGrantView;
    }),
  );
}
