/**
 * Client secrets of machine users (ZITADEL's GenerateMachineSecret / RemoveMachineSecret): with
 * one, the machine user gets tokens by the client-credentials grant (client_id = its user name)
 * as an alternative to personal access tokens. The secret is 32 random bytes shown once; only its
 * sha-256 is stored. Generating again replaces the previous secret.
 */
import { generateToken, hashToken } from '../../auth/tokens.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import { USER_AGGREGATE } from './aggregate.js';
import { machineUserToChange } from './guard.js';

export async function generateMachineSecret(store: Store, ctx: RequestContext, userId: string): Promise<{ clientId: string; clientSecret: string; details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const clientSecret = generateToken();
  return store.transaction(
    async (tx) => {
      const user = await machineUserToChange(tx, ctx, userId, 'COMMAND-x8910', 'client secrets');
      const existing = await tx.logins.machineSecrets.get(user.id);
      let clientId = existing?.clientId ?? user.userName;
      // User names are unique per organisation only; a clash with another organisation's machine
      // user gets the organisation's domain appended (ZITADEL's login-name form).
      if (!existing && (await tx.logins.machineSecrets.byClientId(clientId))) {
        const org = await tx.orgs.get(user.orgId);
        clientId = `${user.userName}@${org?.primaryDomain ?? user.orgId}`;
      }
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.machine.secret.set',
        payload: { clientId },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.logins.machineSecrets.upsert({ userId: user.id, clientId, secretHash: hashToken(clientSecret), createdAt: event.createdAt });
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      return { clientId, clientSecret, details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

export async function removeMachineSecret(store: Store, ctx: RequestContext, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      const user = await machineUserToChange(tx, ctx, userId, 'COMMAND-x8910', 'client secrets');
      if (!(await tx.logins.machineSecrets.get(user.id))) throw notFound('COMMAND-vtn2x', 'The machine user has no secret');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.machine.secret.removed',
        payload: {},
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.logins.machineSecrets.remove(user.id);
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}
