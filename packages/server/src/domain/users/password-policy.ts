/**
 * ZITADEL's default password complexity policy (cmd/defaults.yaml PasswordComplexityPolicy:
 * MinLength 8, lower, upper, number and symbol required). Organisations cannot override it here
 * (there are no policy endpoints), so the default always applies to plain passwords.
 */
import { invalidArgument } from '../errors.js';

export const PASSWORD_MIN_LENGTH = 8;

export function checkPasswordComplexity(password: string): void {
  const fail = (id: string, rule: string) => invalidArgument(id, `invalid password: ${rule}`);
  if ([...password].length < PASSWORD_MIN_LENGTH) throw fail('DOMAIN-HuJf6', `must be at least ${PASSWORD_MIN_LENGTH} characters long`);
  if (!/\p{Ll}/u.test(password)) throw fail('DOMAIN-la3y7', 'must contain a lower-case letter');
  if (!/\p{Lu}/u.test(password)) throw fail('DOMAIN-VoaRj', 'must contain an upper-case letter');
  if (!/\p{Nd}/u.test(password)) throw fail('DOMAIN-VoaRp', 'must contain a digit');
  if (!/[^\p{L}\p{Nd}]/u.test(password)) throw fail('DOMAIN-ZRs6X', 'must contain a symbol');
}
