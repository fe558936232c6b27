/**
 * Self-registration at sign-in (ZITADEL's register page, `allowRegister` of the login policy):
 * a person gives a first and last name, an email address and a password, and becomes a human user
 * of the organisation the sign-in is for. As ZITADEL's RegisterHuman:
 * - the organisation is the one the authorization request names (`urn:zitadel:iam:org:id:{id}` or
 *   `…:org:domain:primary:{domain}`), else the application's (this service's login page takes its
 *   policy from the application's organisation), else the instance's default organisation;
 * - its effective login policy must allow registering, checked when the page is shown and again
 *   when the form is sent (the policy may have changed between the two);
 * - the user name is the email address (ZITADEL's default when the page asks for none), so the
 *   person signs in with it; the password must fit the organisation's complexity policy;
 * - the email is not verified: the verification mail is queued with the user (the outbox sends it),
 *   and the user is initial until it is verified — which, as everywhere here, does not keep it from
 *   signing in (users/may-authenticate.ts).
 * The user is created by the API's own command (users/commands.ts `createHumanUser`), so its event
 * (`user.human.added`), state and mail are the API's; the new user is its own creator, as a user an
 * identity provider registers (federation/sign-in.ts).
 */
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Repositories, Store } from '../../store/store.js';
import { DomainError, GrpcCode } from '../errors.js';
import { newId } from '../ids.js';
import { login } from '../policies/login.js';
import { passwordComplexity } from '../policies/password-complexity.js';
import { isUnstorableText } from '../unstorable-text.js';
import { createHumanUser } from '../users/commands.js';
import { checkPasswordComplexity } from '../users/password-policy.js';

export interface RegistrationTarget {
  /** The organisation a registration goes to; undefined when the request names one that does not exist. */
  orgId?: string;
  /** Its login policy's `allowRegister`. */
  allowed: boolean;
}

/** Where a person registering during this sign-in would become a user, and whether that organisation allows it. */
export async function registrationTarget(
  read: Repositories,
  instanceId: string,
  app: { orgId: string } | undefined,
  requested: { orgId?: string; primaryDomain?: string } | undefined,
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
  return { orgId, allowed: (await login.effective(read, instanceId, orgId)).allowRegister };
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
    readonly reason: 'not_allowed' | 'email_taken' | 'invalid_input' | 'weak_password',
    code: GrpcCode,
    id: string,
    message: string,
    /** The form's field the refusal is about. */
    readonly field?: 'firstName' | 'lastName' | 'email' | 'password',
  ) {
    super(code, id, message);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NAME_MAX = 200;

/** Registers the person in `orgId` (from `registrationTarget`); returns the new user's id. */
export async function registerHuman(store: Store, secrets: SecretBox, instanceId: string, orgId: string, input: RegistrationInput): Promise<{ userId: string }> {
  if (!(await login.effective(store.read, instanceId, orgId)).allowRegister) {
    throw new RegistrationRefused('not_allowed', GrpcCode.FailedPrecondition, 'COMMAND-JJ3Xs', 'Registration is not allowed in this organisation');
  }
  if ([input.firstName, input.lastName, input.email].some(isUnstorableText)) {
    throw new RegistrationRefused('invalid_input', GrpcCode.InvalidArgument, 'USER-4hP3k', 'The form holds characters that cannot be stored. Enter your name and email address again.', 'firstName');
  }
  const firstName = input.firstName.trim();
  const lastName = input.lastName.trim();
  const email = input.email.trim();
  if (!firstName || !lastName || firstName.length > NAME_MAX || lastName.length > NAME_MAX) {
    throw new RegistrationRefused('invalid_input', GrpcCode.InvalidArgument, 'USER-4hP3j', `Enter a first and a last name (at most ${NAME_MAX} characters each).`, !firstName || firstName.length > NAME_MAX ? 'firstName' : 'lastName');
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
  // The new user is the creator of its own events, so its id is chosen here.
  const userId = newId();
  try {
    await createHumanUser(store, { instanceId, orgId, creator: userId }, {
      userId,
      userName: email,
      profile: { firstName, lastName },
      email: { email },
      password: input.password,
    }, secrets);
  } catch (error) {
    if (error instanceof DomainError && error.code === GrpcCode.AlreadyExists) {
      throw new RegistrationRefused('email_taken', GrpcCode.AlreadyExists, error.id, 'An account with this email address already exists.', 'email');
    }
    throw error;
  }
  return { userId };
}

/** The organisation's password complexity rules in words, for the form (ZITADEL's register page lists them too). */
export async function passwordRulesInWords(read: Repositories, instanceId: string, orgId: string): Promise<string> {
  const p = await passwordComplexity.effective(read, instanceId, orgId);
  const kinds = [p.hasLowercase && 'a lower-case letter', p.hasUppercase && 'an upper-case letter', p.hasNumber && 'a digit', p.hasSymbol && 'a symbol'].filter(Boolean) as string[];
  const also = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds[0];
  return `At least ${p.minLength} characters${also ? `, with ${also}` : ''}.`;
}
