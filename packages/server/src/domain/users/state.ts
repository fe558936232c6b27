/**
 * A user's state by hand (ZITADEL's v1 DeactivateUser, ReactivateUser, LockUser, UnlockUser). A
 * deactivated or locked user cannot sign in and its tokens stop working (auth/authenticate.ts,
 * oidc/access-tokens.ts: within the authentication cache's second). Unlocking also forgets the
 * failed password checks the lockout policy counted.
 */
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition } from '../errors.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userToChange } from './guard.js';
import type { UserState } from './view.js';

interface Transition {
  event: string;
  /** The states it starts from, and the refusal otherwise (ZITADEL's ids). */
  from: UserState[];
  refuse: [id: string, message: string];
  to: UserState;
}

const TRANSITIONS = {
  deactivate: {
    event: 'user.deactivated',
    from: ['USER_STATE_ACTIVE', 'USER_STATE_LOCKED'],
    refuse: ['COMMAND-ke0fw', 'User is not active (an initial user cannot be deactivated)'],
    to: 'USER_STATE_INACTIVE',
  },
  reactivate: { event: 'user.reactivated', from: ['USER_STATE_INACTIVE'], refuse: ['COMMAND-6M0sf', 'User is not inactive'], to: 'USER_STATE_ACTIVE' },
  lock: { event: 'user.locked', from: ['USER_STATE_ACTIVE', 'USER_STATE_INITIAL'], refuse: ['COMMAND-3NN8v', 'User is not active or initial'], to: 'USER_STATE_LOCKED' },
  unlock: { event: 'user.unlocked', from: ['USER_STATE_LOCKED'], refuse: ['COMMAND-4M0ds', 'User is not locked'], to: 'USER_STATE_ACTIVE' },
} as const satisfies Record<string, Transition>;

export type UserStateChange = keyof typeof TRANSITIONS;

export async function changeUserState(store: Store, ctx: RequestContext, userId: string, change: UserStateChange): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const t: Transition = TRANSITIONS[change];
  return store.transaction(
    async (tx) => {
      const user = await userToChange(tx, ctx, userId, 'COMMAND-m0gDf');
      if (!t.from.includes(user.state as UserState)) throw failedPrecondition(...t.refuse);
      const event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: t.event, payload: {}, creator: ctx.caller.userId, resourceOwner: user.orgId });
      await tx.users.change(user.id, { state: t.to }, event.sequence, event.createdAt);
      if (change === 'unlock') await tx.logins.clearFailures(user.id);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}
