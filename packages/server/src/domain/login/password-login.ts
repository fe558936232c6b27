/**
 * The password check behind the login page: resolve the login name to one human user, check
 * its state, verify the password against whatever hash format it was imported with, count
 * failures for the lockout policy, and replace weak or costly imported hashes with argon2id on
 * success. Verification runs in the bounded worker pool of auth/password-verifier.ts: when it is
 * full the outcome is `busy`, when the account already has another password in flight or the
 * client address its share of the queue it is `throttled` (nothing counted either way), and a
 * stored hash beyond the cost bounds is not run but counted as a failed check, with
 * `refusedHash` saying why (for the caller's log). A user who registered itself is signed in only
 * once its address is confirmed (registration.ts); before, its right password is answered as wrong.
 */
import { PasswordChecksThrottled, type PasswordVerifier, passwordVerifier, type VerifyOutcome, verifyPassword } from '../../auth/password-verifier.js';
import { hashPassword } from '../../auth/passwords.js';
import type { UserRow } from '../../store/repositories/users.js';
import type { Repositories, Store } from '../../store/store.js';
import { lockout } from '../policies/lockout.js';
import { isUnstorableText } from '../unstorable-text.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { resolveLoginName } from '../users/login-names.js';
import { mayAuthenticate } from '../users/may-authenticate.js';
import type { HumanData } from '../users/view.js';

/** The initial value of the instance's lockout policy (LOCKOUT_MAX_PASSWORD_ATTEMPTS; domain/policies/lockout.ts). */
export interface LockoutPolicy {
  /** Failed password checks after which the user is locked; 0 = never. */
  maxPasswordAttempts: number;
}

export type LoginOutcome =
  /**
   * `otpRequired`: the user has an authenticator app, whose code comes next (totp.ts);
   * `passwordChangeRequired`: the user must choose a new password before the sign-in goes on.
   */
  | { ok: true; userId: string; orgId: string; rehashed: boolean; otpRequired: boolean; passwordChangeRequired: boolean }
  | {
      ok: false;
      reason: 'invalid_credentials' | 'locked' | 'inactive' | 'busy' | 'throttled';
      /** The stored hash was not run (cost beyond the bounds): why, and whose it is, for the log. */
      refusedHash?: string;
      userId?: string;
    };

/** A user who registered itself at the login page and has not confirmed its address yet (registration.ts). */
async function awaitsConfirmation(tx: Repositories, user: UserRow): Promise<boolean> {
  if (user.state !== 'USER_STATE_INITIAL' || (user.data as unknown as HumanData).email?.isEmailVerified) return false;
  return tx.logins.isSelfRegistered(user.id);
}

/**
 * The human user a typed login name belongs to (users/login-names.ts: the organisation's domain
 * policy decides whether it carries a domain), when exactly one does.
 */
export async function findLoginUser(read: Repositories, instanceId: string, loginName: string): Promise<UserRow | undefined> {
  const key = loginName.trim().toLowerCase();
  // No stored name holds such text, and PostgreSQL refuses to compare against it (a 500).
  if (!key || isUnstorableText(key)) return undefined;
  return resolveLoginName(read, instanceId, key);
}

export async function checkPasswordLogin(
  store: Store,
  instanceId: string,
  loginName: string,
  password: string,
  verifier: PasswordVerifier = passwordVerifier,
  /** The client's address, for the verifier's fairness between addresses (http/client-address.ts). */
  clientAddress?: string,
): Promise<LoginOutcome> {
  const user = await findLoginUser(store.read, instanceId, loginName);
  if (!user) return { ok: false, reason: 'invalid_credentials' };
  if (user.state === 'USER_STATE_LOCKED') return { ok: false, reason: 'locked' };
  if (!mayAuthenticate(user.state)) return { ok: false, reason: 'inactive' };

  // Hashing is slow by design: done before the transaction, which only records the outcome.
  let check: VerifyOutcome = { ok: false };
  try {
    if (user.passwordHash) check = await verifyPassword(password, user.passwordHash, verifier, { account: user.id, client: clientAddress });
  } catch (error) {
    // PasswordChecksBusy (too many at once), PasswordChecksThrottled (this account or address
    // already has its share), or a worker that failed or timed out: nothing was decided about the
    // password, so nothing is counted; the user is asked to try again.
    return { ok: false, reason: error instanceof PasswordChecksThrottled ? 'throttled' : 'busy' };
  }
  const refused = check.refused ? { refusedHash: check.refused, userId: user.id } : {};
  // The lockout policy of the user's organisation (its own, else the instance's).
  const policy = await lockout.effective(store.read, instanceId, user.orgId);
  const newHash = check.ok && check.rehash ? await hashPassword(password) : undefined;

  return store.transaction(
    async (tx) => {
      const at = new Date();
      const emit = (type: string, payload: Record<string, unknown> = {}) =>
        tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type, payload, creator: user.id, resourceOwner: user.orgId }, at);

      const current = await tx.users.get(user.id);
      if (!current || current.state === 'USER_STATE_LOCKED') return { ok: false, reason: 'locked', ...refused } as const;

      if (!check.ok) {
        const failures = (await tx.logins.failures(user.id)) + 1;
        await tx.logins.setFailures(user.id, failures, at);
        let event = await emit('user.human.password.check.failed');
        const lock = policy.maxPasswordAttempts > 0 && failures >= policy.maxPasswordAttempts;
        if (lock) event = await emit('user.locked', { failedPasswordAttempts: failures });
        if (lock) await tx.logins.setUserState(user.id, 'USER_STATE_LOCKED', event.sequence, at);
        else await tx.logins.moveUserSequence(user.id, event.sequence);
        return lock ? ({ ok: false, reason: 'locked', ...refused } as const) : ({ ok: false, reason: 'invalid_credentials', ...refused } as const);
      }

      // A registration whose address is not confirmed: its password does not sign in yet, and the
      // answer is a wrong password's (registration.ts: registering someone else's address must give
      // nothing to sign in with, nor tell that the address was new). Not counted: it was right.
      if (await awaitsConfirmation(tx, current)) return { ok: false, reason: 'invalid_credentials' } as const;

      await tx.logins.clearFailures(user.id, 'password');
      const event = await emit('user.human.password.check.succeeded');
      if (newHash) {
        // Only the new hash's format is recorded, never the hash: events are readable by auditors.
        const updated = await emit('user.human.password.hash.updated', { algorithm: 'argon2id' });
        await tx.logins.setPasswordHash(user.id, newHash, updated.sequence, at);
      } else {
        await tx.logins.moveUserSequence(user.id, event.sequence);
      }
      const otpRequired = (await tx.logins.otpSecret(user.id)) !== undefined;
      return { ok: true, userId: user.id, orgId: current.orgId, rehashed: !!newHash, otpRequired, passwordChangeRequired: current.passwordChangeRequired } as const;
      // The user's lock: the failure count is read, then written, so checks of one user (in any
      // process) must take turns, else two read the same count and the lock comes late and twice.
    },
    [[USER_AGGREGATE, user.id]],
  );
}
