/**
 * The parts of an organisation that name users or other organisations: project grants, user grants
 * and memberships. Imported with the organisation, or, when they name users of organisations
 * imported later in the same import (order.ts), after every organisation in a transaction
 * of their own (import-data.ts).
 */
import { SlicePacer } from '../../../runtime/paced-slices.js';
import type { Repositories } from '../../../store/store.js';
import type { DataOrg } from '../document.js';
import { USER_BATCH } from '../spooled-document.js';
import { importProjectGrants, importUserGrants } from './grants.js';
import { importMembers } from './members.js';
import type { OrgImport } from './report.js';

/** The parts of an organisation that name users: user grants, organisation and project members. */
/** Project grants are among them: they name another organisation, which may be imported later. */
export type OrgReferences = Pick<DataOrg, 'userGrants' | 'orgMembers' | 'projectMembers' | 'projectGrants' | 'projectGrantMembers'>;

/**
 * User grants and memberships of one organisation, whose users may belong to it, to an
 * organisation imported before, or to the target instance already. Run inside importOrgEntry, and
 * again on its own (in a transaction of its own) for references importOrgEntry deferred.
 */
export async function importReferences(tx: Repositories, refs: OrgReferences, run: OrgImport): Promise<void> {
  run.check();
  await importProjectGrants(tx, refs.projectGrants ?? [], run);
  // A grant per user (or several): in slices of bounded work, as the users are (paced-slices.ts). A
  // grant given twice in the document, once in each of two slices, is then found by the second as
  // the first wrote it (under OVERWRITE: unchanged, or changed to the second's roles).
  await new SlicePacer(USER_BATCH).each(refs.userGrants ?? [], (userGrants) => importUserGrants(tx, userGrants, run));
  // Members are few (and each call reads the organisation's members): whole.
  await importMembers(tx, { orgMembers: refs.orgMembers ?? [], projectMembers: refs.projectMembers ?? [], projectGrantMembers: refs.projectGrantMembers ?? [] }, run);
}

/**
 * The references of `org` to import with it, and those to import after every organisation: the
 * ones naming users of organisations imported later, project grants (their granted organisation
 * may come later) and the user grants given through a project grant (which must exist first;
 * import-data.ts imports every project grant before the other deferred references).
 */
export function splitReferences(org: DataOrg, importedLater: ((userId: string) => boolean) | undefined): { now: OrgReferences; later?: OrgReferences } {
  const now: OrgReferences = {};
  const later: OrgReferences = {
    ...(org.projectGrants?.length ? { projectGrants: org.projectGrants } : {}),
    ...(org.projectGrantMembers?.length ? { projectGrantMembers: org.projectGrantMembers } : {}),
  };
  let deferred = Object.keys(later).length;
  for (const key of ['userGrants', 'orgMembers', 'projectMembers'] as const) {
    for (const ref of (org[key] ?? []) as { userId: string; projectGrantId?: string }[]) {
      const target = importedLater?.(ref.userId) || (key === 'userGrants' && ref.projectGrantId) ? later : now;
      if (target === later) deferred++;
      ((target[key] ??= []) as { userId: string }[]).push(ref);
    }
  }
  return deferred ? { now, later } : { now };
}
