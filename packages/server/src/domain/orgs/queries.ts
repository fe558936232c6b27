import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { type ObjectDetails, viewDetails } from '../details.js';
import { notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';

export const ORG_STATES = ['ORG_STATE_UNSPECIFIED', 'ORG_STATE_ACTIVE', 'ORG_STATE_INACTIVE', 'ORG_STATE_REMOVED'] as const;
export type OrgState = (typeof ORG_STATES)[number];

export interface OrgView {
  id: string;
  details: ObjectDetails;
  state: OrgState;
  name: string;
  primaryDomain: string;
}

/** The organisation the request acts on (the caller's, or the one named by x-service-orgid). */
export async function getContextOrg(store: Store, ctx: RequestContext): Promise<OrgView> {
  requirePermission(ctx, 'org.read');
  const org = await store.read.orgs.get(ctx.orgId);
  if (!org) throw notFound('QUERY-1Nf8s', 'Organisation not found');
  return toOrgView(org);
}

export function toOrgView(org: { id: string; name: string; state: string; primaryDomain: string; sequence: number; createdAt: Date; changedAt: Date }): OrgView {
  return {
    id: org.id,
    details: viewDetails(org, org.id),
    state: org.state as OrgState,
    name: org.name,
    primaryDomain: org.primaryDomain,
  };
}

export interface OrgSearchQuery {
  nameQuery?: { name: string; method?: TextQueryMethod };
}

/** Every organisation of the instance matching all queries (admin API, `iam.read`). */
export async function listOrgs(store: Store, ctx: RequestContext, input: { query?: ListQueryInput; queries?: OrgSearchQuery[] }): Promise<{ details: ListDetails; result: OrgView[] }> {
  requirePermission(ctx, 'iam.read');
  const names = (input.queries ?? []).flatMap((q) => (q.nameQuery ? [textMatch(q.nameQuery.name, q.nameQuery.method)] : []));
  const at = new Date();
  const { total, rows } = await store.read.orgs.search({ names }, toPage(input.query));
  return { details: listDetails(total, at), result: rows.map(toOrgView) };
}

/** The instance's default organisation, the one it was created with (admin API GetDefaultOrg, `iam.read`). */
export async function getDefaultOrg(store: Store, ctx: RequestContext): Promise<OrgView> {
  requirePermission(ctx, 'iam.read');
  const instance = await store.read.instance.get();
  const org = instance && (await store.read.orgs.get(instance.defaultOrgId));
  if (!org) throw notFound('QUERY-1Nf8s', 'Organisation not found');
  return toOrgView(org);
}

/** Any organisation of the instance by id (admin API, `iam.read`). */
export async function getOrgById(store: Store, ctx: RequestContext, orgId: string): Promise<OrgView> {
  requirePermission(ctx, 'iam.read');
  const org = await store.read.orgs.get(orgId);
  if (!org) throw notFound('QUERY-1Nf8s', 'Organisation not found');
  return toOrgView(org);
}
