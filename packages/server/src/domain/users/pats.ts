/**
 * Personal access tokens of machine users (reference §7.5). The token is 32 random bytes shown
 * once; only its sha-256 is stored, and removing the token row makes it fail authentication.
 */
import { generateToken, hashToken, NO_EXPIRY } from '../../auth/tokens.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { invalidArgument, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { USER_AGGREGATE } from './aggregate.js';
import { machineUserToChange, userInContextOrg, userToChange } from './guard.js';

export interface AddedToken {
  tokenId: string;
  token: string;
  details: ObjectDetails;
}

export interface TokenView {
  id: string;
  details: ObjectDetails;
  expirationDate: string;
}

export async function addPersonalAccessToken(store: Store, ctx: RequestContext, userId: string, input: { expirationDate?: string }): Promise<AddedToken> {
  requirePermission(ctx, 'user.write');
  const expiresAt = input.expirationDate ? new Date(input.expirationDate) : NO_EXPIRY;
  if (expiresAt.getTime() <= Date.now()) throw invalidArgument('DOMAIN-dv3t5', 'invalid expirationDate: the expiration date is in the past');
  const tokenId = newId();
  const token = generateToken();
  return store.transaction(
    async (tx) => {
      const user = await machineUserToChange(tx, ctx, userId, 'COMMAND-Dggw2', 'personal access tokens');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.personal.access.token.added',
        payload: { tokenId, expirationDate: expiresAt.toISOString() },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.tokens.insert({
        id: tokenId,
        userId: user.id,
        tokenHash: hashToken(token),
        expiresAt,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      return { tokenId, token, details: addedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

export async function listPersonalAccessTokens(store: Store, ctx: RequestContext, userId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: TokenView[] }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'QUERY-Dfbg2');
  const at = new Date();
  const { total, rows } = await store.read.tokens.listByUser(user.id, toPage(input.query));
  return {
    details: listDetails(total, at),
    result: rows.map((row) => ({ id: row.id, details: viewDetails(row, user.orgId), expirationDate: row.expiresAt.toISOString() })),
  };
}

export async function removePersonalAccessToken(store: Store, ctx: RequestContext, userId: string, tokenId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      const user = await userToChange(tx, ctx, userId, 'COMMAND-Dggw2');
      const token = await tx.tokens.getForUser(user.id, tokenId);
      if (!token) throw notFound('COMMAND-4m77G', 'Personal Access Token not found');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.personal.access.token.removed',
        payload: { tokenId },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.tokens.remove(token.id);
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}
