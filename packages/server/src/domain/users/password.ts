/**
 * Setting a human's password: by an administrator (ZITADEL's v1 SetHumanPassword; by default the
 * user must change it at the next sign-in) and by the user at the login page when asked to
 * (`passwordChangeRequired`, domain/login/steps.ts) or with a mailed reset code
 * (http/routes/login-mail.ts). Every new password is checked against the
 * effective password complexity policy of the user's organisation and stored as argon2id, replacing
 * whatever hash the user was imported with; the failed-check counter starts again.
 */
import { hashPassword } from '../../auth/passwords.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { findLoginUser } from '../login/password-login.js';
import { type CodeKind, checkCode } from '../notifications/codes.js';
import { queueUserMessage } from '../notifications/queue.js';
import { USER_AGGREGATE } from './aggregate.js';
import { codeRefusal } from './email.js';
import { userInContextOrg, userToChange } from './guard.js';
import { checkPasswordComplexity } from './password-policy.js';
import type { HumanData } from './view.js';

export async function setHumanPassword(store: Store, ctx: RequestContext, userId: string, input: { password: string; noChangeRequired?: boolean }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const target = await userInContextOrg(store.read, ctx, userId, 'COMMAND-3M0fs');
  if (target.type !== 'human') throw notFound('COMMAND-3M0fs', 'User could not be found (only a human user has a password)');
  await checkPasswordComplexity(store.read, ctx.instanceId, target.orgId, input.password);
  // Hash outside the transaction: argon2 is slow on purpose and must not hold the write lock.
  const passwordHash = await hashPassword(input.password);
  const changeRequired = !input.noChangeRequired;
  return store.transaction(
    async (tx) => {
      const user = await userToChange(tx, ctx, userId, 'COMMAND-3M0fs');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.human.password.changed',
        payload: { changeRequired },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.users.change(user.id, { passwordHash, passwordChangeRequired: changeRequired }, event.sequence, event.createdAt);
      await tx.logins.clearFailures(user.id, 'password');
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/**
 * The user's own new password at the login page, after the password (and code) were checked in
 * this sign-in. Throws the complexity policy's 400 when the password does not comply.
 */
export async function changePasswordAtLogin(store: Store, instanceId: string, userId: string, password: string): Promise<void> {
  const target = await store.read.users.get(userId);
  if (!target) return;
  await checkPasswordComplexity(store.read, instanceId, target.orgId, password);
  const passwordHash = await hashPassword(password);
  await store.transaction(
    async (tx) => {
      const user = await tx.users.get(userId);
      if (!user) return;
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.human.password.changed',
        payload: { changeRequired: false, byUser: true },
        creator: user.id,
        resourceOwner: user.orgId,
      });
      await tx.users.change(user.id, { passwordHash, passwordChangeRequired: false }, event.sequence, event.createdAt);
    },
    [[USER_AGGREGATE, userId]],
  );
}

/**
 * ZITADEL's SendHumanResetPasswordNotification: queues the password-reset mail (the outbox sends it
 * with a one-hour code and a link to `/ui/login/password/init`, texts as for every message: the
 * organisation's, else the instance's, else the built-in PasswordReset text). Only email is offered:
 * `NOTIFICATION_TYPE_Sms` → 400 (this service sends no SMS).
 */
export async function requestPasswordReset(store: Store, ctx: RequestContext, userId: string, input: { type?: string }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  if (input.type !== undefined && input.type !== 'NOTIFICATION_TYPE_Email')
    throw invalidArgument('COMMAND-2n8fs', 'invalid type: only NOTIFICATION_TYPE_Email is supported (this service sends no SMS)');
  return store.transaction(
    async (tx) => {
      // Whoever reads the mail sets the password: as much a credential change as setting it.
      const user = await userToChange(tx, ctx, userId, 'COMMAND-2M9fs');
      if (user.type !== 'human') throw notFound('COMMAND-2M9fs', 'User could not be found (only a human user has a password)');
      if (user.state === 'USER_STATE_INITIAL') throw failedPrecondition('COMMAND-2M9gs', 'The user is not initialised yet: resend the initialisation mail instead');
      const email = (user.data as unknown as HumanData).email.email;
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.human.password.reset.requested',
        payload: { notificationType: 'NOTIFICATION_TYPE_Email' },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      await queueUserMessage(tx, 'password_reset', { id: user.id, orgId: user.orgId, email });
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/** One reset mail per user and minute from the login page: the page is open to anyone. */
const SELF_SERVICE_RESET_INTERVAL_MS = 60_000;

/**
 * "Forgot your password?" at the login page (ZITADEL's login, unless the login policy's
 * `hidePasswordReset`): the same mail as above, for the user the login name belongs to, requested
 * by that user. Whether anything was sent is not told to the caller (the page answers alike), so
 * the page cannot be used to find out which login names exist. Only active (or locked: the reset
 * does not unlock them) humans get a mail, at most one a minute.
 */
export async function requestPasswordResetAtLogin(store: Store, instanceId: string, loginName: string, now = new Date()): Promise<'queued' | 'skipped'> {
  const found = await findLoginUser(store.read, instanceId, loginName);
  if (!found || !['USER_STATE_ACTIVE', 'USER_STATE_LOCKED'].includes(found.state)) return 'skipped';
  return store.transaction(
    async (tx) => {
      const user = await tx.users.get(found.id);
      const email = user && (user.data as unknown as HumanData).email?.email;
      if (!user || !email || !['USER_STATE_ACTIVE', 'USER_STATE_LOCKED'].includes(user.state)) return 'skipped';
      const { rows } = await tx.notifications.search({ userId: user.id, messageType: 'password_reset' }, { offset: 0, limit: 1, asc: false });
      if (rows[0] && now.getTime() - rows[0].createdAt.getTime() < SELF_SERVICE_RESET_INTERVAL_MS) return 'skipped';
      const event = await tx.events.append(
        {
          aggregateType: USER_AGGREGATE,
          aggregateId: user.id,
          type: 'user.human.password.reset.requested',
          payload: { notificationType: 'NOTIFICATION_TYPE_Email', atLogin: true },
          creator: user.id,
          resourceOwner: user.orgId,
        },
        now,
      );
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      await queueUserMessage(tx, 'password_reset', { id: user.id, orgId: user.orgId, email }, now);
      return 'queued';
    },
    [[USER_AGGREGATE, found.id]],
  );
}

/** Whether a password-reset code is open for this user (the page asks before showing its form). */
export async function resetCodeOpen(store: Store, userId: string): Promise<boolean> {
  return Boolean(await store.read.notifications.code(userId, 'password_reset' satisfies CodeKind));
}

/** The reset page: with the mailed code, the user sets a new password (checked like any other). */
export async function resetPasswordWithCode(store: Store, instanceId: string, userId: string, code: string, password: string): Promise<void> {
  const target = await store.read.users.get(userId);
  if (target) await checkPasswordComplexity(store.read, instanceId, target.orgId, password);
  const passwordHash = await hashPassword(password);
  const refused = await store.transaction(
    async (tx) => {
      const user = await tx.users.get(userId);
      if (!user || user.type !== 'human') return 'none' as const;
      const check = await checkCode(tx, user.id, 'password_reset', code, (user.data as unknown as HumanData).email.email);
      if (check !== 'ok') return check;
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.human.password.changed',
        payload: { changeRequired: false, byCode: true },
        creator: user.id,
        resourceOwner: user.orgId,
      });
      await tx.users.change(user.id, { passwordHash, passwordChangeRequired: false }, event.sequence, event.createdAt);
      await tx.logins.clearFailures(user.id, 'password');
      return undefined;
    },
    [[USER_AGGREGATE, userId]],
  );
  if (refused) throw codeRefusal(refused);
}
