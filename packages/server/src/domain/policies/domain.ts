/**
 * The domain policy (ZITADEL's): `userLoginMustBeDomain` (login names carry the organisation's
 * domains; users/login-names.ts), `validateOrgDomains` (a domain must be verified before it becomes primary),
 * `smtpSenderAddressMatchesInstanceDomain`. As in ZITADEL, only an instance administrator
 * (`iam.policy.write`) gives an organisation its own. Until the instance's default is changed it is
 * ZITADEL's built-in one (all three on). The kind itself is in domain-kind.ts (read by login names).
 */

import { assertBareLoginNamesUnique, loginNamesLock } from '../users/login-names.js';
import { domainKind } from './domain-kind.js';
import { policyOperations } from './policy.js';

export const domain = policyOperations({
  ...domainKind,
  // Switching userLoginMustBeDomain off makes user names login names across organisations.
  afterChange: (tx, instanceId) => assertBareLoginNamesUnique(tx, instanceId),
  // …so a change takes turns with every command that gives a user a name.
  locks: (instanceId) => [loginNamesLock(instanceId)],
});
