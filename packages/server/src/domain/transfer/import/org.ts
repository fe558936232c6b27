/**
 * The organisation itself: created with the document's id and name, or (as ZITADEL does) imported
 * into when its id exists. Its name and the primary domain derived from it are unique in the
 * instance, as for AddOrg (domain/orgs/commands.ts); `orgImportLocks` takes the same locks.
 */
import type { AggregateLock, Repositories } from '../../../store/store.js';
import { domainLock, orgPrimaryDomain } from '../../orgs/domain.js';
import { normaliseDomain } from '../../orgs/domains.js';
import { orgBeingRemoved } from '../../orgs/removal.js';
import { loginNamesLock } from '../../users/login-names.js';
import type { DataOrg } from '../document.js';
import { HistoryImport } from '../history.js';
import { msg, type OrgImport } from './report.js';

/** A document may omit the name (ZITADEL's Auth0 migration output does): the id stands in. */
export const importedOrgName = (org: DataOrg, orgId: string) => (org.org?.name ?? orgId).trim() || orgId;

/**
 * What the organisation's transaction must lock before importOrgEntry checks anything (ARCHITECTURE.md,
 * "Locks before checks"): the instance's login names (its users' names are checked against other
 * organisations' when login names carry no domain) and every domain it brings or is given (each
 * checked against other organisations' verified and primary domains), as the API's commands do.
 */
export function orgImportLocks(org: DataOrg, instanceId: string, instanceDomain: string): AggregateLock[] {
  const domains = new Set<string>();
  // Without an id the organisation gets a new one, whose domain nobody else can have.
  const name = org.orgId ? importedOrgName(org, org.orgId) : org.org?.name?.trim();
  if (name) domains.add(orgPrimaryDomain(name, instanceDomain));
  for (const d of org.domains ?? []) {
    try {
      domains.add(normaliseDomain(d.domainName ?? ''));
    } catch {
      // Reported by importDomains; nothing of it is checked or written.
    }
  }
  return [loginNamesLock(instanceId), ...[...domains].map(domainLock)];
}

/** Fields of DataOrg this service does not hold: each entry is reported, never silently dropped. */
const UNSUPPORTED_LISTS: Record<string, { type: string; id: (item: Record<string, string>, orgId: string) => string; why?: string }> = {
  actions: { type: 'action', id: (a) => a.actionId, why: 'actions are scripts, and this service does not run scripts: this action was not imported (its flow runs without it)' },
  triggerActions: { type: 'trigger_action', id: (a) => `${a.flowType}_${a.triggerType}`, why: 'actions are scripts, and this service does not run scripts: this trigger was not imported' },
};

/**
 * Creates the organisation, or finds it under the document's id. False when it cannot be imported
 * at all (its name or domain is another organisation's): then nothing of it is.
 */
export async function importOrganisation(tx: Repositories, org: DataOrg, run: OrgImport): Promise<boolean> {
  const { orgId } = run;
  if (await orgBeingRemoved(tx, orgId)) {
    run.refuse('org', orgId, msg('ORG-r3m0v', 'Errors.Org.NotFound: the organisation with this id is still being removed; import it again once it is gone'));
    return false;
  }
  const existingOrg = await tx.orgs.get(orgId);
  if (existingOrg) {
    // Imported into, under every policy. Its name is not overwritten: the name gives the
    // organisation's primary domain, which users' login names and clients may carry.
    if (run.exists('org', orgId, msg('ORG-lapo2n', 'Errors.Org.AlreadyExisting'))) {
      const name = importedOrgName(org, orgId);
      // Its state takes the document's when the document gives one (a v1 or Auth0 document does not).
      const wanted = org.orgState === 'ORG_STATE_INACTIVE' || org.orgState === 'ORG_STATE_ACTIVE' ? org.orgState : existingOrg.state;
      if (wanted !== existingOrg.state) {
        await run.overwrite(tx, {
          type: 'org',
          id: orgId,
          aggregate: ['org', orgId],
          eventType: 'org.changed',
          current: { state: existingOrg.state },
          wanted: { state: wanted },
          stateEvent: (to) => (to === 'ORG_STATE_INACTIVE' ? 'org.deactivated' : 'org.reactivated'),
          apply: (_, at) => tx.orgs.setState(orgId, wanted, at.sequence, at.changedAt),
        });
      } else {
        run.unchanged('org', orgId, name === existingOrg.name ? undefined : msg('IMPORT-0rgNm', `the organisation is named "${existingOrg.name}" here; an import does not rename an organisation`));
      }
    }
  } else {
    const name = importedOrgName(org, orgId);
    if (await tx.orgs.getByNameKey(name.toLowerCase())) {
      run.clash('org', orgId, msg('ORG-3M9f2', `Errors.Org.AlreadyExists: the name "${name}" is taken by another organisation; its resources were not imported`));
      return false;
    }
    const instance = await tx.instance.get();
    const primaryDomain = orgPrimaryDomain(name, instance?.domain ?? 'localhost');
    if (await tx.orgs.getByPrimaryDomain(primaryDomain)) {
      run.clash('org', orgId, msg('ORG-3M9f3', `Errors.Org.Domain.AlreadyExists: ${primaryDomain}; its resources were not imported`));
      return false;
    }
    await tx.orgs.insert({
      id: orgId,
      name,
      nameKey: name.toLowerCase(),
      state: org.orgState === 'ORG_STATE_INACTIVE' ? 'ORG_STATE_INACTIVE' : 'ORG_STATE_ACTIVE',
      primaryDomain,
      ...run.stamp,
    });
    run.created('org', orgId);
    // The source's trail of the organisation (history.ts), unless its id has one here (a removed
    // organisation's, ids stay taken); the import's `org.data.imported` follows it.
    const history = await HistoryImport.of(tx, run, 'org', [{ id: orgId, history: org.identityServiceOrgHistory }]);
    history.take('org', orgId, orgId, org.identityServiceOrgHistory, run.stamp);
    await history.append(tx);
  }

  for (const [field, spec] of Object.entries(UNSUPPORTED_LISTS)) {
    for (const item of (org as Record<string, Record<string, string>[]>)[field] ?? []) {
      run.refuse(spec.type, spec.id(item, orgId), msg('IMPORT-uNsup', spec.why ?? `${field} are not supported by this service; this entry was not imported`));
    }
  }
  return true;
}
