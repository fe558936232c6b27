/**
 * One-time codes sent by mail (ZITADEL's email verification and initialisation codes): six
 * characters of A–Z and 0–9, stored as SHA-256, expiring, at most MAX_CODE_ATTEMPTS wrong tries;
 * a new code of a kind replaces the previous one, which stops working. A verification code is
 * bound to the address it was sent to: after an email change it no longer verifies anything.
 * Checks also go through the code throttle (login/code-throttle.ts), like every short code typed
 * for a user: with 36^6 codes and five tries each they are not guessable, but one rule holds for all.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Repositories } from '../../store/store.js';
import { type CodeChecksThrottled, codeCheckTurn } from '../login/code-throttle.js';

export type CodeKind = 'email_verification' | 'init' | 'password_reset';
export const CODE_TTL_MS: Record<CodeKind, number> = { email_verification: 60 * 60_000, init: 72 * 60 * 60_000, password_reset: 60 * 60_000 };
export const MAX_CODE_ATTEMPTS = 5;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const hash = (code: string) => createHash('sha256').update(code.trim().toUpperCase()).digest('hex');

export function newCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** A new code for the user (replacing the previous one of this kind); returns it in plain text. */
export async function issueCode(tx: Repositories, userId: string, kind: CodeKind, email: string, now = new Date()): Promise<{ code: string; expiresAt: Date }> {
  const code = newCode();
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS[kind]);
  await tx.notifications.putCode({ userId, kind, codeHash: hash(code), email, attempts: 0, expiresAt, createdAt: now });
  return { code, expiresAt };
}

export type CodeCheck = 'ok' | 'none' | 'expired' | 'wrong' | 'exhausted' | 'superseded';

/**
 * Checks `code` and counts a wrong one. The caller's transaction must commit even when the answer
 * is not 'ok' (the count is the point): return the answer and refuse after the transaction. It
 * must lock the user (the throttle's count is read, then written); a comparison too soon after
 * wrong codes is answered with the throttle's refusal, the code unlooked-at.
 */
export async function checkCode(tx: Repositories, userId: string, kind: CodeKind, code: string, currentEmail: string, now = new Date()): Promise<CodeCheck | CodeChecksThrottled> {
  const row = await tx.notifications.code(userId, kind);
  if (!row) return 'none';
  if (row.attempts >= MAX_CODE_ATTEMPTS) return 'exhausted';
  if (row.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (row.email.toLowerCase() !== currentEmail.toLowerCase()) return 'superseded';
  // Only the comparison is throttled: what is said above needs no guess (a dead code is dead at once).
  const turn = await codeCheckTurn(tx, userId, kind, now);
  if (turn.throttled) return turn.throttled;
  const given = Buffer.from(hash(code), 'hex');
  if (!timingSafeEqual(given, Buffer.from(row.codeHash, 'hex'))) {
    await tx.notifications.setCodeAttempts(userId, kind, row.attempts + 1);
    await turn.failed();
    return row.attempts + 1 >= MAX_CODE_ATTEMPTS ? 'exhausted' : 'wrong';
  }
  await tx.notifications.removeCode(userId, kind);
  await turn.passed();
  return 'ok';
}

/** What a person is told for each failed check (pages and API errors alike). */
export const CODE_PROBLEM: Record<Exclude<CodeCheck, 'ok'>, string> = {
  none: 'There is no open code for this user: it was used already, or none was sent. Ask for a new mail.',
  expired: 'The code has expired. Ask for a new mail.',
  wrong: 'The code is wrong. Check the mail and try again.',
  exhausted: 'The code was entered wrongly too often and no longer works. Ask for a new mail.',
  superseded: 'The email address changed since this code was sent, so it no longer verifies anything. Use the code of the newest mail.',
};
