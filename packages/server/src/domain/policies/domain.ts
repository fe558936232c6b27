/**
 * The domain policy (ZITADEL's): `userLoginMustBeDomain` (login names carry the organisation's
 * domains; users/login-names.ts), `validateOrgDomains` (a domain must be verified before it becomes primary),
 * `smtpSenderAddressMatchesInstanceDomain`. As in ZITADEL, only an instance administrator
 * (`iam.policy.write`) gives an organisation its own. Until the instance's default is changed it is
 * ZITADEL's built-in one (all three on).
 */
import { DomainPolicy as DomainDocument } from '../transfer/document.js';
import { parseWith, policyOperations } from './policy.js';
import { assertBareLoginNamesUnique, loginNamesLock } from '../users/login-names.js';

export interface Domain {
  userLoginMustBeDomain: boolean;
  validateOrgDomains: boolean;
  smtpSenderAddressMatchesInstanceDomain: boolean;
}

export const domain = policyOperations({
  kind: 'domain',
  eventName: 'domain',
  label: 'domain policy',
  builtIn: { userLoginMustBeDomain: true, validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: true } as Domain,
  orgWritePermission: 'iam.policy.write',
  parse: (input: unknown): Domain => {
    const p = parseWith(DomainDocument, input);
    return { userLoginMustBeDomain: Boolean(p.userLoginMustBeDomain), validateOrgDomains: Boolean(p.validateOrgDomains), smtpSenderAddressMatchesInstanceDomain: Boolean(p.smtpSenderAddressMatchesInstanceDomain) };
  },
  show: (p: Domain) => ({ ...p }),
  documentField: 'domainPolicy',
  importType: 'domain_policy',
  toDocument: (p: Domain) => ({ ...p }),
  // Switching userLoginMustBeDomain off makes user names login names across organisations.
  afterChange: (tx, instanceId) => assertBareLoginNamesUnique(tx, instanceId),
  // …so a change takes turns with every command that gives a user a name.
  locks: (instanceId) => [loginNamesLock(instanceId)],
});
