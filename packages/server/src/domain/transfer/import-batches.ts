/**
 * One organisation imported from an OrgSource with its users in batches, all in the caller's one
 * transaction (still all of the organisation or none of it), so that memory holds one batch of
 * users rather than all of them (ARCHITECTURE.md, "Imports in bounded memory").
 *
 * importOrg is called once per batch: the first call gets the organisation's single fields (the
 * organisation itself, its policies) and domains with the first batch, since users are checked
 * against those; the last call gets every other list (projects, apps, grants, members, …), which
 * name users of all batches. A call after the first finds the organisation it created and imports
 * into it, as importOrg does with an organisation that exists; the "already existing" it reports
 * for that is its own doing and is dropped. With one batch (or none) this is one plain importOrg.
 */
import type { Repositories } from '../../store/store.js';
import type { DataOrg } from './document.js';
import { importOrg, type ImportError, type ImportSuccessOrg, type OrgImportContext } from './import-org.js';
import type { OrgSource } from './spooled-document.js';

/** Single-valued fields: only the first call gets the policies; every call names the organisation. */
const NAMING_FIELDS = ['orgId', 'org', 'orgState'] as const;

export async function importOrgInBatches(
  tx: Repositories,
  context: Omit<OrgImportContext, 'org'>,
  source: OrgSource,
  batchSize: number,
): Promise<ImportSuccessOrg | undefined> {
  const parts = await source.parts();
  const { first, naming, last } = split(parts);
  const batches = source.userBatches(batchSize)[Symbol.asyncIterator]();
  let next = await batches.next();
  let result: ImportSuccessOrg | undefined;
  let call = 0;
  do {
    const users = next.done ? {} : next.value;
    next = next.done ? next : await batches.next();
    const isFirst = call === 0;
    const isLast = next.done;
    const org: DataOrg = { ...(isFirst ? first : { ...naming, orgId: result!.orgId }), ...users, ...(isLast ? last : {}) };
    const errors: ImportError[] = [];
    const callContext = { ...context, org, errors };
    const done = await importOrg(tx, callContext);
    // References to users of organisations imported later: only the last call has any.
    if (callContext.deferred) context.deferred = callContext.deferred;
    context.errors.push(...(isFirst ? errors : errors.filter((e) => !(e.type === 'org' && e.id === result!.orgId && e.message.startsWith('ID=ORG-lapo2n')))));
    if (!done) return isFirst ? undefined : result;
    result = isFirst ? done : merge(result!, done);
    call++;
  } while (!next.done);
  return result;
}

/** The parts for the first call, for the calls between, and for the last. */
function split(parts: DataOrg): { first: DataOrg; naming: DataOrg; last: DataOrg } {
  const first: Record<string, unknown> = {};
  const naming: Record<string, unknown> = {};
  const last: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parts)) {
    if (Array.isArray(value) && key !== 'domains') last[key] = value;
    else first[key] = value;
    if ((NAMING_FIELDS as readonly string[]).includes(key)) naming[key] = value;
  }
  return { first, naming, last };
}

/** Adds the success entries of a later call for the organisation to those so far (in place: they grow with the users). */
function merge(into: ImportSuccessOrg, more: ImportSuccessOrg): ImportSuccessOrg {
  const out = into as unknown as Record<string, unknown[]>;
  for (const [key, value] of Object.entries(more)) {
    if (!Array.isArray(value)) continue;
    const list = (out[key] ??= []);
    for (const item of value) list.push(item);
  }
  return into;
}
