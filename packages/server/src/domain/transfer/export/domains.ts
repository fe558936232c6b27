/**
 * Every domain of the organisation, with its verification and primary flag (ZITADEL's org.v1.Domain,
 * no details; import/domains.ts). By name: an import stamps them alike, so creation order would not
 * survive the trip.
 */
import { orgPrimaryDomain } from '../../orgs/domain.js';
import { listField, type OrgExport } from './section.js';

export async function* domains(o: OrgExport): AsyncGenerator<string> {
  const { org } = o;
  const domains = (await o.read.orgDomains.list(org.id)).sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  if (!domains.length) return;
  // The domain this instance generated from the organisation's name is marked: it is this instance's, not the organisation's.
  const generated = orgPrimaryDomain(org.name, o.instanceDomain);
  yield* listField(
    'domains',
    domains.map((d) => ({
      orgId: org.id,
      domainName: d.domain,
      isVerified: d.isVerified,
      isPrimary: d.isPrimary,
      validationType: d.validationType,
      ...(d.domain === generated ? { identityServiceGenerated: true } : {}),
    })),
  );
}
