/** Every policy kind, for what treats them alike (export and import). */
import { domain } from './domain.js';
import { label } from './label.js';
import { lockout } from './lockout.js';
import { login } from './login.js';
import { passwordComplexity } from './password-complexity.js';
import { privacy } from './privacy.js';

export const POLICY_KINDS = [passwordComplexity.kind, lockout.kind, login.kind, privacy.kind, label.kind, domain.kind] as const;
