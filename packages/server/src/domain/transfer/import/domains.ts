/**
 * The organisation's domains, as the document has them; the one generated from its name here stays
 * (verified). A domain is normalised and checked against other organisations' verified and primary
 * domains as the API's domain commands do (domain/orgs/domains.ts), under the locks orgImportLocks takes.
 * The domain the exporting instance generated (`<name>.<its instance domain>`, marked by this service's
 * export with `identityServiceGenerated`) is that instance's, not the organisation's: it is skipped, as
 * this instance generated its own when the organisation was created. A verified copy would hold the
 * name against every other organisation here, and an unverified one would only be clutter.
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
    if (d.identityServiceGenerated) {
      run.skipped('domain', `${orgId}_${d.domainName}`, msg('IMPORT-g3nd0', 'the domain the exporting instance generated for the organisation; this instance has generated its own'));
      continue;
    }
    let domain: string;
    try {
      domain = normaliseDomain(d.domainName ?? '');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      run.refuse('domain', `${orgId}_${d.domainName}`, msg(error.id, error.message));
      continue;
    }
    if (d.isVerified && (await tx.orgDomains.verifiedElsewhere(domain, orgId))) {
      run.clash('domain', `${orgId}_${domain}`, msg('ORG-i2bsd', 'Another organisation has verified this domain'));
      continue;
    }
    const validationType = d.validationType ?? 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED';
    const existing = await tx.orgDomains.get(orgId, domain);
    if (existing) {
      // A domain the organisation has (the one generated from its name too, which an export of it
      // carries) is no conflict to report: as the import always did, and ZITADEL does, it takes the
      // document's verification and is listed as imported (REPORT), now with an event when that
      // changes anything. SKIP leaves it as it is; OVERWRITE is REPORT without the listing.
      if (run.policy === 'SKIP') {
        run.exists('domain', `${orgId}_${domain}`, '');
        continue;
      }
      const primaryElsewhere = d.isPrimary ? await tx.orgs.getByPrimaryDomain(domain) : undefined;
      if (primaryElsewhere && primaryElsewhere.id !== orgId) {
        run.clash('domain', `${orgId}_${domain}`, msg('ORG-i2bsd', 'Another organisation uses this domain as its primary one; it was not made primary'));
        continue;
      }
      if (run.policy === 'REPORT' || run.policy === 'FAIL') run.listed('domains', domain);
      await run.overwrite(tx, {
        type: 'domain',
        id: `${orgId}_${domain}`,
        aggregate: ['org', orgId],
        eventType: 'org.domain.changed',
        payload: { domain },
        current: { isVerified: existing.isVerified, validationType: existing.validationType, ...(d.isPrimary ? { isPrimary: existing.isPrimary } : {}) },
        wanted: { isVerified: Boolean(d.isVerified), validationType, ...(d.isPrimary ? { isPrimary: true } : {}) },
        apply: async ({ isPrimary, ...change }, at) => {
          if (Object.keys(change).length) await tx.orgDomains.update(orgId, domain, { ...change, sequence: at.sequence, changedAt: at.changedAt });
          if (isPrimary) await tx.orgDomains.setPrimary(orgId, domain, at.sequence, at.changedAt);
        },
      });
      continue;
    }
    await tx.orgDomains.insert({ orgId, domain, isVerified: Boolean(d.isVerified), isPrimary: false, validationType, validationToken: null, ...stamp });
    if (d.isPrimary) {
      const taken = await tx.orgs.getByPrimaryDomain(domain);
      if (taken && taken.id !== orgId) run.clash('domain', `${orgId}_${domain}`, msg('ORG-i2bsd', 'Another organisation uses this domain as its primary one; it was imported but not made primary'));
      else await tx.orgDomains.setPrimary(orgId, domain, stamp.sequence, stamp.createdAt);
    }
    run.imported('domains', domain);
  }
}
