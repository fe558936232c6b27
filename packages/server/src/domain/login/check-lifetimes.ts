/**
 * The login policy's check lifetimes (ZITADEL's `passwordCheckLifetime`, `secondFactorCheckLifetime`,
 * `externalLoginCheckLifetime`): a browser that signed in recently is not asked again; once a check
 * its last sign-in made is older than that check's lifetime, it is. `prompt=login` and `max_age` ask
 * regardless (oidc-provider's own checks of its login prompt).
 *
 * What a sign-in checked, and when, is what the authorization server's session already holds: every
 * sign-in through the login ends in one `interactionResult({ login: { accountId, amr } })`, which
 * stamps the session with `loginTs` and the methods (`amr`: `pwd`, `otp`/`mfa`, `fed`). All the checks
 * of one sign-in happen together, so one time serves them all; the policy is the user's organisation's
 * (ZITADEL takes the user's once the user is known). A lifetime that has run out therefore asks for
 * the whole sign-in again, where ZITADEL would ask only for the expired check (e.g. only the second
 * factor after its 18 hours, the password still being within its 10 days). sign-in-standing.ts is
 * where this is asked, beside what the policy requires now.
 */
import { durationSeconds } from '../apps/oidc-config.js';
import type { Login } from '../policies/login.js';

/** Which lifetime covers each authentication method a sign-in records in `amr`. */
const LIFETIME_OF: Record<string, keyof Login> = {
  pwd: 'passwordCheckLifetime',
  otp: 'secondFactorCheckLifetime',
  mfa: 'secondFactorCheckLifetime',
  fed: 'externalLoginCheckLifetime',
};

export interface LastSignIn {
  userId: string;
  /** When it happened, in seconds since the epoch (the session's `loginTs`). */
  at?: number;
  /** What it checked (the session's `amr`). */
  amr?: string[];
}

/** Whether a check of the last sign-in has outlived its lifetime under `policy` (the user's organisation's). */
export function checksOutlived(policy: Login, last: Omit<LastSignIn, 'userId'>, nowMs = Date.now()): boolean {
  if (typeof last.at !== 'number') return true;
  const methods = (last.amr ?? []).filter((m) => m in LIFETIME_OF);
  // A session that says nothing of how it was made is held to the password's lifetime.
  const lifetimes = (methods.length ? methods : ['pwd']).map((m) => durationSeconds(String(policy[LIFETIME_OF[m]!])) ?? 0);
  const age = nowMs / 1000 - last.at;
  // As ZITADEL: a check is good while `checkedAt + lifetime` is after now (a lifetime of 0s always asks).
  return lifetimes.some((lifetime) => age >= lifetime);
}
