/**
 * A user's second factors (ZITADEL's v1 ListHumanAuthFactors and RemoveHumanAuthFactorOTP). The
 * only kind this service has is the authenticator app (TOTP), brought by an import with `withOtp` or
 * set up by the user (domain/users/otp-enrolment.ts); domain/login/totp.ts checks it at sign-in. Removing it is how an
 * administrator helps a user who lost the phone: the next sign-in asks for the password only.
 */
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import type { ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userInContextOrg, userToChange } from './guard.js';
import { removeOtpOf } from './otp-enrolment.js';

/** ZITADEL's user.v1.AuthFactor, as far as this service has factors. */
export interface AuthFactorView {
  state: 'AUTH_FACTOR_STATE_READY';
  otp: Record<string, never>;
}

export async function listHumanAuthFactors(store: Store, ctx: RequestContext, userId: string): Promise<{ result: AuthFactorView[] }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'QUERY-Dfg3e');
  const secret = user.type === 'human' ? await store.read.logins.otpSecret(user.id) : undefined;
  return { result: secret ? [{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }] : [] };
}

export async function removeHumanAuthFactorOtp(store: Store, ctx: RequestContext, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      const user = await userToChange(tx, ctx, userId, 'COMMAND-5M0ds');
      if (!(await tx.logins.otpSecret(user.id))) throw notFound('COMMAND-3Mif9s', 'The user has no authenticator app (OTP) set up');
      return removeOtpOf(tx, user, ctx.caller.userId);
    },
    [[USER_AGGREGATE, userId]],
  );
}
