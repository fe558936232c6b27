/**
 * A human user's email and the codes mailed for it (ZITADEL's UpdateHumanEmail,
 * ResendHumanEmailVerification, the verification page and VerifyEmail, and the initialisation
 * with a code). A wrong code is counted (checkCode) in a transaction that commits; the refusal
 * comes after it, so the count survives and nothing else changes.
 */
import { hashPassword } from '../../auth/passwords.js';
import type { UserRow } from '../../store/repositories/users.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { DomainError, failedPrecondition, GrpcCode, invalidArgument } from '../errors.js';
import type { CodeChecksThrottled } from '../login/code-throttle.js';
import { CODE_PROBLEM, type CodeCheck, type CodeKind, checkCode } from '../notifications/codes.js';
import { queueUserMessage } from '../notifications/queue.js';
import { isUnstorableText } from '../unstorable-text.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userToChange } from './guard.js';
import { checkPasswordComplexity } from './password-policy.js';
import type { HumanData } from './view.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const human = (user: UserRow) => user.data as unknown as HumanData;

/** The human whose email the caller changes: the address the password reset goes to, so a credential change. */
async function humanForEmailChange(tx: Repositories, ctx: RequestContext, userId: string) {
  const user = await userToChange(tx, ctx, userId, 'COMMAND-0Gzs3');
  if (user.type !== 'human') throw failedPrecondition('COMMAND-2M0fs', 'User is not a human user');
  return user;
}

async function append(tx: Repositories, user: UserRow, creator: string, type: string, payload: Record<string, unknown>) {
  return tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type, payload, creator, resourceOwner: user.orgId });
}

/** ZITADEL's UpdateHumanEmail: a new address, verified at once or mailed a code. */
export async function updateHumanEmail(store: Store, ctx: RequestContext, userId: string, input: { email: string; isEmailVerified?: boolean }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 200) throw invalidArgument('EMAIL-599BI', 'invalid email: not an email address');
  return store.transaction(
    async (tx) => {
      const user = await humanForEmailChange(tx, ctx, userId);
      const data = human(user);
      const verified = Boolean(input.isEmailVerified);
      if (data.email.email === email && Boolean(data.email.isEmailVerified) === verified) throw failedPrecondition('COMMAND-A8j2F', 'Email not changed');
      let event = await append(tx, user, ctx.caller.userId, 'user.human.email.changed', { email });
      if (verified) event = await append(tx, user, ctx.caller.userId, 'user.human.email.verified', {});
      const next: HumanData = { ...data, email: { email, ...(verified ? { isEmailVerified: true } : {}) } };
      await tx.users.change(user.id, { data: next as unknown as Record<string, unknown> }, event.sequence, event.createdAt);
      // The code mailed for the old address must not verify the new one.
      await tx.notifications.removeCode(user.id, 'email_verification');
      if (!verified) await queueUserMessage(tx, 'verify_email', { id: user.id, orgId: user.orgId, email });
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/** ZITADEL's ResendHumanEmailVerification: a new code by mail; the previous one stops working when it is sent. */
export async function resendEmailVerification(store: Store, ctx: RequestContext, userId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      const user = await humanForEmailChange(tx, ctx, userId);
      if (human(user).email.isEmailVerified) throw failedPrecondition('COMMAND-3m9ds', 'Email is already verified');
      return { details: await mailVerificationAgain(tx, user, ctx.caller.userId) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/** The event and the queued mail of a new verification code (the previous code stops working when it is sent). */
async function mailVerificationAgain(tx: Repositories, user: UserRow, creator: string): Promise<ObjectDetails> {
  const { email } = human(user).email;
  const event = await append(tx, user, creator, 'user.human.email.verification.requested', { email });
  await tx.users.touch(user.id, event.sequence, event.createdAt);
  await queueUserMessage(tx, 'verify_email', { id: user.id, orgId: user.orgId, email });
  return changedDetails(event);
}

/** Whether a human user's email is verified (the verification page tells a used link from a lost one). */
export async function emailVerificationState(store: Store, userId: string): Promise<'verified' | 'unverified' | 'unknown'> {
  const user = userId && !isUnstorableText(userId) ? await store.read.users.get(userId) : undefined;
  if (!user || user.type !== 'human') return 'unknown';
  return human(user).email.isEmailVerified ? 'verified' : 'unverified';
}

/**
 * The verification page's "send a new mail" (ZITADEL's page offers it too): the page's link names
 * the user, and the mail goes only to the address the user already has, so no caller is needed;
 * the page limits how often (http/routes/login-mail.ts). `unknown` for no such human user.
 */
export async function mailVerificationAgainFromPage(store: Store, userId: string): Promise<'sent' | 'verified' | 'unknown'> {
  if (!userId || isUnstorableText(userId)) return 'unknown';
  return store.transaction(
    async (tx) => {
      const user = await tx.users.get(userId);
      if (!user || user.type !== 'human') return 'unknown' as const;
      if (human(user).email.isEmailVerified) return 'verified' as const;
      await mailVerificationAgain(tx, user, user.id);
      return 'sent' as const;
    },
    [[USER_AGGREGATE, userId]],
  );
}

export class CodeRefused extends DomainError {
  constructor(readonly check: Exclude<CodeCheck, 'ok'>) {
    super(check === 'none' ? GrpcCode.NotFound : GrpcCode.InvalidArgument, check === 'none' ? 'CODE-n0Ne1' : `CODE-${check}`, CODE_PROBLEM[check]);
  }
}

/** The error a refused mailed code is answered with: why the code did not do, or the throttle's wait (429). */
export function codeRefusal(refused: Exclude<CodeCheck, 'ok'> | CodeChecksThrottled): CodeRefused | CodeChecksThrottled {
  return typeof refused === 'string' ? new CodeRefused(refused) : refused;
}

/**
 * Verifies the user's email with a mailed code (the verification page and the API). The user is
 * looked up by id alone: the code is the proof. `authorize` (the API's check of a caller other
 * than the user) runs first in the transaction, so a refused caller neither counts an attempt
 * against the code nor learns whether it was right.
 */
export async function verifyEmailWithCode(
  store: Store,
  userId: string,
  code: string,
  editor = userId,
  authorize?: (tx: Repositories) => Promise<unknown>,
): Promise<{ details: ObjectDetails; user: UserRow }> {
  const outcome = await store.transaction(
    async (tx) => {
      await authorize?.(tx);
      const user = await tx.users.get(userId);
      if (!user || user.type !== 'human') return { refused: 'none' as const };
      const data = human(user);
      const check = await checkCode(tx, user.id, 'email_verification', code, data.email.email);
      if (check !== 'ok') return { refused: check };
      const event = await append(tx, user, editor, 'user.human.email.verified', { email: data.email.email });
      const next: HumanData = { ...data, email: { email: data.email.email, isEmailVerified: true } };
      // A user waiting only for a verified email (it has a password) can now sign in normally.
      const state = user.state === 'USER_STATE_INITIAL' && user.passwordHash ? 'USER_STATE_ACTIVE' : user.state;
      await tx.users.change(user.id, { data: next as unknown as Record<string, unknown>, state }, event.sequence, event.createdAt);
      return { details: changedDetails(event), user };
    },
    [[USER_AGGREGATE, userId]],
  );
  if ('refused' in outcome) throw codeRefusal(outcome.refused!);
  return outcome;
}

/**
 * API variant: the caller is the user itself, or may write the user's organisation's users and has
 * authority over this one (a verified address is where its password reset goes).
 */
export async function verifyEmailForCaller(store: Store, ctx: RequestContext, userId: string, code: string): Promise<{ details: ObjectDetails }> {
  const self = ctx.caller.userId === userId;
  if (!self) requirePermission(ctx, 'user.write');
  const authorize = self ? undefined : (tx: Repositories) => userToChange(tx, ctx, userId, 'COMMAND-0Gzs3');
  const { details } = await verifyEmailWithCode(store, userId, code, ctx.caller.userId, authorize);
  return { details };
}

/** Whether an initialisation code is open for this user (the init page asks before showing its form). */
export async function initCodeOpen(store: Store, userId: string): Promise<boolean> {
  const user = await store.read.users.get(userId);
  return Boolean(user && user.state === 'USER_STATE_INITIAL' && (await store.read.notifications.code(userId, 'init' satisfies CodeKind)));
}

/**
 * ZITADEL's initialisation: with the init mail's code, the user sets a password (checked like any
 * other); the email counts as verified and the user becomes active.
 */
export async function initializeWithCode(store: Store, instanceId: string, userId: string, code: string, password: string): Promise<{ details: ObjectDetails }> {
  const target = await store.read.users.get(userId);
  if (target) await checkPasswordComplexity(store.read, instanceId, target.orgId, password);
  const passwordHash = await hashPassword(password);
  const outcome = await store.transaction(
    async (tx) => {
      const user = await tx.users.get(userId);
      if (!user || user.type !== 'human' || user.state !== 'USER_STATE_INITIAL') return { refused: 'none' as const };
      const data = human(user);
      const check = await checkCode(tx, user.id, 'init', code, data.email.email);
      if (check !== 'ok') return { refused: check };
      await append(tx, user, user.id, 'user.human.initialization.check.succeeded', {});
      await append(tx, user, user.id, 'user.human.password.changed', { changeRequired: false });
      const event = await append(tx, user, user.id, 'user.human.email.verified', { email: data.email.email });
      const next: HumanData = { ...data, email: { email: data.email.email, isEmailVerified: true } };
      await tx.users.change(user.id, { data: next as unknown as Record<string, unknown>, state: 'USER_STATE_ACTIVE', passwordHash, passwordChangeRequired: false }, event.sequence, event.createdAt);
      await tx.notifications.removeCode(user.id, 'email_verification');
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
  if ('refused' in outcome) throw codeRefusal(outcome.refused!);
  return outcome;
}
