/**
 * The one throttle on short codes a person types for a user: the sign-in's authenticator code
 * (login/totp.ts), the code that confirms an app being set up (users/otp-enrolment.ts, the login's
 * step and the auth API), and the mailed codes (notifications/codes.ts: email verification, init,
 * password reset). It holds whatever the lockout policy says (ZITADEL's default `maxOtpAttempts: 0`
 * locks never): before, 300 wrong TOTP codes went through in 2.7 s and the right one was accepted
 * after them, a 50 % chance to guess a code in about 35 minutes from one client.
 *
 * Per user and kind of code, the wrong codes since the last right one are counted in the store
 * (`code_check_failures`, with the time of the last). The first `freeFailures` cost nothing; after
 * that each check must wait `firstWaitS`, doubling with every further failure up to `maxWaitS`,
 * counted from the last failure. A check that comes too early is refused without looking at the
 * code and without counting (the caller answers 429 with the seconds left), so a flood gains
 * nothing and does not push the wait out further; the right code resets the count. The wait is
 * capped, so whoever floods a user's codes keeps the real user waiting at most `maxWaitS` per try,
 * never for good. Kinds are counted apart, so wrong mailed codes (which anyone can post for any
 * user) do not slow down that user's sign-in code.
 *
 * Checks of one user take turns in every process: each caller checks inside a transaction that
 * locks the user (ARCHITECTURE.md, "Locks before checks"), so concurrent guesses are serialised and
 * each sees the count the previous one wrote.
 *
 * What that allows, from any number of clients, against one user's authenticator code (three steps
 * of 30 s accepted, so 3 codes in 10^6 per guess): 3 free guesses, then one after 1, 2, 4 … 256 s,
 * then one every 300 s — 22 in the first hour, 12 an hour after (docs/sign-in-and-policies.md, "Authenticator apps"):
 * about 2.2 years for a 50 % chance, where it was 35 minutes.
 */

import type { CodeKindCounted } from '../../store/repositories/logins.js';
import type { Repositories } from '../../store/store.js';
import { RateLimited } from '../errors.js';

export type { CodeKindCounted };

export const CODE_THROTTLE = {
  /** Wrong codes that cost no wait (a typo or two, a code read off a changing screen). */
  freeFailures: 3,
  /** The wait after the first failure beyond the free ones; doubled with each further one. */
  firstWaitS: 1,
  /** The longest wait: the real user is never kept out longer than this per try. */
  maxWaitS: 300,
} as const;

/** Seconds a check must wait after the last of `failures` wrong codes. */
export function waitAfterFailures(failures: number): number {
  const beyond = failures - CODE_THROTTLE.freeFailures;
  if (beyond < 0) return 0;
  return Math.min(CODE_THROTTLE.maxWaitS, CODE_THROTTLE.firstWaitS * 2 ** beyond);
}

/** A code check that came before the wait was over: 429 with `Retry-After`, or a page that says how long. */
export class CodeChecksThrottled extends RateLimited {
  constructor(retryAfterSeconds: number) {
    super('CODE-w41t1', `Too many wrong codes for this user: wait ${retryAfterSeconds} s, then try again.`, retryAfterSeconds);
  }
}

/** What a page says when a check came too soon: how long to wait, then what to enter (`what`). */
export function codeWaitText(seconds: number, what: string): string {
  const wait = seconds === 1 ? 'a second' : seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return `Too many wrong codes were entered for this account. Wait ${wait}, then enter ${what}.`;
}

/** One check's turn: whether it may look at the code now, and how to record what it found. */
export interface CodeCheckTurn {
  /** Set when the check must not look at the code: the refusal to give (nothing was counted). */
  throttled?: CodeChecksThrottled;
  /** Wrong codes of this kind so far, before this check. */
  failures: number;
  /** Counts a wrong code; returns the count with it. */
  failed(): Promise<number>;
  /** The right code: the count starts again. */
  passed(): Promise<void>;
}

/**
 * Takes the turn of a check of `kind` for `userId`. Call it inside the transaction that checks the
 * code, which must lock the user (`[USER_AGGREGATE, userId]`), before anything of the code is
 * read; when `throttled` is set, give that refusal and write nothing.
 */
export async function codeCheckTurn(tx: Repositories, userId: string, kind: CodeKindCounted, at: Date): Promise<CodeCheckTurn> {
  const stored = await tx.logins.codeFailures.get(userId, kind);
  const failures = stored?.count ?? 0;
  const waitMs = stored ? stored.lastFailureAt.getTime() + waitAfterFailures(failures) * 1000 - at.getTime() : 0;
  return {
    failures,
    throttled: waitMs > 0 ? new CodeChecksThrottled(Math.ceil(waitMs / 1000)) : undefined,
    async failed() {
      await tx.logins.codeFailures.set(userId, kind, failures + 1, at);
      return failures + 1;
    },
    async passed() {
      if (stored) await tx.logins.codeFailures.clear(userId, [kind]);
    },
  };
}
