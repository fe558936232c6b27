/**
 * Whether an earlier sign-in still stands under the login policy of the user's organisation *as it
 * is now*: the one rule every issuance for a person asks before it acts on a sign-in made earlier —
 * an authorization with the browser's session (oidc/interaction-policy.ts), a code's exchange and a
 * refresh (oidc-provider's `findAccount`, oidc/provider.ts).
 *
 * A sign-in stands when
 * - its user still exists (whether it may authenticate is `findAccount`'s own check),
 * - it gave the second factor the policy requires today after its first factor (second-factor.ts:
 *   an app's code for a user who has an app, `forceMfa` for one without; `amr` says what it gave), and
 * - none of its checks has outlived its lifetime (check-lifetimes.ts), counting the second factor it
 *   still owes as if given now under the sign-in's one time (so a session too old for the factor's
 *   lifetime signs in again rather than giving a code that would be outlived at once).
 *
 * What it lacks decides what follows: a browser is led to just the missing step (`otp`, or
 * `otp-setup` where the policy forces an app on a user without one) and then goes on with its
 * session, refused where the policy forces a factor none can be set up for, or signs in again; a
 * code or a refresh token is refused (`invalid_grant`). Before this rule a forced second factor was
 * asked only at the next full sign-in: a browser signed in before `forceMfa` was set, and its refresh
 * tokens, went on getting tokens (issue 47).
 */
import type { Repositories } from '../../store/store.js';
import { login } from '../policies/login.js';
import { checksOutlived, type LastSignIn } from './check-lifetimes.js';
import { type FirstFactor, requiredSecondFactor } from './second-factor.js';

export type SignInStanding =
  | { stands: true }
  /** The whole sign-in again: the user is gone, or a check outlived its lifetime. */
  | { stands: false; lacks: 'sign-in' }
  /** The authenticator app's code. */
  | { stands: false; lacks: 'otp' }
  /** Setting up an authenticator app (forced on a user who has none). */
  | { stands: false; lacks: 'otp-setup' }
  /** A second factor is forced and none can be set up: no sign-in of this user stands. */
  | { stands: false; lacks: 'refused' };

/** The login prompt's reason for a session that lacks only the second factor (oidc/interaction-policy.ts; steps.ts leads it there). */
export const SECOND_FACTOR_REASON = 'second_factor';

/** What `second_factor` leaves in the prompt's details for the login page. */
export type SecondFactorDetails = {
  /** When the session's sign-in was made (its `loginTs`), kept through the step. */
  signedInAt?: number;
};

export interface StandingOptions {
  nowMs?: number;
  /**
   * Whether the check lifetimes count (default). A code's exchange does not ask them again: the
   * authorization that issued it a moment ago did, and a lifetime of 0 s means "ask at every
   * authorization", not "refuse every code".
   */
  lifetimes?: boolean;
}

/** The first factor a sign-in's `amr` records: a provider's (`fed`) unless a password was given. */
const firstFactorOf = (amr: readonly string[]): FirstFactor => (amr.includes('fed') && !amr.includes('pwd') ? 'provider' : 'password');

export async function signInStanding(read: Repositories, instanceId: string, signIn: LastSignIn, options: StandingOptions = {}): Promise<SignInStanding> {
  const user = await read.users.get(signIn.userId);
  if (!user) return { stands: false, lacks: 'sign-in' };
  const amr = signIn.amr ?? [];
  const [policy, secret] = await Promise.all([login.effective(read, instanceId, user.orgId), amr.includes('mfa') ? undefined : read.logins.otpSecret(user.id)]);
  // A sign-in that gave a second factor has what any policy here can ask (one kind of factor: the app).
  const owed = amr.includes('mfa') ? undefined : requiredSecondFactor(policy, secret !== undefined, firstFactorOf(amr));
  if (owed === 'not-configured') return { stands: false, lacks: 'refused' };
  if (options.lifetimes !== false && checksOutlived(policy, { at: signIn.at, amr: owed ? [...amr, 'otp', 'mfa'] : amr }, options.nowMs)) {
    return { stands: false, lacks: 'sign-in' };
  }
  if (owed === 'otp') return { stands: false, lacks: 'otp' };
  if (owed === 'enrol-required') return { stands: false, lacks: 'otp-setup' };
  return { stands: true };
}

/** Why a grant is refused, for the `invalid_grant` a client gets. */
export function standingRefusal(lacks: Exclude<SignInStanding, { stands: true }>['lacks']): string {
  switch (lacks) {
    case 'sign-in':
      return 'the sign-in this grant came from is no longer valid under the login policy (its user is gone or a check outlived its lifetime): sign in again';
    case 'refused':
      return 'the login policy forces a second factor that cannot be set up for this user: ask an administrator';
    default:
      return 'the login policy now requires a second factor that the sign-in this grant came from did not give: sign in again';
  }
}
