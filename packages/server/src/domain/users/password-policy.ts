/**
 * Checking a password a caller sets against the effective password complexity policy of the
 * user's organisation (domain/policies/password-complexity.ts).
 */

import type { Repositories } from '../../store/store.js';
import { checkPassword, passwordComplexity } from '../policies/password-complexity.js';

export async function checkPasswordComplexity(read: Repositories, instanceId: string, orgId: string, password: string): Promise<void> {
  checkPassword(await passwordComplexity.effective(read, instanceId, orgId), password);
}
