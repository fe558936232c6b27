/**
 * The password complexity policy (ZITADEL's): the effective one — the organisation's own, else the
 * instance's — decides every password a caller sets (users/password-policy.ts); a hashed password
 * taken over by an import is taken as it is. Until the instance's default is changed it is
 * ZITADEL's built-in default (8 characters, lower, upper, digit, symbol).
 */
import { invalidArgument } from '../errors.js';
import { policyOperations } from './policy.js';

export const PASSWORD_COMPLEXITY = 'password_complexity';
/** Longest minimum accepted: bcrypt and friends ignore bytes beyond 72, and a longer minimum is a typo. */
export const MAX_MIN_LENGTH = 72;

export interface PasswordComplexity {
  minLength: number;
  hasUppercase: boolean;
  hasLowercase: boolean;
  hasNumber: boolean;
  hasSymbol: boolean;
}

export interface PasswordComplexityInput {
  minLength?: number | string;
  hasUppercase?: boolean;
  hasLowercase?: boolean;
  hasNumber?: boolean;
  hasSymbol?: boolean;
}

export const passwordComplexity = policyOperations({
  kind: PASSWORD_COMPLEXITY,
  eventName: 'password.complexity',
  label: 'password complexity policy',
  builtIn: { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true } as PasswordComplexity,
  parse(input: PasswordComplexityInput): PasswordComplexity {
    const minLength = input.minLength === undefined ? 0 : Number(input.minLength);
    if (!Number.isInteger(minLength) || minLength < 1 || minLength > MAX_MIN_LENGTH) {
      throw invalidArgument('POLICY-m1nL3', `invalid minLength: must be a whole number from 1 to ${MAX_MIN_LENGTH}`);
    }
    return { minLength, hasUppercase: Boolean(input.hasUppercase), hasLowercase: Boolean(input.hasLowercase), hasNumber: Boolean(input.hasNumber), hasSymbol: Boolean(input.hasSymbol) };
  },
  // minLength is a uint64 in ZITADEL's JSON: a string.
  show: (p: PasswordComplexity) => ({ minLength: String(p.minLength), hasUppercase: p.hasUppercase, hasLowercase: p.hasLowercase, hasNumber: p.hasNumber, hasSymbol: p.hasSymbol }),
  documentField: 'passwordComplexityPolicy',
  importType: 'password_complexity_policy',
  toDocument: (p: PasswordComplexity) => ({ minLength: String(p.minLength), hasUppercase: p.hasUppercase, hasLowercase: p.hasLowercase, hasNumber: p.hasNumber, hasSymbol: p.hasSymbol }),
});

/** Refuses a password the policy does not allow, naming the rule (ZITADEL's error ids). */
export function checkPassword(policy: PasswordComplexity, password: string): void {
  const fail = (id: string, rule: string) => invalidArgument(id, `invalid password: ${rule}`);
  if ([...password].length < policy.minLength) throw fail('DOMAIN-HuJf6', `must be at least ${policy.minLength} characters long`);
  if (policy.hasLowercase && !/\p{Ll}/u.test(password)) throw fail('DOMAIN-la3y7', 'must contain a lower-case letter');
  if (policy.hasUppercase && !/\p{Lu}/u.test(password)) throw fail('DOMAIN-VoaRj', 'must contain an upper-case letter');
  if (policy.hasNumber && !/\p{Nd}/u.test(password)) throw fail('DOMAIN-VoaRp', 'must contain a digit');
  if (policy.hasSymbol && !/[^\p{L}\p{Nd}]/u.test(password)) throw fail('DOMAIN-ZRs6X', 'must contain a symbol');
}
