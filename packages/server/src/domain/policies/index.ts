/** Every policy kind, for what treats them alike (export and import). */
import { lockout } from './lockout.js';
import { passwordComplexity } from './password-complexity.js';

export const POLICY_KINDS = [passwordComplexity.kind, lockout.kind] as const;
