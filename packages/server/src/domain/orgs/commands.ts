/**
 * Creating organisations. Names are unique in the instance ignoring case (orgs_name_key backs
 * the check against races), and so is the primary domain derived from the name, since two
 * names can reduce to one DNS label ("A B" and "a-b").
 */
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, invalidArgument } from '../errors.js';
import { newId } from '../ids.js';
import { domainLock, orgPrimaryDomain } from './domain.js';

export const ORG_AGGREGATE = 'org';

/**
 * Creates the organisation and makes the caller its ORG_OWNER, as ZITADEL's AddOrg does.
 * Requires `org.create` (IAM_OWNER, IAM_ORG_MANAGER): ZITADEL lets any authenticated user
 * create organisations, which would let every machine user of any organisation spawn new ones.
 */
export async function addOrg(store: Store, ctx: RequestContext, input: { name: string }): Promise<{ id: string; details: ObjectDetails }> {
  requirePermission(ctx, 'org.create');
  const name = input.name.trim();
  if (!name) throw invalidArgument('ORG-mruNY', 'invalid name: value is required and must not be empty');
  const id = newId();
  // The instance's domain is set once, at the first start.
  const primaryDomain = orgPrimaryDomain(name, (await store.read.instance.get())?.domain ?? 'localhost');
  return store.transaction(
    async (tx) => {
      if (await tx.orgs.getByNameKey(name.toLowerCase())) throw alreadyExists('V3-DKcYh', 'Organisation name already taken');
      if (await tx.orgs.getByPrimaryDomain(primaryDomain)) {
        throw alreadyExists('V3-DKcYh', `Organisation domain already taken: ${primaryDomain}`);
      }
      const added = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: id,
        type: 'org.added',
        payload: { name, primaryDomain },
        creator: ctx.caller.userId,
        resourceOwner: id,
      });
      const member = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: id,
        type: 'org.member.added',
        payload: { userId: ctx.caller.userId, roles: ['ORG_OWNER'] },
        creator: ctx.caller.userId,
        resourceOwner: id,
      });
      await tx.orgs.insert({
        id,
        name,
        nameKey: name.toLowerCase(),
        state: 'ORG_STATE_ACTIVE',
        primaryDomain,
        sequence: member.sequence,
        createdAt: added.createdAt,
        changedAt: member.createdAt,
      });
      await tx.members.insert({
        scopeType: 'org',
        scopeId: id,
        userId: ctx.caller.userId,
        resourceOwner: id,
        roles: ['ORG_OWNER'],
        sequence: member.sequence,
        createdAt: member.createdAt,
        changedAt: member.createdAt,
      });
      return { id, details: addedDetails(member) };
      // The domain's lock: two names can reduce to one domain, which no unique index covers.
    },
    [domainLock(primaryDomain)],
  );
}
