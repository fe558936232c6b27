/**
 * The second factor users already have: a TOTP authenticator app (RFC 6238: SHA-1, 6 digits, 30 s,
 * as ZITADEL sets them up and exports them with `withOtp`). After the password, a user with a
 * secret is asked for the app's code (steps.ts). Failed codes count
 * toward the lockout policy's `maxOtpAttempts`, as failed passwords toward `maxPasswordAttempts`,
 * and go through the code throttle (code-throttle.ts), whatever that policy says.
 *
 * Codes are accepted one step (30 s) either side of now, for clock drift; a code, once accepted,
 * cannot be used again for the same or an earlier step (the last accepted step is kept in
 * `otp_checks`; the wrong codes since the last right one are the code throttle's count, 'otp').
 */
import { Secret, TOTP } from 'otpauth';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Store } from '../../store/store.js';
import { lockout } from '../policies/lockout.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { mayAuthenticate } from '../users/may-authenticate.js';
import { openOtpSecret } from '../users/otp-secret.js';
import { type CodeChecksThrottled, codeCheckTurn } from './code-throttle.js';

export const TOTP_PERIOD_S = 30;
/** Steps either side of now that are accepted (clock drift between the phone and the server). */
export const TOTP_WINDOW = 1;

export type TotpOutcome =
  | { ok: true }
  | { ok: false; reason: 'invalid_code' | 'locked' | 'inactive' }
  /** Too early after wrong codes (code-throttle.ts): the code was not looked at. */
  | { ok: false; reason: 'throttled'; throttled: CodeChecksThrottled };

const totpFor = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret.replace(/[\s=]/g, '').toUpperCase()), algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S });

/** The time step a code matches (within the window), or undefined. A malformed secret matches nothing. */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  try {
    const delta = totpFor(secret).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
    return delta === null ? undefined : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
  } catch {
    return undefined; // not base32: an imported secret no app could have used
  }
}

/** The current code for a secret (tests, and the documentation's examples). */
export const totpCode = (secret: string, now = Date.now()) => totpFor(secret).generate({ timestamp: now });

/**
 * Checks the code of a user whose password was just accepted. The outcome and the counter are
 * written in one transaction with the events (`user.human.mfa.otp.check.succeeded|failed`,
 * `user.locked` when the policy's limit is reached). The counter is the code throttle's ('otp'):
 * a check too soon after wrong codes is refused unlooked-at (`throttled`).
 */
export async function checkTotpLogin(store: Store, secrets: SecretBox, instanceId: string, userId: string, code: string, now = Date.now()): Promise<TotpOutcome> {
  const user = await store.read.users.get(userId);
  if (!user) return { ok: false, reason: 'inactive' };
  const policy = await lockout.effective(store.read, instanceId, user.orgId);
  return store.transaction(
    async (tx) => {
      const at = new Date(now);
      const current = await tx.users.get(userId);
      if (!current || current.state === 'USER_STATE_LOCKED') return { ok: false, reason: 'locked' } as const;
      if (!mayAuthenticate(current.state)) return { ok: false, reason: 'inactive' } as const;
      const stored = await tx.logins.otpSecret(userId);
      // Removed between the password and the code: nothing to check against, so no sign-in.
      if (!stored) return { ok: false, reason: 'inactive' } as const;
      const turn = await codeCheckTurn(tx, userId, 'otp', at);
      if (turn.throttled) return { ok: false, reason: 'throttled', throttled: turn.throttled } as const;
      const secret = openOtpSecret(secrets, stored);
      const emit = (type: string, payload: Record<string, unknown> = {}) =>
        tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: userId, type, payload, creator: userId, resourceOwner: current.orgId }, at);

      const step = matchingStep(secret, code, now);
      const lastStep = await tx.logins.lastOtpStep(userId);
      if (step === undefined || (lastStep !== undefined && step <= lastStep)) {
        const failures = await turn.failed();
        let event = await emit('user.human.mfa.otp.check.failed');
        const lock = policy.maxOtpAttempts > 0 && failures >= policy.maxOtpAttempts;
        if (lock) event = await emit('user.locked', { failedOtpAttempts: failures });
        if (lock) await tx.logins.setUserState(userId, 'USER_STATE_LOCKED', event.sequence, at);
        else await tx.logins.moveUserSequence(userId, event.sequence);
        return { ok: false, reason: lock ? 'locked' : 'invalid_code' } as const;
      }
      await turn.passed();
      await tx.logins.setLastOtpStep(userId, step, at);
      const event = await emit('user.human.mfa.otp.check.succeeded');
      await tx.logins.moveUserSequence(userId, event.sequence);
      return { ok: true } as const;
      // The user's lock: the throttle's count is read, then written, so checks of one user (in any
      // process) take turns and each sees the count the one before wrote.
    },
    [[USER_AGGREGATE, userId]],
  );
}
