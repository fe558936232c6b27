import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';
import { type LoginNameRules, loginNameRules } from './login-names.js';
import { toUserView, type UserView } from './view.js';

export interface UserSearchQuery {
  userNameQuery?: { userName: string; method?: TextQueryMethod };
  typeQuery?: { type: 'TYPE_HUMAN' | 'TYPE_MACHINE' };
}

/** A user of the context organisation; another organisation's user is not found. */
export async function getUserById(store: Store, ctx: RequestContext, userId: string): Promise<UserView> {
  requirePermission(ctx, 'user.read');
  const user = await store.read.users.getInOrg(ctx.orgId, userId);
  if (!user) throw notFound('QUERY-Dfbg2', 'User could not be found');
  return toUserView(user, await orgRules(store, ctx));
}

export async function listUsers(store: Store, ctx: RequestContext, input: { query?: ListQueryInput; queries?: UserSearchQuery[] }): Promise<{ details: ListDetails; result: UserView[] }> {
  requirePermission(ctx, 'user.read');
  const queries = input.queries ?? [];
  const names = queries.flatMap((q) => (q.userNameQuery ? [textMatch(q.userNameQuery.userName, q.userNameQuery.method)] : []));
  const types = [...new Set(queries.flatMap((q) => (q.typeQuery ? ([q.typeQuery.type === 'TYPE_HUMAN' ? 'human' : 'machine'] as const) : [])))];
  const at = new Date();
  // Queries are ANDed: two different types can never both match.
  if (types.length > 1) return { details: listDetails(0, at), result: [] };
  const { total, rows } = await store.read.users.search(ctx.orgId, { userNames: names, type: types[0] }, toPage(input.query));
  const rules = await orgRules(store, ctx);
  return { details: listDetails(total, at), result: rows.map((row) => toUserView(row, rules)) };
}

async function orgRules(store: Store, ctx: RequestContext): Promise<LoginNameRules> {
  if (!(await store.read.orgs.exists(ctx.orgId))) throw notFound('QUERY-1Nf8s', 'Organisation not found');
  return loginNameRules(store.read, ctx.instanceId, ctx.orgId);
}
