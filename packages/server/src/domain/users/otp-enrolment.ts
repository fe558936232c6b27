/**
 * Setting up an authenticator app (TOTP), as ZITADEL does (AddMyAuthFactorOTP, then
 * VerifyMyAuthFactorOTP): a new secret is made and shown once (as an `otpauth://` URI for a QR code,
 * and as text), kept sealed as "not ready" (`user_otp_pending`), and becomes the user's second
 * factor (`user_otp_secrets`, what the login checks: domain/login/totp.ts) when the user sends a
 * code the app computed from it. Both the login's enrolment step (domain/login/otp-setup-step.ts) and
 * the auth API (http/routes/auth-user-auth-factors.ts) go through here.
 *
 * A wrong code while setting up is refused and not counted toward the lockout policy, as in
 * ZITADEL: the person was just shown the secret. It still goes through the code throttle
 * (login/code-throttle.ts, kind 'otp_setup'), as every short code checked for a user does.
 */
import { Secret, TOTP } from 'otpauth';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Repositories, Store } from '../../store/store.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { codeCheckTurn } from '../login/code-throttle.js';
import { matchingStep, TOTP_PERIOD_S } from '../login/totp.js';
import { USER_AGGREGATE } from './aggregate.js';
import { loginNameRules, loginNamesOf } from './login-names.js';
import { openOtpSecret, sealOtpSecret } from './otp-secret.js';

/** Bytes of a new secret: 160 bits, RFC 4226's recommendation and what ZITADEL makes. */
const SECRET_BYTES = 20;

export interface OtpEnrolment {
  /** The `otpauth://totp/…` URI an authenticator app reads from the QR code. */
  url: string;
  /** The secret in base32, for typing it into the app. */
  secret: string;
  details: ObjectDetails;
}

/** Who sets the app up: the user (`creator` = the user) or the login on the user's behalf. */
export interface EnrolmentCaller {
  instanceId: string;
  userId: string;
  /** The issuer shown in the app beside the account (ZITADEL: the instance's domain). */
  issuerName: string;
}

const otpauthUri = (issuer: string, account: string, secret: string) =>
  new TOTP({ issuer, label: account, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S }).toString();

async function humanUser(tx: Repositories, userId: string) {
  const user = await tx.users.get(userId);
  // The caller is signed in as this user, so a missing one was removed meanwhile.
  if (!user || user.type !== 'human') throw failedPrecondition('COMMAND-SqyJz', 'The user was not found or is not a person');
  return user;
}

/**
 * AddMyAuthFactorOTP: a new secret for the user, replacing one that was never confirmed. A user
 * whose app is set up already gets 409 `COMMAND-do9se` (remove it first).
 */
export async function startOtpEnrolment(store: Store, box: SecretBox, caller: EnrolmentCaller, at = new Date()): Promise<OtpEnrolment> {
  return store.transaction(
    async (tx) => {
      const user = await humanUser(tx, caller.userId);
      if (await tx.logins.otpSecret(user.id)) throw alreadyExists('COMMAND-do9se', 'An authenticator app (OTP) is already set up');
      const secret = new Secret({ size: SECRET_BYTES }).base32;
      const account = loginNamesOf(user.userName, await loginNameRules(tx, caller.instanceId, user.orgId)).preferredLoginName;
      const event = await tx.events.append(
        { aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.human.mfa.otp.added', payload: {}, creator: caller.userId, resourceOwner: user.orgId },
        at,
      );
      await tx.otpEnrolment.setPending(user.id, sealOtpSecret(box, secret), at);
      await tx.users.change(user.id, {}, event.sequence, event.createdAt);
      return { url: otpauthUri(caller.issuerName, account, secret), secret, details: changedDetails(event) };
    },
    [[USER_AGGREGATE, caller.userId]],
  );
}

/** The secret waiting for its first code, if any (a secret sealed by a key since removed counts as none). */
export async function pendingOtpSecret(read: Repositories, box: SecretBox, userId: string): Promise<string | undefined> {
  const pending = await read.otpEnrolment.pending(userId);
  if (!pending) return undefined;
  try {
    return openOtpSecret(box, pending.secret);
  } catch {
    return undefined;
  }
}

/** The URI and secret of the app being set up, to show them again (the login page after a wrong code). */
export async function pendingOtpEnrolment(read: Repositories, box: SecretBox, caller: EnrolmentCaller): Promise<{ url: string; secret: string } | undefined> {
  const secret = await pendingOtpSecret(read, box, caller.userId);
  const user = secret ? await read.users.get(caller.userId) : undefined;
  if (!secret || !user) return undefined;
  const account = loginNamesOf(user.userName, await loginNameRules(read, caller.instanceId, user.orgId)).preferredLoginName;
  return { url: otpauthUri(caller.issuerName, account, secret), secret };
}

/**
 * VerifyMyAuthFactorOTP: the app's code for the secret being set up makes it the user's second
 * factor. The code's time step counts as used (the same code cannot sign in right after). A wrong
 * code → 400 `EVENT-8isk2`, counted by the code throttle, whose refusal (too soon after wrong
 * codes) is 429 `CODE-w41t1`; both are thrown after the transaction, which keeps the count.
 */
export async function confirmOtpEnrolment(store: Store, box: SecretBox, userId: string, code: string, now = Date.now()): Promise<{ details: ObjectDetails }> {
  const trimmed = code.replace(/\s/g, '');
  const outcome = await store.transaction(
    async (tx) => {
      const user = await humanUser(tx, userId);
      if (await tx.logins.otpSecret(user.id)) throw failedPrecondition('COMMAND-qx4ls', 'The authenticator app (OTP) is already set up');
      const secret = await pendingOtpSecret(tx, box, user.id);
      if (!secret) throw notFound('COMMAND-3Mif9s', 'No authenticator app (OTP) is being set up; add one first');
      const at = new Date(now);
      const turn = await codeCheckTurn(tx, user.id, 'otp_setup', at);
      if (turn.throttled) return { refused: turn.throttled };
      const step = matchingStep(secret, trimmed, now);
      if (step === undefined) {
        await turn.failed();
        return { refused: invalidArgument('EVENT-8isk2', 'The code is invalid') };
      }
      await turn.passed();
      const event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.human.mfa.otp.verified', payload: {}, creator: userId, resourceOwner: user.orgId }, at);
      await tx.logins.addOtpSecret(user.id, sealOtpSecret(box, secret), at);
      await tx.logins.setLastOtpStep(user.id, step, at);
      await tx.otpEnrolment.removePending(user.id);
      await tx.users.change(user.id, {}, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

/** RemoveMyAuthFactorOTP: the app, set up or being set up, is removed; none → 404 `COMMAND-Hd9sd`. */
export async function removeOwnOtp(store: Store, userId: string): Promise<{ details: ObjectDetails }> {
  return store.transaction(
    async (tx) => {
      const user = await humanUser(tx, userId);
      const ready = await tx.logins.otpSecret(user.id);
      const pending = await tx.otpEnrolment.pending(user.id);
      if (!ready && !pending) throw notFound('COMMAND-Hd9sd', 'The user has no authenticator app (OTP)');
      return removeOtpOf(tx, user, userId);
    },
    [[USER_AGGREGATE, userId]],
  );
}

/**
 * The authenticator app's removal, whoever asks (the user, or an administrator: auth-factors.ts):
 * its event, the secret and any set-up in progress gone, in the caller's transaction.
 */
export async function removeOtpOf(tx: Repositories, user: { id: string; orgId: string }, creator: string): Promise<{ details: ObjectDetails }> {
  const event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.human.mfa.otp.removed', payload: {}, creator, resourceOwner: user.orgId });
  await tx.logins.removeOtpSecret(user.id);
  await tx.otpEnrolment.removePending(user.id);
  await tx.users.change(user.id, {}, event.sequence, event.createdAt);
  return { details: changedDetails(event) };
}

/** ZITADEL's user.v1.AuthFactor, as far as this service has factors: the authenticator app. */
export interface AuthFactorView {
  state: 'AUTH_FACTOR_STATE_READY' | 'AUTH_FACTOR_STATE_NOT_READY';
  otp: Record<string, never>;
}

/** The user's second factors: the app when set up (ready) or being set up (not ready). */
export async function authFactorsOf(read: Repositories, userId: string): Promise<AuthFactorView[]> {
  if (await read.logins.otpSecret(userId)) return [{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }];
  if (await read.otpEnrolment.pending(userId)) return [{ state: 'AUTH_FACTOR_STATE_NOT_READY', otp: {} }];
  return [];
}

/** ListMyAuthFactors. */
export async function listOwnAuthFactors(store: Store, userId: string): Promise<{ result: AuthFactorView[] }> {
  const user = await store.read.users.get(userId);
  return { result: user?.type === 'human' ? await authFactorsOf(store.read, userId) : [] };
}

/** After the operator key was rotated: secrets waiting for their first code sealed with the current key (commands/resealers.ts). */
export async function resealPendingOtpSecrets(store: Store, box: SecretBox): Promise<number> {
  const stale = (await store.read.otpEnrolment.allPending()).filter((row) => box.isStale(row.secret));
  if (stale.length) {
    await store.transaction(async (tx) => {
      for (const row of stale) await tx.otpEnrolment.resealPending(row.userId, row.secret, sealOtpSecret(box, openOtpSecret(box, row.secret)));
    });
  }
  return stale.length;
}
