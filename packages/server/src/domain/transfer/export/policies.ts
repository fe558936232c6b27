/** The organisation's own policies, not the instance's, as ZITADEL (import/policies.ts). */
import { POLICY_KINDS } from '../../policies/index.js';
import { protoCompact } from './compact.js';
import { field, type OrgExport } from './section.js';

export async function* policies(o: OrgExport): AsyncGenerator<string> {
  for (const kind of POLICY_KINDS) {
    const row = await o.read.policies.get(o.org.id, kind.kind);
    if (row) yield field(kind.documentField, protoCompact((kind.toDocument as (s: object) => Record<string, unknown>)(row.settings)));
  }
}
