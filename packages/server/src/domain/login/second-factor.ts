/**
 * What the login asks after the first factor (a password, or an identity provider), by the login
 * policy of the user's organisation, as ZITADEL's login decides it (`mfaChecked` in its auth
 * request repository):
 * - a user with an authenticator app gives its code after a password (always, as before this
 *   policy acted), and after an identity provider when a second factor is forced for such sign-ins;
 * - `forceMfa` (with `forceMfaLocalOnly`: only after a password, not after an identity provider):
 *   a user without an app must set one up before any code or token is issued; when the policy's
 *   `secondFactors` has no authenticator app (`SECOND_FACTOR_TYPE_OTP`), nothing can be set up and
 *   the sign-in is refused (ZITADEL's `LOGIN-5Hm8s` "multifactor forced but not configured");
 * - otherwise a user without an app who signed in with a password is offered to set one up, with a
 *   skip button; a skip is remembered per user and the offer comes again once `mfaInitSkipLifetime`
 *   has passed since. A lifetime of 0 never offers (ZITADEL treats 0 as "skipped"), nor does a
 *   policy without the authenticator app among its `secondFactors`. The offer is not made after an
 *   identity provider or while linking one (the provider vouches for the person).
 */
import type { Repositories, Store } from '../../store/store.js';
import { durationSeconds } from '../apps/oidc-config.js';
import { type Login, login } from '../policies/login.js';
import { USER_AGGREGATE } from '../users/aggregate.js';

export type SecondFactorStep =
  /** Nothing more to ask. */
  | 'none'
  /** The authenticator app's code (domain/login/totp.ts). */
  | 'otp'
  /** Set up an app; the sign-in cannot go on without it. */
  | 'enrol-required'
  /** Set up an app, or skip. */
  | 'enrol-offered'
  /** A second factor is forced but the policy allows none this service has. */
  | 'not-configured';

/** How the user showed who they are: a password at the login form, the same to link a provider's identity, or a provider. */
export type FirstFactor = 'password' | 'password-link' | 'provider';

const OTP = 'SECOND_FACTOR_TYPE_OTP';

/** What the policy requires after this first factor of a user with or without an app; undefined: nothing (an offer may follow). */
export function requiredSecondFactor(policy: Login, hasApp: boolean, first: FirstFactor): Exclude<SecondFactorStep, 'none' | 'enrol-offered'> | undefined {
  const local = first !== 'provider';
  const forced = policy.forceMfa && (!policy.forceMfaLocalOnly || local);
  if (hasApp) return local || forced ? 'otp' : undefined;
  if (forced) return policy.secondFactors.includes(OTP) ? 'enrol-required' : 'not-configured';
  return undefined;
}

/**
 * `hasApp`: whether the user has an authenticator app, when the caller has just read it (the
 * password check has, in its transaction): not read again.
 */
export async function secondFactorStep(
  read: Repositories,
  instanceId: string,
  user: { id: string; orgId: string },
  first: FirstFactor,
  { hasApp, now = Date.now() }: { hasApp?: boolean; now?: number } = {},
): Promise<SecondFactorStep> {
  const [policy, app] = await Promise.all([login.effective(read, instanceId, user.orgId), hasApp ?? read.logins.otpSecret(user.id).then((secret) => secret !== undefined)]);
  const required = requiredSecondFactor(policy, app, first);
  if (required) return required;
  if (app || first !== 'password' || !policy.secondFactors.includes(OTP)) return 'none';
  const lifetimeMs = (durationSeconds(policy.mfaInitSkipLifetime) ?? 0) * 1000;
  if (lifetimeMs === 0) return 'none';
  const skipped = await read.otpEnrolment.initSkippedAt(user.id);
  return skipped && skipped.getTime() + lifetimeMs > now ? 'none' : 'enrol-offered';
}

/**
 * The user skipped the offer (ZITADEL's `user.human.mfa.init.skipped`): not offered again within
 * `mfaInitSkipLifetime`. The secret the offer's page showed is discarded with it (never confirmed,
 * it was no factor).
 */
export async function skipSecondFactorSetup(store: Store, userId: string, at = new Date()): Promise<void> {
  await store.transaction(
    async (tx) => {
      const user = await tx.users.get(userId);
      if (!user) return;
      const discarded = (await tx.otpEnrolment.pending(user.id)) !== undefined;
      const event = await tx.events.append(
        { aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.human.mfa.init.skipped', payload: { discardedUnconfirmedApp: discarded }, creator: user.id, resourceOwner: user.orgId },
        at,
      );
      await tx.otpEnrolment.removePending(user.id);
      await tx.otpEnrolment.setInitSkipped(user.id, at);
      await tx.users.change(user.id, {}, event.sequence, event.createdAt);
    },
    [[USER_AGGREGATE, userId]],
  );
}
