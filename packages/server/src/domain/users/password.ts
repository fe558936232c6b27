/**
 * Setting a human's password: by an administrator (ZITADEL's v1 SetHumanPassword; by default the
 * user must change it at the next sign-in) and by the user at the login page when asked to
 * (`passwordChangeRequired`, http/routes/login-steps.ts). Every new password is checked against the
 * effective password complexity policy of the user's organisation and stored as argon2id, replacing
 * whatever hash the user was imported with; the failed-check counter starts again.
 */
import { hashPassword } from '../../auth/passwords.js';
import type { Store } from '../../store/store.js';
import { requirePermission, type RequestContext } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userInContextOrg } from './commands.js';
import { requireAuthorityOver } from './guard.js';
import { checkPasswordComplexity } from './password-policy.js';

export async function setHumanPassword(
  store: Store,
  ctx: RequestContext,
  userId: string,
  input: { password: string; noChangeRequired?: boolean },
): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const target = await userInContextOrg(store.read, ctx, userId, 'COMMAND-3M0fs');
  if (target.type !== 'human') throw notFound('COMMAND-3M0fs', 'User could not be found (only a human user has a password)');
  await checkPasswordComplexity(store.read, ctx.instanceId, target.orgId, input.password);
  // Hash outside the transaction: argon2 is slow on purpose and must not hold the write lock.
  const passwordHash = await hashPassword(input.password);
  const changeRequired = !input.noChangeRequired;
  return store.transaction(async (tx) => {
    const user = await userInContextOrg(tx, ctx, userId, 'COMMAND-3M0fs');
    // A password is as good as every role the user holds.
    await requireAuthorityOver(tx, ctx, user.id);
    const event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.human.password.changed', payload: { changeRequired }, creator: ctx.caller.userId, resourceOwner: user.orgId });
    await tx.users.change(user.id, { passwordHash, passwordChangeRequired: changeRequired }, event.sequence, event.createdAt);
    await tx.logins.clearFailures(user.id, 'password');
    return { details: changedDetails(event) };
  }, [[USER_AGGREGATE, userId]]);
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
  await store.transaction(async (tx) => {
    const user = await tx.users.get(userId);
    if (!user) return;
    const event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.human.password.changed', payload: { changeRequired: false, byUser: true }, creator: user.id, resourceOwner: user.orgId });
    await tx.users.change(user.id, { passwordHash, passwordChangeRequired: false }, event.sequence, event.createdAt);
  }, [[USER_AGGREGATE, userId]]);
}
