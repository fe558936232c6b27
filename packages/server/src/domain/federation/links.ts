/**
 * Users' links to identities at identity providers (ZITADEL's ListHumanLinkedIDPs and
 * RemoveHumanLinkedIDP), and what other writes do to them: a removed provider takes its links
 * with it (`user.human.externalidp.cascade.removed` on each user, as ZITADEL does); a removed user
 * its own (covered by `user.removed`). A deactivated provider keeps its links; it only stops
 * signing people in until it is reactivated.
 */

import type { IdpLinkRow } from '../../store/repositories/idp-links.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { userInContextOrg, userToChange } from '../users/guard.js';

/** ZITADEL's idp.v1.IDPUserLink. */
export interface IdpUserLinkView {
  userId: string;
  idpId: string;
  idpName: string;
  providedUserId: string;
  providedUserName: string;
  idpType: 'IDP_TYPE_UNSPECIFIED' | 'IDP_TYPE_OIDC' | 'IDP_TYPE_JWT';
}

export async function toLinkViews(read: Repositories, rows: IdpLinkRow[]): Promise<IdpUserLinkView[]> {
  const idps = new Map<string, { name: string; idpType: string } | undefined>();
  for (const id of new Set(rows.map((r) => r.idpId))) idps.set(id, await read.idps.get(id));
  return rows.map((row) => ({
    userId: row.userId,
    idpId: row.idpId,
    idpName: idps.get(row.idpId)?.name ?? '',
    providedUserId: row.externalUserId,
    providedUserName: row.externalUserName,
    idpType: idps.get(row.idpId)?.idpType === 'IDP_TYPE_OIDC' ? 'IDP_TYPE_OIDC' : 'IDP_TYPE_JWT',
  }));
}

export async function listHumanLinkedIdps(store: Store, ctx: RequestContext, userId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: IdpUserLinkView[] }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'QUERY-Nf9ff');
  const at = new Date();
  const { total, rows } = await store.read.idpLinks.listByUser(user.id, toPage(input.query));
  return { details: listDetails(total, at), result: await toLinkViews(store.read, rows) };
}

export async function removeHumanLinkedIdp(store: Store, ctx: RequestContext, userId: string, idpId: string, linkedUserId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      // A link is a way to sign in as the user: removing one is a credential change.
      const user = await userToChange(tx, ctx, userId, 'COMMAND-1M8fa');
      const link = await tx.idpLinks.get(idpId, linkedUserId);
      if (!link || link.userId !== user.id) throw notFound('COMMAND-1M9xR', 'External IDP not found');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.human.externalidp.removed',
        payload: { idpConfigId: idpId, userId: linkedUserId },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.idpLinks.remove(idpId, linkedUserId);
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/** Inside a provider's removal: its links go, each with an event on its user. */
export async function cascadeIdpRemoval(tx: Repositories, ctx: RequestContext, idpId: string): Promise<void> {
  for (const link of await tx.idpLinks.listByIdp(idpId)) {
    const event = await tx.events.append({
      aggregateType: USER_AGGREGATE,
      aggregateId: link.userId,
      type: 'user.human.externalidp.cascade.removed',
      payload: { idpConfigId: idpId, userId: link.externalUserId },
      creator: ctx.caller.userId,
      resourceOwner: link.orgId,
    });
    await tx.users.touch(link.userId, event.sequence, event.createdAt);
  }
  await tx.idpLinks.removeByIdp(idpId);
}
