/**
 * Self-registration at sign-in (ZITADEL's register page, `allowRegister` of the login policy):
 * a person gives a first and last name, an email address and a password, and becomes a human user
 * of the organisation the sign-in is for. As ZITADEL's RegisterHuman:
 * - the organisation is the one the authorization request names (`urn:zitadel:iam:org:id:{id}` or
 *   `…:org:domain:primary:{domain}`), else the application's (this service's login page takes its
 *   policy from the application's organisation), else the instance's default organisation;
 * - registering must be allowed by the effective login policy of that organisation *and* of the
 *   application's (whose sign-in offers it or not): an org scope names where the account goes, it
 *   cannot open registration where the application's organisation has it off (issue 47: naming the
 *   default organisation registered an account there through such an application). Checked when
 *   the page is shown and again when the form is sent (a policy may change between the two);
 * - the user name is the email address (ZITADEL's default when the page asks for none); the
 *   password must fit the organisation's complexity policy;
 * - the email is not verified: the verification mail is queued with the user (the outbox sends it).
 * Unlike ZITADEL, the page does not tell whether the address has an account already (issue 47: its
 * 409 let anyone list accounts): every accepted form gets the same answer, "check your inbox".
 * - a new address: the user is created (users/commands.ts `createHumanUser`, the body of
 *   ImportHumanUser: the API's state, `user.human.added` with the new user as its creator, the
 *   verification mail) and marked as registering itself: its password signs it in only once the
 *   email is verified (password-login.ts), so an address registered by someone else gives them
 *   nothing to sign in with, and trying tells nothing either;
 * - an address whose account exists: nothing is created; its owner is mailed (through the outbox)
 *   a notice that someone tried to register and how to sign in — or, when that account is itself a
 *   registration whose address was never confirmed, its password is removed and the init mail sent,
 *   whose link lets the address's owner choose the password and confirms the address (so whoever
 *   registered it first cannot keep it, nor hand the owner a password of theirs). At most one such
 *   mail per account and hour;
 * - at most `REGISTRATIONS_PER_ADDRESS_PER_HOUR` accepted forms per client address and hour, in
 *   this process (before: 60 accounts from one address in 5–7 s, each mailing any address).
 */
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Repositories, Store } from '../../store/store.js';
import { DomainError, GrpcCode } from '../errors.js';
import { newId } from '../ids.js';
import { type MessageKind, queueUserMessage } from '../notifications/queue.js';
import { login } from '../policies/login.js';
import { passwordComplexity } from '../policies/password-complexity.js';
import { isUnstorableText } from '../unstorable-text.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { createHumanUser } from '../users/commands.js';
import { checkPasswordComplexity } from '../users/password-policy.js';
import type { HumanData } from '../users/view.js';

export interface RegistrationTarget {
  /** The organisation a registration goes to; undefined when the request names one that does not exist. */
  orgId?: string;
  /** Its login policy's `allowRegister`. */
  allowed: boolean;
}

/**
 * Where a person registering during this sign-in would become a user, and whether that organisation
 * allows it. `policyOf`: the login policies the caller has read already.
 */
export async function registrationTarget(
  read: Repositories,
  instanceId: string,
  app: { orgId: string } | undefined,
  requested: { orgId?: string; primaryDomain?: string } | undefined,
  policyOf = (id: string) => login.effective(read, instanceId, id),
): Promise<RegistrationTarget> {
  let orgId: string | undefined;
  if (requested?.orgId || requested?.primaryDomain) {
    const org = requested.orgId ? await read.orgs.get(requested.orgId) : await read.orgs.getByPrimaryDomain(requested.primaryDomain!.toLowerCase());
    // Also when both are named, they must name one organisation.
    orgId = org && (!requested.primaryDomain || org.primaryDomain.toLowerCase() === requested.primaryDomain.toLowerCase()) ? org.id : undefined;
  } else {
    orgId = app?.orgId ?? (await read.instance.get())?.defaultOrgId;
  }
  if (!orgId) return { allowed: false };
  // Where the account goes, and the application's organisation, whose sign-in this is.
  const deciding = [...new Set([orgId, ...(app ? [app.orgId] : [])])];
  const policies = await Promise.all(deciding.map((id) => policyOf(id)));
  return { orgId, allowed: policies.every((p) => p.allowRegister) };
}

/** Where a registration during this sign-in goes: the application and the organisation its request names. */
export interface RegistrationPlace {
  app?: { orgId: string };
  requested?: { orgId?: string; primaryDomain?: string };
}

export interface RegistrationInput {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
}

/** Why a registration was refused, in terms the page can show beside the form. */
export class RegistrationRefused extends DomainError {
  constructor(
    readonly reason: 'not_allowed' | 'invalid_input' | 'weak_password' | 'rate_limited',
    code: GrpcCode,
    id: string,
    message: string,
    /** The form's field the refusal is about. */
    readonly field?: 'firstName' | 'lastName' | 'email' | 'password',
    /** `rate_limited`: seconds until this address may register again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(code, id, message);
  }
}

/** Accepted registration forms per client address and hour, in one process (REGISTRATIONS_PER_ADDRESS_PER_HOUR). */
export const DEFAULT_REGISTRATIONS_PER_ADDRESS_PER_HOUR = 10;

/** At most one notice (or init mail) a registration sends to an existing account's owner per this long. */
const OWNER_MAIL_INTERVAL_MS = 60 * 60_000;

/**
 * What a registration did, for the log only: the person is answered the same either way.
 * `existing`: the address's account exists; `mailed` is the mail its owner was sent (none when one
 * went within the hour, or the account is not a person's).
 */
export type RegistrationOutcome = { existing: false; userId: string } | { existing: true; userId?: string; mailed?: MessageKind };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NAME_MAX = 200;

/**
 * Registers the person where `place` says (`registrationTarget`, checked again here). `admit` takes
 * one of the client address's registrations once the form is valid (undefined: free; else the
 * seconds until one is), so mistakes on the form cost nothing.
 */
export async function registerHuman(
  store: Store,
  secrets: SecretBox,
  instanceId: string,
  place: RegistrationPlace,
  input: RegistrationInput,
  admit: () => number | undefined = () => undefined,
): Promise<RegistrationOutcome> {
  const target = await registrationTarget(store.read, instanceId, place.app, place.requested);
  if (!target.allowed || !target.orgId) {
    throw new RegistrationRefused('not_allowed', GrpcCode.FailedPrecondition, 'COMMAND-JJ3Xs', 'Registration is not allowed in this organisation');
  }
  const orgId = target.orgId;
  if ([input.firstName, input.lastName, input.email].some(isUnstorableText)) {
    throw new RegistrationRefused('invalid_input', GrpcCode.InvalidArgument, 'USER-4hP3k', 'The form holds characters that cannot be stored. Enter your name and email address again.', 'firstName');
  }
  const firstName = input.firstName.trim();
  const lastName = input.lastName.trim();
  const email = input.email.trim();
  if (!firstName || !lastName || firstName.length > NAME_MAX || lastName.length > NAME_MAX) {
    throw new RegistrationRefused(
      'invalid_input',
      GrpcCode.InvalidArgument,
      'USER-4hP3j',
      `Enter a first and a last name (at most ${NAME_MAX} characters each).`,
      !firstName || firstName.length > NAME_MAX ? 'firstName' : 'lastName',
    );
  }
  if (!EMAIL.test(email) || email.length > NAME_MAX) {
    throw new RegistrationRefused('invalid_input', GrpcCode.InvalidArgument, 'EMAIL-599BI', 'Enter a valid email address.', 'email');
  }
  if (!input.password || isUnstorableText(input.password)) throw new RegistrationRefused('invalid_input', GrpcCode.InvalidArgument, 'USER-3n8Fs', 'Enter a password.', 'password');
  try {
    await checkPasswordComplexity(store.read, instanceId, orgId, input.password);
  } catch (error) {
    // The complexity policy's rule (users/password-policy.ts), as the API words it.
    if (error instanceof DomainError) throw new RegistrationRefused('weak_password', error.code, error.id, error.message.replace(/^invalid password: /, ''), 'password');
    throw error;
  }
  const wait = admit();
  if (wait !== undefined) {
    throw new RegistrationRefused('rate_limited', GrpcCode.ResourceExhausted, 'REG-r4t3L', 'Too many accounts were registered from this network recently.', undefined, wait);
  }
  // The new user is the creator of its own events, so its id is chosen here.
  const userId = newId();
  try {
    await createHumanUser(
      store,
      { instanceId, orgId, creator: userId, registersItself: true },
      {
        userId,
        userName: email,
        profile: { firstName, lastName },
        email: { email },
        password: input.password,
      },
      secrets,
    );
  } catch (error) {
    // The login name is taken (in this organisation, or as a bare name elsewhere): its owner is told.
    if (error instanceof DomainError && error.code === GrpcCode.AlreadyExists) return mailTheOwner(store, orgId, email);
    throw error;
  }
  return { existing: false, userId };
}

/**
 * Someone registered with the address (user name) of an existing account: its owner gets the
 * notice, or the init mail when the account is a registration never confirmed (module comment).
 */
async function mailTheOwner(store: Store, orgId: string, email: string, now = new Date()): Promise<RegistrationOutcome> {
  const key = email.toLowerCase();
  const named = (await store.read.logins.usersByNameKey(key)).map((r) => r.user).filter((u) => u.type === 'human');
  const owner = named.find((u) => u.orgId === orgId) ?? (named.length === 1 ? named[0] : undefined);
  if (!owner) return { existing: true };
  return store.transaction(
    async (tx): Promise<RegistrationOutcome> => {
      const user = await tx.users.get(owner.id);
      if (!user || user.type !== 'human') return { existing: true };
      const address = (user.data as unknown as HumanData).email;
      const unconfirmed = user.state === 'USER_STATE_INITIAL' && !address.isEmailVerified && address.email.toLowerCase() === key && (await tx.logins.isSelfRegistered(user.id));
      const kind: MessageKind = unconfirmed ? 'init' : 'registration_attempt';
      const {
        rows: [last],
      } = await tx.notifications.search({ userId: user.id, messageType: kind }, { offset: 0, limit: 1, asc: false });
      if (last && now.getTime() - last.createdAt.getTime() < OWNER_MAIL_INTERVAL_MS) return { existing: true, userId: user.id };
      // For auditors: someone tried; never what they typed.
      const event = await tx.events.append(
        {
          aggregateType: USER_AGGREGATE,
          aggregateId: user.id,
          type: 'user.human.registration.attempted',
          payload: { mailed: kind, ...(unconfirmed ? { passwordRemoved: true } : {}) },
          creator: user.id,
          resourceOwner: user.orgId,
        },
        now,
      );
      // An unconfirmed registration loses its password: whichever link of the address's mails its
      // owner follows, only the init page (the owner's choice) gives it one.
      if (unconfirmed) await tx.users.change(user.id, { passwordHash: null }, event.sequence, event.createdAt);
      else await tx.users.touch(user.id, event.sequence, event.createdAt);
      await queueUserMessage(tx, kind, { id: user.id, orgId: user.orgId, email: address.email }, now);
      return { existing: true, userId: user.id, mailed: kind };
    },
    [[USER_AGGREGATE, owner.id]],
  );
}

/** The organisation's password complexity rules in words, for the form (ZITADEL's register page lists them too). */
export async function passwordRulesInWords(read: Repositories, instanceId: string, orgId: string): Promise<string> {
  const p = await passwordComplexity.effective(read, instanceId, orgId);
  const kinds = [p.hasLowercase && 'a lower-case letter', p.hasUppercase && 'an upper-case letter', p.hasNumber && 'a digit', p.hasSymbol && 'a symbol'].filter(Boolean) as string[];
  const also = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds[0];
  return `At least ${p.minLength} characters${also ? `, with ${also}` : ''}.`;
}
