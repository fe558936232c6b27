import { requirePermission, type RequestContext } from '../context.js';
import { viewDetails, type ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import type { Store } from '../../store/store.js';

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
