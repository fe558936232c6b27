/**
 * Reads of identity-provider configurations (reference §3.3). The management side sees the
 * context organisation's providers and the instance's (`IDP_OWNER_TYPE_SYSTEM`); the admin side
 * sees the instance's only.
 */

import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { invalidArgument } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';
import { type IdpFieldName, type IdpOwnerType, type IdpScope, type IdpView, idpNotFound, toIdpView } from './idp.js';

/** Where a scope reads from: an organisation also reads the instance's providers. */
function readableOwners(ctx: RequestContext, scope: IdpScope): string[] {
  return scope.ownerType === 'IDP_OWNER_TYPE_ORG' ? [scope.ownerId, ctx.instanceId] : [scope.ownerId];
}

export async function getIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<IdpView> {
  requirePermission(ctx, scope.read);
  const row = await store.read.idps.get(idpId);
  if (!row || !readableOwners(ctx, scope).includes(row.ownerId)) throw idpNotFound();
  return toIdpView(row);
}

export interface IdpQuery {
  idpIdQuery?: { id: string };
  idpNameQuery?: { name: string; method?: TextQueryMethod };
  ownerTypeQuery?: { ownerType: Exclude<IdpOwnerType, 'IDP_OWNER_TYPE_UNSPECIFIED'> };
}

export interface ListIdpsInput {
  query?: ListQueryInput;
  sortingColumn?: IdpFieldName;
  queries?: IdpQuery[];
}

export async function listIdps(store: Store, ctx: RequestContext, scope: IdpScope, input: ListIdpsInput): Promise<{ details: ListDetails; sortingColumn: IdpFieldName; result: IdpView[] }> {
  requirePermission(ctx, scope.read);
  const page = toPage(input.query);
  const filter: { id?: string; name?: ReturnType<typeof textMatch>; ownerType?: string } = {};
  // Several queries must all hold: two different ids (or owner types) can match nothing.
  let contradictory = false;
  const narrow = (key: 'id' | 'ownerType', value: string) => {
    if (filter[key] !== undefined && filter[key] !== value) contradictory = true;
    filter[key] = value;
  };
  for (const [index, query] of (input.queries ?? []).entries()) {
    const set = Object.values(query).filter((value) => value !== undefined);
    if (set.length !== 1) throw invalidArgument('API-Qu3ry', `invalid queries[${index}]: exactly one of idpIdQuery, idpNameQuery, ownerTypeQuery must be set`);
    if (query.idpIdQuery) narrow('id', query.idpIdQuery.id);
    if (query.ownerTypeQuery) narrow('ownerType', query.ownerTypeQuery.ownerType);
    if (query.idpNameQuery) {
      if (filter.name) throw invalidArgument('API-Qu3ry', `invalid queries[${index}]: at most one idpNameQuery`);
      filter.name = textMatch(query.idpNameQuery.name, query.idpNameQuery.method);
    }
  }
  const sortingColumn = input.sortingColumn ?? 'IDP_FIELD_NAME_UNSPECIFIED';
  const viewedAt = new Date();
  if (contradictory) return { details: listDetails(0, viewedAt), sortingColumn, result: [] };
  const { total, rows } = await store.read.idps.search({
    ownerIds: readableOwners(ctx, scope),
    ...filter,
    sortBy: sortingColumn === 'IDP_FIELD_NAME_NAME' ? 'name' : 'created',
    ...page,
  });
  return { details: listDetails(total, viewedAt), sortingColumn, result: rows.map(toIdpView) };
}
