/**
 * The organisation's own policies; without one in the document, the target's instance policy
 * applies. Each is parsed by its kind's own parser, the one its API command uses (domain/policies/).
 */
import type { Repositories } from '../../../store/store.js';
import { DomainError } from '../../errors.js';
import { POLICY_KINDS } from '../../policies/index.js';
import type { DataOrg } from '../document.js';
import { msg, type OrgImport } from './report.js';

export async function importPolicies(tx: Repositories, org: DataOrg, run: OrgImport): Promise<void> {
  const { orgId } = run;
  for (const kind of POLICY_KINDS) {
    const given = (org as Record<string, unknown>)[kind.documentField];
    if (!given) continue;
    let settings;
    try {
      settings = (kind.parse as (input: unknown) => object)(given);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      run.refuse(kind.importType, orgId, msg(error.id, error.message));
      continue;
    }
    const existing = await tx.policies.get(orgId, kind.kind);
    if (existing) {
      if (!run.exists(kind.importType, orgId, msg('Org-1T8k0s', `Errors.Org.${kind.documentField}.AlreadyExists`))) continue;
      // The API's change event of the policy (domain/policies/policy.ts).
      await run.overwrite(tx, {
        type: kind.importType,
        id: orgId,
        aggregate: ['org', orgId],
        eventType: `org.policy.${kind.eventName}.changed`,
        current: existing.settings,
        wanted: settings as Record<string, unknown>,
        apply: (_, at) => tx.policies.upsert({ ...existing, settings: settings as Record<string, unknown>, sequence: at.sequence, changedAt: at.changedAt }),
      });
      continue;
    }
    await tx.policies.upsert({ ownerId: orgId, kind: kind.kind, settings: settings as Record<string, unknown>, ...run.stamp });
    run.created(kind.importType, orgId);
  }
}
