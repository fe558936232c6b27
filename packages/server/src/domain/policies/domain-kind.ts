/**
 * The domain policy's kind (ZITADEL's): its settings, how they are read and shown. Apart from its
 * operations (domain.ts) because a change of it re-checks login names (users/login-names.ts), and
 * login names read it: login-names.ts reads the kind from here, domain.ts wires the re-check, and
 * the three import in one direction.
 */
import { DomainPolicy as DomainDocument } from '../transfer/document.js';
import { type PolicyKind, parseWith } from './policy.js';

export interface Domain {
  userLoginMustBeDomain: boolean;
  validateOrgDomains: boolean;
  smtpSenderAddressMatchesInstanceDomain: boolean;
}

export const domainKind = {
  kind: 'domain',
  eventName: 'domain',
  label: 'domain policy',
  builtIn: { userLoginMustBeDomain: true, validateOrgDomains: true, smtpSenderAddressMatchesInstanceDomain: true } as Domain,
  orgWritePermission: 'iam.policy.write',
  parse: (input: unknown): Domain => {
    const p = parseWith(DomainDocument, input);
    return {
      userLoginMustBeDomain: Boolean(p.userLoginMustBeDomain),
      validateOrgDomains: Boolean(p.validateOrgDomains),
      smtpSenderAddressMatchesInstanceDomain: Boolean(p.smtpSenderAddressMatchesInstanceDomain),
    };
  },
  show: (p: Domain) => ({ ...p }),
  documentField: 'domainPolicy',
  importType: 'domain_policy',
  toDocument: (p: Domain) => ({ ...p }),
} satisfies PolicyKind<Domain, unknown, Domain>;
