/**
 * Creating users of the context organisation (their removal: removal.ts). User names are unique per
 * organisation ignoring case (the users_org_user_name_key index backs the check against races);
 * a given `userId` (imports) must be unused in the whole instance.
 */

import { hashPassword } from '../../auth/passwords.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, invalidArgument } from '../errors.js';
import { newId } from '../ids.js';
import { queueUserMessage } from '../notifications/queue.js';
import { checkHashedPassword } from './hashed-password.js';
import { assertBareLoginNameFree, loginNamesLock } from './login-names.js';
import { checkPasswordComplexity } from './password-policy.js';
import type { AccessTokenType, Gender, HumanData, MachineData, UserState } from './view.js';

export { USER_AGGREGATE } from './aggregate.js';

import type { SecretBox } from '../../secrets/secret-box.js';
import { USER_AGGREGATE } from './aggregate.js';
import { sealOtpSecret } from './otp-secret.js';

export interface ImportHumanUserInput {
  userId?: string;
  userName: string;
  profile: { firstName: string; lastName: string; nickName?: string; displayName?: string; preferredLanguage?: string; gender?: Gender };
  email: { email: string; isEmailVerified?: boolean };
  phone?: { phone: string; isPhoneVerified?: boolean };
  password?: string;
  /** `algorithm` is ZITADEL's obsolete field: accepted and ignored. */
  hashedPassword?: { value: string; algorithm?: string };
  passwordChangeRequired?: boolean;
  /** The authenticator app's base32 secret (ZITADEL's `otp_code`; domain/login/totp.ts). */
  otpCode?: string;
}

export interface AddMachineUserInput {
  userId?: string;
  userName: string;
  name: string;
  description?: string;
  accessTokenType?: AccessTokenType;
}

export interface CreatedUser {
  userId: string;
  details: ObjectDetails;
}

export async function importHumanUser(store: Store, ctx: RequestContext, input: ImportHumanUserInput, secrets: SecretBox): Promise<CreatedUser> {
  requirePermission(ctx, 'user.write');
  return createHumanUser(store, { instanceId: ctx.instanceId, orgId: ctx.orgId, creator: ctx.caller.userId }, input, secrets);
}

/** Who creates a user, and where: the API's caller in its context organisation, or a person registering itself (domain/login/registration.ts). */
export interface UserCreator {
  instanceId: string;
  orgId: string;
  /** The event's creator: the caller, or the new user itself (then `userId` of the input names it). */
  creator: string;
  /**
   * A person registering itself at the login page: marked so (`self_registrations`), its password
   * signs it in only once its email is verified (domain/login/registration.ts).
   */
  registersItself?: boolean;
}

/**
 * A human user as the API's ImportHumanUser and AddHumanUser create one (their checks, state, event
 * and first mail), without their permission check: the caller has decided that `by` may create it.
 */
export async function createHumanUser(store: Store, by: UserCreator, input: ImportHumanUserInput, secrets: SecretBox): Promise<CreatedUser> {
  if (input.password !== undefined && input.hashedPassword !== undefined) {
    throw invalidArgument('USER-pW1h4', 'invalid hashedPassword: give either password or hashedPassword, not both');
  }
  if (input.password) await checkPasswordComplexity(store.read, by.instanceId, by.orgId, input.password);
  if (input.hashedPassword !== undefined) checkHashedPassword(input.hashedPassword.value);
  // Hash outside the transaction: argon2 is slow on purpose and must not hold the write lock.
  const passwordHash = input.password ? await hashPassword(input.password) : (input.hashedPassword?.value ?? null);

  const { profile, email, phone } = input;
  const data: HumanData = {
    profile: {
      firstName: profile.firstName,
      lastName: profile.lastName,
      ...(profile.nickName ? { nickName: profile.nickName } : {}),
      // ZITADEL's default display name.
      displayName: profile.displayName || `${profile.firstName} ${profile.lastName}`,
      ...(profile.preferredLanguage ? { preferredLanguage: profile.preferredLanguage } : {}),
      ...(profile.gender && profile.gender !== 'GENDER_UNSPECIFIED' ? { gender: profile.gender } : {}),
    },
    email: { email: email.email, ...(email.isEmailVerified ? { isEmailVerified: true } : {}) },
    ...(phone ? { phone: { phone: phone.phone, ...(phone.isPhoneVerified ? { isPhoneVerified: true } : {}) } } : {}),
  };
  // As in ZITADEL, a user who cannot sign in yet (no verified email or no password) is initial.
  const state: UserState = email.isEmailVerified && passwordHash ? 'USER_STATE_ACTIVE' : 'USER_STATE_INITIAL';
  return createUser(
    store,
    by,
    {
      userId: input.userId,
      userName: input.userName,
      type: 'human',
      state,
      data,
      passwordHash,
      // Unlike ZITADEL (which drops it for hashed passwords), honoured for both kinds.
      passwordChangeRequired: Boolean(passwordHash && input.passwordChangeRequired),
      eventType: 'user.human.added',
      // The hash never goes into the event log: events can be read back through the API.
      payload: { userName: input.userName, ...data, passwordSet: Boolean(passwordHash), passwordChangeRequired: Boolean(input.passwordChangeRequired), ...(input.otpCode ? { otpSet: true } : {}) },
    },
    async (tx, created) => {
      // The secret, never the event: events can be read back through the API.
      if (input.otpCode) await tx.logins.addOtpSecret(created.userId, sealOtpSecret(secrets, input.otpCode), new Date());
      // ZITADEL's mails on creation: without a password the init mail (its code also verifies the
      // email), else for an unverified email the verification mail. Queued with the user, so a
      // rolled-back creation sends nothing.
      const recipient = { id: created.userId, orgId: by.orgId, email: email.email };
      if (by.registersItself) await tx.logins.markSelfRegistered(created.userId, new Date());
      if (!passwordHash) await queueUserMessage(tx, 'init', recipient);
      else if (!email.isEmailVerified) await queueUserMessage(tx, 'verify_email', recipient);
    },
  );
}

export interface AddHumanUserInput {
  userName: string;
  profile: ImportHumanUserInput['profile'];
  email: ImportHumanUserInput['email'];
  phone?: ImportHumanUserInput['phone'];
  initialPassword?: string;
}

/**
 * ZITADEL's v1 AddHumanUser: a new person. Unlike ImportHumanUser, an initial password must be changed
 * at the first sign-in (ZITADEL's rule); without one the init mail lets the person choose it.
 */
export function addHumanUser(store: Store, ctx: RequestContext, input: AddHumanUserInput, secrets: SecretBox): Promise<CreatedUser> {
  const { initialPassword, ...rest } = input;
  return importHumanUser(store, ctx, { ...rest, ...(initialPassword ? { password: initialPassword, passwordChangeRequired: true } : {}) }, secrets);
}

export async function addMachineUser(store: Store, ctx: RequestContext, input: AddMachineUserInput): Promise<CreatedUser> {
  requirePermission(ctx, 'user.write');
  const data: MachineData = {
    name: input.name,
    ...(input.description ? { description: input.description } : {}),
    accessTokenType: input.accessTokenType ?? 'ACCESS_TOKEN_TYPE_BEARER',
  };
  return createUser(
    store,
    { instanceId: ctx.instanceId, orgId: ctx.orgId, creator: ctx.caller.userId },
    {
      userId: input.userId,
      userName: input.userName,
      type: 'machine',
      state: 'USER_STATE_ACTIVE',
      data,
      passwordHash: null,
      passwordChangeRequired: false,
      eventType: 'user.machine.added',
      payload: { userName: input.userName, ...data },
    },
  );
}

export interface NewUser {
  userId?: string;
  userName: string;
  type: 'human' | 'machine';
  state: UserState;
  data: HumanData | MachineData;
  passwordHash: string | null;
  passwordChangeRequired: boolean;
  eventType: string;
  payload: Record<string, unknown>;
}

/** Creates the user; `then` runs in the same transaction (e.g. queues its first mail). */
async function createUser(store: Store, by: UserCreator, user: NewUser, then?: (tx: Repositories, created: CreatedUser) => Promise<void>): Promise<CreatedUser> {
  return store.transaction(
    async (tx) => {
      const created = await insertNewUser(tx, by, user);
      await then?.(tx, created);
      return created;
      // Bare login names are checked across organisations (login-names.ts), under their lock.
    },
    [loginNamesLock(by.instanceId), ...(user.userId ? [[USER_AGGREGATE, user.userId] as const] : [])],
  );
}

/**
 * The checks and writes of creating a user, inside the caller's transaction: the API's commands
 * above, and auto-registration at sign-in through an identity provider (domain/federation/),
 * where the new user is its own creator. The caller must hold `loginNamesLock`, and the lock of a
 * given `userId`.
 */
export async function insertNewUser(tx: Repositories, by: { instanceId: string; orgId: string; creator: string }, user: NewUser): Promise<CreatedUser> {
  const userId = user.userId ?? newId();
  const userNameKey = user.userName.toLowerCase();
  if (user.userId && (await tx.users.get(user.userId))) throw alreadyExists('V3-DKcYh', 'User already exists');
  // A removed user's id is not given out again: a new user would continue its event history.
  if (user.userId && (await tx.events.exists(USER_AGGREGATE, user.userId))) {
    throw alreadyExists('COMMAND-uR3us', 'User already exists: the id belonged to a removed user and cannot be used again');
  }
  if (await tx.users.getByUserNameKey(by.orgId, userNameKey)) {
    throw alreadyExists('V3-DKcYh', 'User already exists: the userName is taken in this organisation');
  }
  await assertBareLoginNameFree(tx, by.instanceId, by.orgId, userNameKey);
  const event = await tx.events.append({
    aggregateType: USER_AGGREGATE,
    aggregateId: userId,
    type: user.eventType,
    payload: user.payload,
    creator: by.creator,
    resourceOwner: by.orgId,
  });
  await tx.users.insert({
    id: userId,
    orgId: by.orgId,
    type: user.type,
    userName: user.userName,
    userNameKey,
    state: user.state,
    data: user.data as unknown as Record<string, unknown>,
    passwordHash: user.passwordHash,
    passwordChangeRequired: user.passwordChangeRequired,
    sequence: event.sequence,
    createdAt: event.createdAt,
    changedAt: event.createdAt,
  });
  return { userId, details: addedDetails(event) };
}
