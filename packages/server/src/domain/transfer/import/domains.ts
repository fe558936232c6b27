/**
 * The organisation's domains, as the document has them; the one generated from its name here stays
 * (verified). A domain is normalised and checked against other organisations' verified and primary
 * domains as the API's domain commands do (domain/orgs/domains.ts), under the locks orgImportLocks takes.
 */
import type { Repositories } from '../../../store/store.js';
import { DomainError } from '../../errors.js';
import { normaliseDomain } from '../../orgs/domains.js';
import type { DataOrg } from '../document.js';
import { msg, type OrgImport } from './report.js';

export async function importDomains(tx: Repositories, domains: NonNullable<DataOrg['domains']>, run: OrgImport): Promise<void> {
  const { orgId, stamp } = run;
  for (const d of domains) {
    run.check();
    let domain: string;
    try {
      domain = normaliseDomain(d.domainName ?? '');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      run.refuse('domain', `${orgId}_${d.domainName}`, msg(error.id, error.message));
      continue;
    }
    if (d.isVerified && (await tx.orgDomains.verifiedElsewhere(domain, orgId))) {
      run.refuse('domain', `${orgId}_${domain}`, msg('ORG-i2bsd', 'Another organisation has verified this domain'));
      continue;
    }
    const validationType = d.validationType ?? 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED';
    if (await tx.orgDomains.get(orgId, domain)) await tx.orgDomains.update(orgId, domain, { isVerified: Boolean(d.isVerified), validationType });
    else await tx.orgDomains.insert({ orgId, domain, isVerified: Boolean(d.isVerified), isPrimary: false, validationType, validationToken: null, ...stamp });
    if (d.isPrimary) {
      const taken = await tx.orgs.getByPrimaryDomain(domain);
      if (taken && taken.id !== orgId) run.refuse('domain', `${orgId}_${domain}`, msg('ORG-i2bsd', 'Another organisation uses this domain as its primary one; it was imported but not made primary'));
      else await tx.orgDomains.setPrimary(orgId, domain, stamp.sequence, stamp.createdAt);
    }
    run.imported('domains', domain);
  }
}
